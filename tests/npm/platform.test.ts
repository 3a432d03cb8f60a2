// Platform package choice of the npm launcher (scripts/npm/platform.cjs) against the target table.
import { describe, expect, test } from "bun:test";
import { createRequire } from "node:module";
import { TARGETS } from "../../scripts/targets.ts";

interface Facts {
  platform: string;
  arch: string;
  musl: boolean;
  avx2: boolean;
}
const platform = createRequire(import.meta.url)("../../scripts/npm/platform.cjs") as {
  candidates(targets: readonly { name: string }[], facts: Facts): { name: string }[];
};

const pick = (facts: Facts) => platform.candidates(TARGETS, facts).map((t) => t.name);

describe("npm launcher platform choice", () => {
  test("glibc x64 with AVX2 prefers the regular build, baseline as fallback", () => {
    expect(pick({ platform: "linux", arch: "x64", musl: false, avx2: true })).toEqual([
      "linux-x64",
      "linux-x64-baseline",
    ]);
  });
  test("x64 without AVX2 gets only the baseline build", () => {
    expect(pick({ platform: "linux", arch: "x64", musl: false, avx2: false })).toEqual(["linux-x64-baseline"]);
  });
  test("musl machines get the musl builds only", () => {
    expect(pick({ platform: "linux", arch: "x64", musl: true, avx2: true })).toEqual(["linux-x64-musl"]);
    expect(pick({ platform: "linux", arch: "arm64", musl: true, avx2: true })).toEqual(["linux-arm64-musl"]);
  });
  test("macOS and Windows map by os and cpu", () => {
    expect(pick({ platform: "darwin", arch: "arm64", musl: false, avx2: true })).toEqual(["darwin-arm64"]);
    expect(pick({ platform: "win32", arch: "x64", musl: false, avx2: true })).toEqual(["windows-x64"]);
  });
  test("an unsupported machine gets nothing", () => {
    expect(pick({ platform: "freebsd", arch: "x64", musl: false, avx2: true })).toEqual([]);
  });
});
