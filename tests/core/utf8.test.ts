import { describe, expect, test } from "bun:test";
import { decodeUtf8 } from "../../src/core/text.ts";

const bytes = (...b: number[]) => new Uint8Array(b);

describe("decodeUtf8, the one strict decoder", () => {
  test("valid text decodes; one leading BOM is dropped", () => {
    expect(decodeUtf8(new TextEncoder().encode("héllo ✓ 𝄞"))).toBe("héllo ✓ 𝄞");
    expect(decodeUtf8(bytes(0xef, 0xbb, 0xbf, 0x61))).toBe("a");
    expect(decodeUtf8(bytes(0x61, 0xef, 0xbb, 0xbf))).toBe("a\uFEFF");
    expect(decodeUtf8(bytes())).toBe("");
  });

  test("invalid bytes are null, never U+FFFD", () => {
    expect(decodeUtf8(bytes(0xff))).toBeNull();
    expect(decodeUtf8(bytes(0xc0, 0xaf))).toBeNull(); // overlong '/'
    expect(decodeUtf8(bytes(0xed, 0xa0, 0x80))).toBeNull(); // an encoded surrogate
    expect(decodeUtf8(bytes(0xe2, 0x9c))).toBeNull(); // truncated
    expect(decodeUtf8(bytes(0xf4, 0x90, 0x80, 0x80))).toBeNull(); // above U+10FFFF
  });
});
