// omp / mcp-json tool filters are picomatch globs (mcp.md §4.3): extglobs and braces must mean what
// they mean in the tool that wrote the configuration.
import { describe, expect, test } from "bun:test";
import { passes } from "../../../../src/core/mcp/client/inventory.ts";

const only = (enabled: string[], disabled: string[] = []) => ({ enabled, disabled });

describe("tool glob filters", () => {
  test("extglob alternatives block exactly the named families", () => {
    const g = only([], ["@(write|delete)_*"]);
    expect(passes("write_file", undefined, undefined, g)).toBe(false);
    expect(passes("delete_entity", undefined, undefined, g)).toBe(false);
    expect(passes("read_file", undefined, undefined, g)).toBe(true);
  });

  test("braces and negated extglobs in the allow list; deny wins over allow", () => {
    const g = { enabled: ["{read,list}_*", "!(git_*)"], disabled: ["list_secrets"] };
    expect(passes("read_text_file", undefined, undefined, g)).toBe(true);
    expect(passes("list_directory", undefined, undefined, g)).toBe(true);
    expect(passes("list_secrets", undefined, undefined, g)).toBe(false);
    expect(passes("search", undefined, undefined, g)).toBe(true);
    expect(passes("git_push", undefined, undefined, only(["{read,list}_*", "!(git_*)"]))).toBe(false);
  });

  test("exact lists apply before globs", () => {
    expect(passes("read_file", ["read_file"], ["read_file"], only(["*"]))).toBe(false);
    expect(passes("other", ["read_file"], undefined, only(["*"]))).toBe(false);
  });
});
