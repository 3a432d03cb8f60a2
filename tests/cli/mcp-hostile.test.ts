// `lemon mcp status|test|call|list` against a hostile stdio server (mcp.md §6.1, §13; cli.md
// §3.5–§3.7): what it sends reaches JSON and the terminal as clean, short text; a failed
// listing is not a connection failure; a failed connect still shows stderr with --verbose.
import { describe, expect, test } from "bun:test";
import { join, resolve } from "node:path";
import { sandbox } from "../support/sandbox.ts";

const HOSTILE = resolve(import.meta.dir, "../fixtures/mcp-servers/hostile.ts");
const entry = (name: string, mode: string, extra: Record<string, unknown> = {}) => ({
  name,
  command: process.execPath,
  args: [HOSTILE, mode],
  ...extra,
});

type Box = Awaited<ReturnType<typeof sandbox>>;
const servers = (box: Box, list: unknown[]) =>
  box.write(join(box.agentDir, "mcp.json"), JSON.stringify({ servers: list }));

describe("mcp status against hostile servers", () => {
  test("server_info is clean and capped in JSON; a failed listing is `initialize failed`; a cut listing is a diagnostic", async () => {
    await using box = await sandbox();
    await servers(box, [
      entry("ansi", "ansiinfo"),
      entry("huge", "hugeinfo"),
      entry("lerr", "listerr"),
      entry("many", "many"),
    ]);
    const r = await box.cli(["mcp", "status", "--json"]);
    expect(r.stdout.length).toBeLessThan(64 * 1024);
    expect(r.stdout).not.toMatch(/\\u001b|\\u202e|\u001b|\u202e/i);
    const doc = r.json() as {
      servers: Record<
        string,
        { server_info: { name: string; version: string } | null; state: string; last_error: string | null }
      >;
      diagnostics: { code: string; source?: string; message: string }[];
    };
    expect(doc.servers.ansi?.server_info).toEqual({ name: "srvRED", version: "1 2" });
    expect(doc.servers.huge?.server_info?.name.length).toBeLessThanOrEqual(256);
    expect(doc.servers.lerr).toMatchObject({ state: "error", last_error: "initialize failed" });
    expect(doc.diagnostics).toContainEqual(expect.objectContaining({ code: "truncated", level: "warn" }));
    expect(doc.diagnostics.find((d) => d.code === "truncated")?.message).toContain("'many'");
  }, 60_000);

  test("mcp status and mcp list --all say the same thing when nothing is configured", async () => {
    await using box = await sandbox();
    const st = await box.cli(["mcp", "status"]);
    const all = await box.cli(["mcp", "list", "--all"]);
    expect(st.code).toBe(0);
    expect(all.code).toBe(0);
    expect((st.stdout + st.stderr).trim()).toBe("no MCP servers configured");
    expect((all.stdout + all.stderr).trim()).toBe("no MCP servers configured");
  }, 30_000);
});

describe("diagnostics in JSON", () => {
  test("a foreign key with ESC reaches status and list --all JSON as one clean line", async () => {
    await using box = await sandbox();
    await box.write(
      join(box.project, ".cursor", "mcp.json"),
      JSON.stringify({ mcpServers: { "ok\u001b[31m": { command: "x", envFile: ".nope.env" } } }),
    );
    for (const argv of [
      ["mcp", "list", "--all", "--json"],
      ["mcp", "status", "--json"],
    ]) {
      const r = await box.cli(argv, { cwd: box.project });
      expect(r.stdout).toContain("envFile not found");
      expect(r.stdout).not.toMatch(/\\u001b|\u001b/i);
    }
  }, 30_000);
});

describe("mcp test --verbose when the connection fails", () => {
  test("a handshake that hangs and a server that exits still show their stderr", async () => {
    await using box = await sandbox();
    await servers(box, [entry("hang", "stderr-hang", { ready_timeout_ms: 800 }), entry("dies", "stderr-exit")]);
    const hang = await box.cli(["mcp", "test", "hang", "--global", "--verbose"]);
    expect(hang.stdout).toStartWith("hang: failed\n");
    expect(hang.stdout).toContain("  server stderr:\n    hostile: stuck before the handshake\n");
    const dies = await box.cli(["mcp", "test", "dies", "--global", "--verbose"]);
    expect(dies.stdout).toStartWith("dies: failed\n");
    expect(dies.stdout).toContain("    hostile: fatal config error\n");
    const json = await box.cli(["mcp", "test", "dies", "--global", "--verbose", "--json"]);
    expect(json.stdout + json.stderr).not.toContain("fatal config");
  }, 60_000);

  test("mcp test shows a clean server line", async () => {
    await using box = await sandbox();
    await servers(box, [entry("ansi", "ansiinfo")]);
    const r = await box.cli(["mcp", "test", "ansi", "--global", "--json"]);
    expect(r.stdout).not.toMatch(/\\u001b|\\u202e|\\n2/i);
    expect(r.json()).toMatchObject({ server_info: { name: "srvRED", version: "1 2" } });
  }, 30_000);
});

describe("mcp call human output", () => {
  test("text blocks lose ESC sequences and bidi overrides, keep newlines", async () => {
    await using box = await sandbox();
    await servers(box, [entry("ok", "ok")]);
    const text = "out \u001b[2J cleared \u202eRTL\u2066x\u2069\nline2\rfake";
    const r = await box.cli(["mcp", "call", "ok", "echo", JSON.stringify({ text }), "--global"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("out  cleared RTLx\nline2fake\n");
  }, 30_000);
});
