// The word-vector table format of the paraphrase experiment (scripts/build-vectors.ts writes a
// table in $TMPDIR from the 300 MB source package; relevance does not ship one, see
// scripts/bench/relevance.md): round trip, determinism, damaged bytes.
import { describe, expect, test } from "bun:test";
import { encodeVectors, NO_NEIGHBOUR, openVectors, VECTOR_DIMS } from "../../../../scripts/bench/vector-format.ts";

const utf8 = (s: string) => new TextEncoder().encode(s);

describe("vector format", () => {
  const table = {
    stems: ["test", "deploy", "cach"],
    vec: new Int8Array(3 * VECTOR_DIMS).map((_, i) => (i % 7) - 3),
    scale: new Float32Array([0.01, 0.02, 0.03]),
    nbr: new Uint16Array([1, 2, 0, NO_NEIGHBOUR, 0, 1]),
    sim: new Uint8Array([200, 100, 150, 0, 90, 80]),
    k: 2,
  };

  test("round trip: lookup by stem, neighbours, vectors", () => {
    const v = openVectors(encodeVectors(table));
    if (typeof v === "string") throw new Error(v);
    expect(v.find(utf8("deploy"))).toBe(1);
    expect(v.find(utf8("cach"))).toBe(2);
    expect(v.find(utf8("nope"))).toBe(-1);
    expect(v.find(utf8(""))).toBe(-1);
    expect(new TextDecoder().decode(v.stem(2))).toBe("cach");
    expect([...v.nbr]).toEqual([...table.nbr]);
    expect([...v.sim]).toEqual([...table.sim]);
    expect(v.vec[5]).toBe(table.vec[5]!);
  });

  test("the encoding is deterministic", () => {
    expect(Buffer.compare(Buffer.from(encodeVectors(table)), Buffer.from(encodeVectors(table)))).toBe(0);
  });

  test("damaged bytes are refused with a reason", () => {
    const good = encodeVectors(table);
    expect(openVectors(good.subarray(0, 20))).toBe("truncated");
    expect(openVectors(good.subarray(0, good.length - 8))).toBe("length mismatch");
    const bad = good.slice();
    bad[0] = 0x58;
    expect(openVectors(bad)).toBe("bad magic");
    const ver = good.slice();
    ver[6] = 99;
    expect(openVectors(ver)).toBe("version 99");
  });
});
