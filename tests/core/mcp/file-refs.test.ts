// Files a project-level config may make lemon read (issue 9, mcp.md §4.3): opencode `{file:…}`
// and Cursor / VS Code / Windsurf `envFile` only inside the project directory C, by real path;
// anything else is never read and leaves a diagnostic. User-level files read where they point.
import { describe, expect, test } from "bun:test";
import { symlinkSync } from "node:fs";
import { join } from "node:path";
import { effectiveServers, mcpConfig } from "../../../src/core/mcp/index.ts";
import { sandbox, type Sandbox } from "../../support/sandbox.ts";
import { ctxFor } from "./fixtures.ts";

const STOLEN = "stolen-token-value";

async function outsideSecret(box: Sandbox): Promise<string> {
  return box.write(join(box.root, "outside", "token"), `${STOLEN}\n`);
}

describe("opencode {file:…}", () => {
  test("a project file cannot read outside C: absolute, ../ and a symlink out are all refused", async () => {
    await using box = await sandbox();
    const secret = await outsideSecret(box);
    symlinkSync(secret, join(box.project, "link-out"));
    await box.write(join(box.project, "inside.txt"), "in-value\n");
    const file = await box.write(
      join(box.project, "opencode.jsonc"),
      JSON.stringify({
        mcp: {
          abs: { type: "remote", url: `https://h.example/{file:${secret}}` },
          rel: { type: "remote", url: "https://h.example/{file:../outside/token}" },
          link: { type: "remote", url: "https://h.example/{file:link-out}" },
          ok: { type: "remote", url: "https://h.example/{file:inside.txt}" },
        },
      }),
    );
    const set = await effectiveServers(ctxFor(box), {}, "project");
    const urls = Object.fromEntries(set.servers.map((s) => [s.name, s.server.entry.url]));
    expect(urls.ok).toBe("https://h.example/in-value");
    // Refused references stay as written (never substituted, never read).
    expect(urls.abs).toBe(`https://h.example/{file:${secret}}`);
    expect(urls.rel).toBe("https://h.example/{file:../outside/token}");
    expect(urls.link).toBe("https://h.example/{file:link-out}");
    const refused = set.diagnostics.filter((d) => d.code === "file_reference");
    expect(refused.map((d) => [d.path, d.source, d.message])).toEqual(
      Array(3).fill([file, "opencode:project", "included file outside the project directory, not read"]),
    );
    expect(JSON.stringify(set)).not.toContain(STOLEN);
    const api = mcpConfig({ cwd: box.project, env: box.env });
    for (const name of ["abs", "rel", "link"]) {
      const got = await api.get(name);
      expect(JSON.stringify(got)).not.toContain(STOLEN);
      // `get` says why the URL still shows the placeholder.
      expect(got.diagnostics.map((d) => d.code)).toEqual(["file_reference", "file_reference", "file_reference"]);
    }
  });

  test("a server name made of an outside file is never read either", async () => {
    await using box = await sandbox();
    const secret = await outsideSecret(box);
    const text = `{"mcp": {"{file:${secret}}": {"type": "local", "command": "x"}}}`;
    await box.write(join(box.project, "opencode.json"), text);
    const set = await effectiveServers(ctxFor(box), {}, "project");
    expect(set.servers).toEqual([]);
    expect(JSON.stringify(set)).not.toContain(STOLEN);
    expect(set.diagnostics.map((d) => d.code).sort()).toEqual(["file_reference", "invalid_name"]);
  });

  test("a user-level file reads under the user's home as before", async () => {
    await using box = await sandbox();
    await box.write(join(box.home, ".secrets", "oc"), "user-value\n");
    await box.write(
      join(box.home, ".config", "opencode", "opencode.json"),
      JSON.stringify({ mcp: { mine: { type: "remote", url: "https://h.example/{file:~/.secrets/oc}" } } }),
    );
    const set = await effectiveServers(ctxFor(box, { LEMON_MCP_EXTERNAL_USER_DISCOVERY: "1" }), {}, "project");
    expect(set.servers.map((s) => [s.name, s.source, s.server.entry.url])).toEqual([
      ["mine", "opencode:user", "https://h.example/user-value"],
    ]);
    expect(set.diagnostics).toEqual([]);
  });
});

describe("envFile of a project file", () => {
  test("Cursor and VS Code: outside C refused with a diagnostic, inside C read", async () => {
    await using box = await sandbox();
    const secret = await box.write(join(box.root, "outside", ".env"), `TOKEN=${STOLEN}\n`);
    await box.write(join(box.project, ".env"), "MODE=dev\n");
    const cursor = await box.write(
      join(box.project, ".cursor", "mcp.json"),
      JSON.stringify({
        mcpServers: {
          out: { command: "x", envFile: secret, env: { A: "1" } },
          up: { command: "x", envFile: "../outside/.env" },
          in: { command: "x", envFile: "${workspaceFolder}/.env" },
        },
      }),
    );
    const vscode = await box.write(
      join(box.project, ".vscode", "mcp.json"),
      JSON.stringify({ servers: { vs: { command: "x", envFile: secret } } }),
    );
    const set = await effectiveServers(ctxFor(box), {}, "project");
    const env = Object.fromEntries(set.servers.map((s) => [s.name, s.server.entry.env]));
    expect(env).toEqual({ out: { A: "1" }, up: undefined, in: { MODE: "dev" }, vs: undefined });
    expect(set.diagnostics.map((d) => [d.code, d.path, d.message])).toEqual([
      ["env_file", cursor, "server 'out': envFile outside the project directory, not read"],
      ["env_file", cursor, "server 'up': envFile outside the project directory, not read"],
      ["env_file", vscode, "server 'vs': envFile outside the project directory, not read"],
    ]);
    expect(JSON.stringify(set)).not.toContain(STOLEN);
  });

  test("a user-level Cursor file keeps reading its envFile", async () => {
    await using box = await sandbox();
    const envFile = await box.write(join(box.home, ".cursor", "cursor.env"), "K=v\n");
    await box.write(
      join(box.home, ".cursor", "mcp.json"),
      JSON.stringify({ mcpServers: { u: { command: "x", envFile } } }),
    );
    const set = await effectiveServers(ctxFor(box, { LEMON_MCP_EXTERNAL_USER_DISCOVERY: "1" }), {}, "project");
    expect(set.servers.map((s) => [s.name, s.server.entry.env])).toEqual([["u", { K: "v" }]]);
  });
});
