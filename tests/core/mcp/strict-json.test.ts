// No lost data on rewrite (issue 9 §2.7, mcp.md §2.3, §4.1): a duplicate key or a number that
// does not round-trip makes a file invalid; reads report it, writes refuse it, and reads and
// writes share one size rule. Imported files with a duplicate key are skipped, naming file and key.
import { describe, expect, test } from "bun:test";
import { readFileSync, truncateSync } from "node:fs";
import { join } from "node:path";
import { effectiveServers, mcpConfig } from "../../../src/core/mcp/index.ts";
import { sandbox, type Sandbox } from "../../support/sandbox.ts";
import { ctxFor } from "./fixtures.ts";

const SECRET = "sk-live-do-not-print";

/** Every mutation of the CLI's `mcp` group against one file; each must refuse and leave it as it was. */
async function expectRefused(box: Sandbox, file: string, reason: string, global = false): Promise<void> {
  const before = readFileSync(file);
  const api = mcpConfig({ cwd: box.project, env: box.env });
  const o = { global };
  const attempts: [string, () => Promise<unknown>][] = [
    ["add", () => api.add({ name: "new", command: "x" }, o)],
    ["add --replace", () => api.add({ name: "a", command: "x" }, { ...o, replace: true })],
    ["remove", () => api.remove("a", o)],
    ["enable", () => api.enable("a", o)],
    ["disable", () => api.disable("a", o)],
    ["enable --force", () => api.enable("a", { ...o, force: true })],
    ["disable --force", () => api.disable("zz", { ...o, force: true })],
  ];
  for (const [what, run] of attempts) {
    const err = await run().then(
      () => null,
      (e: unknown) => e,
    );
    expect([what, err]).toMatchObject([
      what,
      { code: "CONFLICT", message: `refusing to overwrite invalid ${file}: ${reason}` },
    ]);
  }
  expect(readFileSync(file).equals(before)).toBe(true);
}

describe("lemon's own mcp.json", () => {
  test('"servers" twice: the read reports it, every mutation refuses to rewrite', async () => {
    await using box = await sandbox();
    const file = await box.write(
      join(box.project, ".lemon", "mcp.json"),
      `{"servers": [{"name": "a", "command": "first"}],\n "servers": [{"name": "b", "command": "${SECRET}"}]}`,
    );
    const set = await effectiveServers(ctxFor(box), {}, "project");
    expect(set.servers).toEqual([]);
    expect(set.diagnostics.map((d) => [d.level, d.code, d.path, d.message])).toEqual([
      ["error", "duplicate_key", file, "duplicate key 'servers'"],
    ]);
    const listed = await mcpConfig({ cwd: box.project, env: box.env }).list();
    expect(listed.diagnostics.map((d) => d.message)).toEqual(["duplicate key 'servers'"]);
    expect(JSON.stringify(listed)).not.toContain(SECRET);
    await expectRefused(box, file, "duplicate key 'servers'");
  });

  test("a duplicate key inside an entry, in the global file", async () => {
    await using box = await sandbox();
    const file = await box.write(
      join(box.agentDir, "mcp.json"),
      '{"servers": [{"name": "a", "command": "x", "command": "y"}]}',
    );
    const set = await effectiveServers(ctxFor(box), {}, "project");
    expect(set.diagnostics.map((d) => d.message)).toEqual(["duplicate key 'command'"]);
    await expectRefused(box, file, "duplicate key 'command'", true);
  });

  test("1e400 (which would be written back as null) makes the file invalid", async () => {
    await using box = await sandbox();
    const file = await box.write(
      join(box.project, ".lemon", "mcp.json"),
      '{"servers": [{"name": "a", "command": "x", "x-limit": 1e400}]}',
    );
    const set = await effectiveServers(ctxFor(box), {}, "project");
    expect(set.diagnostics.map((d) => [d.code, d.message])).toEqual([
      ["parse_error", "number 1e400 does not round-trip"],
    ]);
    await expectRefused(box, file, "number 1e400 does not round-trip");
  });

  test("one size rule: a file too big to read is too big to rewrite", async () => {
    await using box = await sandbox();
    const body = JSON.stringify({ servers: [{ name: "a", command: "x" }], pad: "" });
    // 20 MB: the read refuses it by its size, and so must every write.
    const file = await box.write(
      join(box.project, ".lemon", "mcp.json"),
      body.slice(0, -2) + `${" ".repeat(20_000_000)}""}`,
    );
    const set = await effectiveServers(ctxFor(box), {}, "project");
    expect(set.diagnostics.map((d) => [d.code, d.message])).toEqual([["read_error", "file exceeds 1048576 bytes"]]);
    await expectRefused(box, file, "file exceeds 1048576 bytes");
  });

  test("a file at the cap is still read and rewritten", async () => {
    await using box = await sandbox();
    const head = '{"servers": [{"name": "a", "command": "x"}], "pad": "';
    const pad = "x".repeat(1024 * 1024 - head.length - 2);
    const file = await box.write(join(box.project, ".lemon", "mcp.json"), `${head}${pad}"}`);
    expect(readFileSync(file).length).toBe(1024 * 1024);
    const api = mcpConfig({ cwd: box.project, env: box.env });
    expect((await api.list()).servers.map((s) => s.name)).toEqual(["a"]);
    await api.disable("a");
    expect(JSON.parse(readFileSync(file, "utf8")).disabled_servers).toEqual(["a"]);
  });

  test("LEMON_MCP_SERVERS with a duplicate key is skipped with a diagnostic", async () => {
    await using box = await sandbox();
    const env = { LEMON_MCP_SERVERS: `[{"name": "e", "command": "x", "env": {"K": "1", "K": "${SECRET}"}}]` };
    const set = await effectiveServers(ctxFor(box, env), {}, "project");
    expect(set.servers).toEqual([]);
    expect(set.diagnostics.map((d) => [d.code, d.message])).toEqual([
      ["parse_error", "LEMON_MCP_SERVERS: duplicate key 'K'"],
    ]);
  });
});

describe("imported files with a duplicate key are skipped, naming file and key", () => {
  const dupMap = (key: string) =>
    `{"${key}": {"one": {"command": "x", "args": ["${SECRET}"]}}, "${key}": {"two": {"command": "y"}}}`;
  const cases: [string, string, string, string][] = [
    ["omp", ".omp/mcp.json", dupMap("mcpServers"), "mcpServers"],
    ["claude", ".claude/.mcp.json", dupMap("mcpServers"), "mcpServers"],
    [
      "codex",
      ".codex/config.toml",
      `[mcp_servers.one]\ncommand = "x"\nargs = ["${SECRET}"]\ncommand = "y"\n`,
      "command",
    ],
    ["gemini", ".gemini/settings.json", dupMap("mcpServers"), "mcpServers"],
    [
      "opencode",
      "opencode.jsonc",
      `{"mcp": {"one": {"type": "local", "command": ["x"], /* c */ "command": ["${SECRET}"],},},}`,
      "command",
    ],
    ["cursor", ".cursor/mcp.json", `{"mcpServers": {"one": {"command": "x"}, "one": {"command": "${SECRET}"}}}`, "one"],
    ["windsurf", ".windsurf/mcp_config.json", dupMap("mcpServers"), "mcpServers"],
    [
      "vscode",
      ".vscode/mcp.json",
      `// jsonc\n{"servers": {"one": {"command": "x", "env": {"A": "1", "A": "${SECRET}"}}}}`,
      "A",
    ],
    ["mcp-json", ".mcp.json", dupMap("mcpServers"), "mcpServers"],
  ];
  test.each(cases)("%s project file %s", async (provider, rel, text, key) => {
    await using box = await sandbox();
    const file = await box.write(join(box.project, rel), text);
    const set = await effectiveServers(ctxFor(box), {}, "project");
    expect(set.servers).toEqual([]);
    expect(set.diagnostics.map((d) => [d.level, d.code, d.source, d.path, d.message])).toEqual([
      ["warn", "duplicate_key", `${provider}:project`, file, `duplicate key '${key}'`],
    ]);
    expect(JSON.stringify(set.diagnostics)).not.toContain(SECRET);
  });

  test("a big ~/.claude.json with a duplicate key deep in its history is skipped; the rest still load", async () => {
    await using box = await sandbox();
    const history = JSON.stringify({ projects: { "/elsewhere": { history: ["x".repeat(2_000_000)] } } }).slice(1, -1);
    const _file = await box.write(
      join(box.home, ".claude.json"),
      `{${history}, "mcpServers": {"u": {"command": "x"}}, "tips": {"n": 1, "n": 2}}`,
    );
    await box.write(join(box.project, ".cursor", "mcp.json"), '{"mcpServers": {"ok": {"command": "x"}}}');
    const set = await effectiveServers(ctxFor(box, { LEMON_MCP_EXTERNAL_USER_DISCOVERY: "1" }), {}, "project");
    expect(set.servers.map((s) => s.name)).toEqual(["ok"]);
    expect(set.diagnostics.map((d) => [d.code, d.message])).toEqual([["duplicate_key", "duplicate key 'n'"]]);
  });

  test("a sparse 64 MiB + 1 import is refused by size before it is read", async () => {
    await using box = await sandbox();
    const file = await box.write(join(box.project, ".mcp.json"), "");
    truncateSync(file, 64 * 1024 * 1024 + 1);
    const set = await effectiveServers(ctxFor(box), {}, "project");
    expect(set.diagnostics.map((d) => d.code)).toEqual(["read_error"]);
  });
});
