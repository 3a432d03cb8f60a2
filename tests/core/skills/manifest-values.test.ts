import { describe, expect, test } from "bun:test";
import { buildManifest } from "../../../src/core/skills/manifest.ts";
import { hasLoneSurrogate } from "../../../src/core/text.ts";

// The manifest helpers avoid calls per scalar (a cold listing would JIT-compile them): these pin
// the values they produce, nested and odd ones included.
describe("buildManifest over nested and unusual values", () => {
  test("nulls are dropped at every level of a mapping; a null list item is kept and then dropped by repair", () => {
    const r = buildManifest({
      name: "x",
      description: "d",
      version: null,
      tags: ["a", null, "b"],
      metadata: { lemon: { category: "cat", synthesized: null }, other: null },
      requires: { bins: ["git"], config: null },
    });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.manifest.version).toBeNull();
    expect(r.manifest.tags).toEqual(["a", "b"]);
    expect(r.warnings.map((w) => w.code)).toEqual(["list_item_dropped"]);
    expect(r.manifest.category).toBe("cat");
    expect(r.manifest.synthesized).toBe(false);
    expect(r.manifest.requires).toEqual({ bins: ["git"], config: [] });
    expect(r.raw.metadata).toEqual({ lemon: { category: "cat" } });
  });

  test("a nested rule reads its path: a wrong leaf fails, a missing step is absent", () => {
    const r = buildManifest({ name: "x", description: "d", metadata: "plain", requires: { bins: "git" } });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.message).toBe("requires.bins must be a list of at most 32 strings of at most 128 bytes");
    const ok = buildManifest({ name: "x", description: "d", metadata: { other: 1 } });
    expect(ok.ok ? ok.manifest.category : "invalid").toBeNull();
  });

  test("a date value fails its rule; a date inside a list is kept as a value", () => {
    expect(buildManifest({ name: new Date(0), description: "d" }).ok).toBe(false);
    const r = buildManifest({ name: "x", description: "d", references: [new Date(0)] });
    expect(r.raw.references).toEqual([new Date(0)]);
  });

  test("lone surrogates make text unsafe, pairs do not", () => {
    expect(hasLoneSurrogate("a\uD800b")).toBe(true);
    expect(hasLoneSurrogate("a\uDC00")).toBe(true);
    expect(hasLoneSurrogate("\uDC00\uD800")).toBe(true);
    expect(hasLoneSurrogate("\uD834\uDD1E ok")).toBe(false);
    expect(hasLoneSurrogate("")).toBe(false);
    expect(buildManifest({ name: "x\uD800", description: "d" }).ok).toBe(false);
    expect(buildManifest({ name: "x\uD834\uDD1E", description: "d" }).ok).toBe(true);
  });
});
