// A FIFO, device or socket in place of any MCP configuration file (issue 9, mcp.md §4.1): never
// opened blocking, never read, skipped with a diagnostic naming the file; the rest still loads.
import { describe, expect, test } from "bun:test";
import { mkdirSync, symlinkSync } from "node:fs";
import { dirname, join } from "node:path";
import { effectiveServers, mcpConfig } from "../../../src/core/mcp/index.ts";
import { sandbox, type Sandbox } from "../../support/sandbox.ts";
import { ctxFor } from "./fixtures.ts";

const posix = process.platform !== "win32";

function fifo(path: string): string {
  mkdirSync(dirname(path), { recursive: true });
  expect(Bun.spawnSync(["mkfifo", path]).exitCode).toBe(0);
  return path;
}

/** Every project file of mcp.md §2.1 and §4.1, relative to C. */
const PROJECT_FILES = [
  ".lemon/mcp.json",
  ".omp/mcp.json",
  ".omp/.mcp.json",
  ".claude/.mcp.json",
  ".codex/config.toml",
  ".gemini/settings.json",
  "opencode.json",
  "opencode.jsonc",
  ".opencode/opencode.json",
  ".cursor/mcp.json",
  ".windsurf/mcp_config.json",
  ".vscode/mcp.json",
  "mcp.json",
  ".mcp.json",
];

const notRegular = (box: Sandbox, diags: { code: string; path?: string; message: string }[]) =>
  diags
    .filter((d) => d.message === "not a regular file")
    .map((d) => [d.code, d.path?.slice(box.project.length + 1)])
    .sort();

describe.skipIf(!posix)("special files in place of MCP configuration", () => {
  test("a FIFO as every project file: each skipped with a diagnostic, a regular file still read", async () => {
    await using box = await sandbox();
    for (const f of PROJECT_FILES) fifo(join(box.project, f));
    await box.write(join(box.project, ".claude", "mcp.json"), JSON.stringify({ mcpServers: { ok: { command: "x" } } }));
    const set = await effectiveServers(ctxFor(box), {}, "project");
    expect(notRegular(box, set.diagnostics)).toEqual(PROJECT_FILES.map((f) => ["read_error", f]).sort());
    // `.claude/.mcp.json` exists (as a FIFO), so Claude's fallback file is not consulted.
    expect(set.servers).toEqual([]);
    // The file listing of the CLI's `mcp list` reports its own file the same way.
    const listed = await mcpConfig({ cwd: box.project, env: box.env }).list();
    expect(listed.diagnostics.map((d) => [d.level, d.code, d.path, d.message])).toEqual([
      ["error", "read_error", join(box.project, ".lemon", "mcp.json"), "not a regular file"],
    ]);
  });

  test("a FIFO as the global file and as config.toml; a device through a symlink", async () => {
    await using box = await sandbox();
    fifo(join(box.agentDir, "mcp.json"));
    fifo(join(box.agentDir, "config.toml"));
    symlinkSync("/dev/urandom", join(box.project, ".mcp.json"));
    const set = await effectiveServers(ctxFor(box), {}, "project");
    const got = set.diagnostics.map((d) => [d.code, d.path, d.message]);
    expect(got).toContainEqual(["read_error", join(box.agentDir, "mcp.json"), "not a regular file"]);
    expect(got).toContainEqual(["read_error", join(box.agentDir, "config.toml"), "not a regular file"]);
    expect(got).toContainEqual(["read_error", join(box.project, ".mcp.json"), "not a regular file"]);
  });

  test("a directory named like a config file still reads as absent", async () => {
    await using box = await sandbox();
    mkdirSync(join(box.project, ".mcp.json"), { recursive: true });
    const set = await effectiveServers(ctxFor(box), {}, "project");
    expect(set.diagnostics).toEqual([]);
  });

  test("a Cursor envFile and an opencode {file:…} that are FIFOs", async () => {
    await using box = await sandbox();
    fifo(join(box.project, "env.fifo"));
    fifo(join(box.project, "token.fifo"));
    const cursorFile = await box.write(
      join(box.project, ".cursor", "mcp.json"),
      JSON.stringify({ mcpServers: { cur: { command: "x", envFile: "env.fifo", env: { A: "1" } } } }),
    );
    const ocFile = await box.write(
      join(box.project, "opencode.json"),
      JSON.stringify({ mcp: { oc: { type: "remote", url: "https://h.example/{file:token.fifo}" } } }),
    );
    const set = await effectiveServers(ctxFor(box), {}, "project");
    const got = set.diagnostics.map((d) => [d.code, d.path, d.message]);
    expect(got).toContainEqual(["env_file", cursorFile, "server 'cur': envFile: not a regular file"]);
    expect(got).toContainEqual(["read_error", ocFile, "included file: not a regular file"]);
    // Both entries still import, without what the special file would have given.
    const byName = Object.fromEntries(set.servers.map((s) => [s.name, s.server.entry]));
    expect(byName.cur?.env).toEqual({ A: "1" });
    expect(byName.oc?.url).toBe("https://h.example/");
  });
});
