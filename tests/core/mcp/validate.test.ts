import { describe, expect, test } from "bun:test";
import { validateEntries, validateEntry } from "../../../src/core/mcp/validate.ts";
import { parseText } from "../../../src/core/mcp/read.ts";
import { expandString } from "../../../src/core/mcp/expand.ts";

const msg = (e: unknown) => {
  const v = validateEntry(e);
  return v.ok ? "ok" : v.message;
};
const S = { name: "s", command: "x" };
const H = { name: "h", url: "https://h.example/mcp" };

describe("validation messages (mcp.md §3.4)", () => {
  test.each([
    [
      { name: "-bad", command: "x" },
      "name must be 1-64 characters of A-Z, a-z, 0-9, '_', '.', '-' and start with a letter or digit",
    ],
    [
      { name: "a".repeat(65), command: "x" },
      "name must be 1-64 characters of A-Z, a-z, 0-9, '_', '.', '-' and start with a letter or digit",
    ],
    [{ ...S, type: "websocket" }, "type must be stdio, http, or sse"],
    [{ ...S, url: "https://x.example" }, "command and url are mutually exclusive"],
    [{ name: "s", type: "stdio" }, "stdio command cannot be empty"],
    [{ name: "s", command: "  " }, "stdio command cannot be empty"],
    [{ name: "h", url: "ftp://x.example" }, "invalid HTTP URL"],
    [{ name: "h", type: "sse", url: "not a url" }, "invalid HTTP URL"],
    [{ ...S, args: "-y server" }, "args must be a list of strings"],
    [{ ...S, "allow-tools": [1] }, "allow_tools must be a list of strings"],
    [{ ...S, env: { A: 1 } }, "env must be an object of strings"],
    [{ ...H, headers: ["a"] }, "headers must be an object of strings"],
    [{ ...H, env: { A: "1" } }, "env is only valid for stdio servers"],
    [{ ...S, headers: { A: "1" } }, "headers is only valid for http and sse servers"],
    [{ ...S, timeout_ms: 0 }, "timeout_ms must be a positive integer"],
    [{ ...S, "ready-timeout-ms": 1.5 }, "ready_timeout_ms must be a positive integer"],
    [{ ...S, tool_timeout_ms: 300001 }, "tool_timeout_ms must not exceed 300000"],
    [{ ...S, approval: "sometimes" }, "approval must be always or never"],
    [{ ...S, tool_approvals: { t: "maybe" } }, "tool_approvals values must be always or never"],
    [{ ...S, sampling: { mode: "auto" } }, "sampling.mode must be model, reviewed_model, or deny"],
    [{ ...S, sampling: { mode: "deny", max_tokens: -1 } }, "sampling.max_tokens must be a positive integer"],
    [{ ...S, oauth: {} }, "oauth is only valid for http and sse servers"],
    [{ ...H, oauth: { client_id: "" } }, "oauth.client_id must be a non-empty string"],
    [{ ...H, oauth: { flow: "client_credentials", client_id: "c" } }, "oauth.client_secret must be a non-empty string"],
    [{ ...H, oauth: { flow: "implicit" } }, "oauth.flow must be client_credentials or authorization_code_pkce"],
    [
      { ...H, oauth: { token_auth_method: "jwt" } },
      "oauth.token_auth_method must be client_secret_post or client_secret_basic",
    ],
    [{ ...H, oauth: { redirect_uri: "https://example.com/cb" } }, "oauth.redirect_uri must be a loopback http URL"],
    [
      { ...H, headers: { authorization: "Bearer x" }, oauth: { flow: "pkce" } },
      "headers.Authorization conflicts with oauth",
    ],
    [{ ...H, persist_oauth_tokens: "yes" }, "persist_oauth_tokens must be a boolean"],
    [
      { ...H, oauth_token_secret: "a/b" },
      "oauth_token_secret must be a non-empty string of A-Z, a-z, 0-9, '.', '_', '-'",
    ],
    ["npx server", "invalid MCP server config"],
    [{ ...S, enabled: "yes" }, "invalid MCP server config"],
  ])("%j → %s", (entry, expected) => {
    expect(msg(entry)).toBe(expected);
  });

  test("valid entries: aliases resolved, transport inferred, unknown keys kept", () => {
    expect(msg({ ...S, "ready-timeout-ms": 5000, disabled: true, "x-extra": 1 })).toBe("ok");
    const v = validateEntry({ ...S, "ready-timeout-ms": 5000, disabled: true, "x-extra": 1 });
    expect(v.ok && [v.transport, v.entry.ready_timeout_ms, v.entry.enabled, v.entry["x-extra"]]).toEqual([
      "stdio",
      5000,
      false,
      1,
    ]);
    expect(msg({ name: "u", url: "${BASE_URL}/mcp" })).toBe("ok"); // checked after expansion, at connect time
    expect(msg({ ...H, oauth: { flow: "client_credentials", client_id: "c", client_secret_env: "SECRET" } })).toBe(
      "ok",
    );
  });

  test("messages never echo values", () => {
    const secret = "sk-live-1234567890";
    for (const e of [
      { name: "h", url: `https://x.example/?k=${secret}`, env: { K: secret } },
      { name: "s", command: secret, args: secret },
      { name: "s", command: "x", approval: secret },
    ])
      expect(msg(e)).not.toContain(secret);
  });

  test("validateEntries reports every failing entry with its index and name, and duplicates", () => {
    expect(validateEntries([S, { name: "b", command: "" }, S, 3])).toEqual({
      ok: false,
      errors: [
        { index: 1, name: "b", message: "stdio command cannot be empty" },
        { index: 2, name: "s", message: "duplicate server name 's'" },
        { index: 3, message: "invalid MCP server config" },
      ],
    });
    expect(validateEntries([S, H])).toEqual({
      ok: true,
      servers: [
        { ...S, type: "stdio" },
        { ...H, type: "http" },
      ],
    });
  });
});

describe("JSONC and expansion", () => {
  test("comments and trailing commas, strings untouched", async () => {
    const jsonc = async (t: string) => {
      const p = await parseText(t, "jsonc");
      return p.ok ? p.value : p.problem;
    };
    expect(await jsonc('{\n // c\n "a": "http://x//y", /* b */ "b": [1, 2,],\n}')).toEqual({
      a: "http://x//y",
      b: [1, 2],
    });
    expect(await jsonc('{"a": "/* not a comment */", "b": "x,]"}')).toEqual({ a: "/* not a comment */", b: "x,]" });
    expect(await jsonc('{"a": ')).toBe("syntax");
  });

  test("lemon and editor dialects; codex none", () => {
    const vars = { env: { A: "1", E: "" }, cwd: "/p/proj", homeDir: "/h" };
    const u = new Set<string>();
    expect(expandString("${A}-${B:-dflt}-${E:-e}-${MISSING}", "lemon", vars, u)).toBe("1-dflt-e-${MISSING}");
    expect(expandString("${env:A}${workspaceFolder}${/}${workspaceFolderBasename}${userHome}", "editor", vars, u)).toBe(
      "1/p/proj/proj/h",
    );
    expect(expandString("${env:A}", "lemon", vars, u)).toBe("${env:A}");
    expect(expandString("${A}", "none", vars, u)).toBe("${A}");
    expect([...u]).toEqual(["MISSING", "env:A"]);
  });
});
