// The generated checks (schema/mcp-json.checks.js) are derived from the schemas of
// schema/mcp-json.ts, the single source: a schema edit without regenerating fails here.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { Value } from "@sinclair/typebox/value";
import { CHECKS_DTS, CHECKS_JS, checksModule } from "../../../src/core/schema/mcp-json.gen.ts";
import { McpServerEntry } from "../../../src/core/schema/mcp-json.ts";
import { isMcpServerEntry } from "../../../src/core/schema/mcp-json.checks.js";
import { validateEntry } from "../../../src/core/mcp/validate.ts";

describe("generated MCP schema checks", () => {
  test("mcp-json.checks.js and .d.ts are what `bun src/core/schema/mcp-json.gen.ts` writes", () => {
    const { js, dts } = checksModule();
    const hint = "stale: run `bun src/core/schema/mcp-json.gen.ts`";
    expect([readFileSync(CHECKS_JS, "utf8") === js, hint]).toEqual([true, hint]);
    expect([readFileSync(CHECKS_DTS, "utf8") === dts, hint]).toEqual([true, hint]);
  });

  test("the generated check agrees with TypeBox on the schema, and validation with both", () => {
    const cases: unknown[] = [
      { name: "a", command: "x" },
      { name: "a", command: " " },
      { name: "h", url: "https://x", headers: { "X-A": "1" } },
      { name: "h", url: "https://x", headers: { "X A": "1" } },
      { name: "h", url: "https://x", headers: { A: "1\n" } },
      { command: "x", env: { _A: "1" }, env_vars: ["B"], timeout_ms: 300000 },
      { command: "x", timeout_ms: 300001 },
      { command: "x", oauth: { flow: "pkce", scopes: ["a"] }, sampling: { mode: "deny", max_tokens: 5 } },
      { command: "x", sampling: { mode: "auto" } },
      { command: "x", tool_approvals: { t: "never" }, "x-ext": { any: 1 } },
      [],
      null,
      "x",
    ];
    for (const c of cases) {
      const typebox = Value.Check(McpServerEntry, c);
      expect([c, isMcpServerEntry(c)]).toEqual([c, typebox]);
      // Field-valid entries pass the schema step; the rest fail it with a message.
      if (typeof c === "object" && c !== null && !Array.isArray(c) && !typebox) expect(validateEntry(c).ok).toBe(false);
    }
  });
});
