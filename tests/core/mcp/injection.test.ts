// Header and env names and values (cli.md §3.1, issue 9 §2.8): the core validation refuses what
// could split a header line or smuggle a variable, so `mcp add`, `mcp.validate` and discovery agree.
import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { effectiveServers, mcpConfig, validate } from "../../../src/core/mcp/index.ts";
import { validateEntry } from "../../../src/core/mcp/validate.ts";
import { sandbox } from "../../support/sandbox.ts";
import { ctxFor } from "./fixtures.ts";

const msg = (e: unknown) => {
  const v = validateEntry(e);
  return v.ok ? "ok" : v.message;
};
const S = { name: "s", command: "x" };
const H = { name: "h", url: "https://h.example/mcp" };

describe("header and env names and values", () => {
  test.each([
    [{ ...H, headers: { "a\r\nX-Injected": "1" } }, "header names must be RFC 9110 tokens"],
    [{ ...H, headers: { "X Team": "1" } }, "header names must be RFC 9110 tokens"],
    [{ ...H, headers: { "": "1" } }, "header names must be RFC 9110 tokens"],
    [{ ...H, headers: { "X-Team:": "1" } }, "header names must be RFC 9110 tokens"],
    [{ ...H, headers: { "X-Team": "a\r\nX-Injected: 1" } }, "header values must not contain CR, LF or NUL"],
    [{ ...H, headers: { "X-Team": "a\nb" } }, "header values must not contain CR, LF or NUL"],
    [{ ...H, headers: { "X-Team": "a\0b" } }, "header values must not contain CR, LF or NUL"],
    [{ ...S, env: { "1ABC": "x" } }, "env names must match ^[A-Za-z_][A-Za-z0-9_]*$"],
    [{ ...S, env: { "A=B": "x" } }, "env names must match ^[A-Za-z_][A-Za-z0-9_]*$"],
    [{ ...S, env: { "A-B": "x" } }, "env names must match ^[A-Za-z_][A-Za-z0-9_]*$"],
    [{ ...S, env: { A: "x\0y" } }, "env values must not contain NUL"],
    [{ ...S, env: { A: "x\ny" } }, "ok"],
    [{ ...S, env_vars: ["OK", "NOT OK"] }, "env_vars names must match ^[A-Za-z_][A-Za-z0-9_]*$"],
  ])("%j → %s", (entry, expected) => {
    expect(msg(entry)).toBe(expected);
  });

  test("ordinary names and values pass, placeholders included", () => {
    expect(
      msg({ ...H, headers: { "X-Api-Key": "${KEY}", "x.custom~h!": "a: b; c=d", Authorization: "Bearer t" } }),
    ).toBe("ok");
    expect(msg({ ...S, env: { _A1: "multi word value", PATH: "/bin:/usr/bin" }, env_vars: ["HOME", "_X"] })).toBe("ok");
  });

  test("messages never echo the offending name or value", () => {
    const m1 = msg({ ...H, headers: { "secret-name\r\nX": "v" } });
    const m2 = msg({ ...S, env: { A: "sk-live-secret\0" } });
    expect(m1 + m2).not.toContain("secret");
  });

  test("mcp add refuses a CRLF header through the CLI and the module; the file is not written", async () => {
    await using box = await sandbox();
    const file = join(box.project, ".lemon", "mcp.json");
    const r = await box.cli(["mcp", "add", "h", "--http", "https://h.example/mcp", "--header", "a\r\nX-Injected: 1"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("header names must be RFC 9110 tokens");
    expect(r.stderr).not.toContain("X-Injected");
    const r2 = await box.cli([
      "mcp",
      "add",
      "h",
      "--http",
      "https://h.example/mcp",
      "--header",
      "X-Team: a\r\nX-Injected: 1",
    ]);
    expect(r2.code).toBe(2);
    expect(r2.stderr).toContain("header values must not contain CR, LF or NUL");
    const r3 = await box.cli(["mcp", "add", "s", "--stdio", "x", "--env", "A B=1"]);
    expect(r3.code).toBe(2);
    expect(r3.stderr).toContain("env names must match");
    expect(existsSync(file)).toBe(false);

    const api = mcpConfig({ cwd: box.project, env: box.env });
    await expect(api.add({ ...S, env: { A: "1\0" } })).rejects.toMatchObject({ code: "INVALID_PARAMS" });
    expect(validate([{ ...H, headers: { "X\nY": "1" } }])).toEqual({
      ok: false,
      errors: [{ index: 0, name: "h", message: "header names must be RFC 9110 tokens" }],
    });
    expect(existsSync(file)).toBe(false);
  });

  test("discovery skips such entries from lemon files and imports without claiming the name", async () => {
    await using box = await sandbox();
    await box.write(
      join(box.project, ".lemon", "mcp.json"),
      JSON.stringify({ servers: [{ ...H, headers: { "X-A": "1\r\nX-Injected: 2" } }] }),
    );
    await box.write(
      join(box.project, ".cursor", "mcp.json"),
      JSON.stringify({
        mcpServers: {
          h: { url: "https://h.example/mcp", headers: { "X-B\r\nX-Injected": "2" } },
          e: { command: "x", env: { "B-C": "1" } },
        },
      }),
    );
    await box.write(
      join(box.project, ".mcp.json"),
      JSON.stringify({ mcpServers: { h: { url: "https://fallback.example/mcp" } } }),
    );
    const set = await effectiveServers(ctxFor(box), {}, "project");
    expect(set.servers.map((s) => [s.name, s.source])).toEqual([["h", "mcp-json:project"]]);
    expect(set.diagnostics.map((d) => `${d.path?.replace(box.project, "C")}: ${d.message}`)).toEqual([
      "C/.lemon/mcp.json: servers[0] 'h': header values must not contain CR, LF or NUL",
      "C/.cursor/mcp.json: servers[0] 'h': header names must be RFC 9110 tokens",
      "C/.cursor/mcp.json: servers[1] 'e': env names must match ^[A-Za-z_][A-Za-z0-9_]*$",
    ]);
  });

  test("a Codex header read from the environment with a line break is refused", async () => {
    await using box = await sandbox();
    await box.write(
      join(box.project, ".codex", "config.toml"),
      '[mcp_servers.c]\nurl = "https://c.example/mcp"\nenv_http_headers = { "X-Key" = "KEY_ENV" }\n',
    );
    const set = await effectiveServers(ctxFor(box, { KEY_ENV: "v\r\nX-Injected: 1" }), {}, "project");
    expect(set.servers).toEqual([]);
    expect(set.diagnostics.map((d) => d.message)).toEqual([
      "servers[0] 'c': header values must not contain CR, LF or NUL",
    ]);
  });
});
