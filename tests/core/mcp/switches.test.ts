// Master switches and the contract's edges for imports (mcp.md §1, §4, §4.2; issue 9 §4).
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { createContext } from "../../../src/core/context.ts";
import { effectiveServers } from "../../../src/core/mcp/index.ts";
import { sandbox, type Sandbox } from "../../support/sandbox.ts";
import { ctxFor } from "./fixtures.ts";

const toml = (box: Sandbox, body: string) => box.write(join(box.agentDir, "config.toml"), `[mcp]\n${body}\n`);
const list = async (box: Sandbox, env: Record<string, string> = {}) =>
  (await effectiveServers(ctxFor(box, env), {}, "project")).servers.map((s) => [
    s.name,
    s.source,
    s.enabled,
    s.disabled_by,
  ]);

describe("env wins over config.toml in both directions (mcp.md §1)", () => {
  test("LEMON_MCP_EXTERNAL_DISCOVERY turns imports back on over false, and off over true", async () => {
    await using box = await sandbox();
    await box.write(
      join(box.project, ".cursor", "mcp.json"),
      JSON.stringify({ mcpServers: { cur: { command: "x" } } }),
    );
    await toml(box, "external_discovery = false");
    expect(await list(box)).toEqual([]);
    expect(await list(box, { LEMON_MCP_EXTERNAL_DISCOVERY: "1" })).toEqual([["cur", "cursor:project", true, null]]);
    expect(await list(box, { LEMON_MCP_EXTERNAL_DISCOVERY: "Yes" })).toEqual([["cur", "cursor:project", true, null]]);
    await toml(box, "external_discovery = true");
    expect(await list(box, { LEMON_MCP_EXTERNAL_DISCOVERY: "0" })).toEqual([]);
    expect(await list(box, { LEMON_MCP_EXTERNAL_DISCOVERY: "FALSE" })).toEqual([]);
    // An unrecognised value is no decision: the file's value holds.
    expect(await list(box, { LEMON_MCP_EXTERNAL_DISCOVERY: "maybe" })).toEqual([["cur", "cursor:project", true, null]]);
    // Explicit module options win over env.
    const opt = await effectiveServers(
      ctxFor(box, { LEMON_MCP_EXTERNAL_DISCOVERY: "0" }),
      { config: { external_discovery: true } },
      "project",
    );
    expect(opt.servers.map((s) => s.name)).toEqual(["cur"]);
  });

  test("LEMON_MCP_EXTERNAL_USER_DISCOVERY=0 over true, LEMON_MCP_DISABLED=0 over disabled = true", async () => {
    await using box = await sandbox();
    await box.write(join(box.home, ".cursor", "mcp.json"), JSON.stringify({ mcpServers: { u: { command: "x" } } }));
    await toml(box, "external_user_discovery = true");
    expect(await list(box)).toEqual([["u", "cursor:user", true, null]]);
    expect(await list(box, { LEMON_MCP_EXTERNAL_USER_DISCOVERY: "no" })).toEqual([]);

    await toml(box, "disabled = true\nexternal_user_discovery = true");
    expect(await list(box)).toEqual([["u", "cursor:user", false, "mcp disabled"]]);
    expect(await list(box, { LEMON_MCP_DISABLED: "0" })).toEqual([["u", "cursor:user", true, null]]);
    await toml(box, "disabled = false\nexternal_user_discovery = true");
    expect(await list(box, { LEMON_MCP_DISABLED: "true" })).toEqual([["u", "cursor:user", false, "mcp disabled"]]);
  });
});

describe("a skill-root override isolates user-level imports (mcp.md §4)", () => {
  const ompUser = (box: Sandbox, home = box.home) =>
    box.write(
      join(home, ".omp", "agent", "mcp.json"),
      JSON.stringify({ mcpServers: { "omp-user": { command: "x" } } }),
    );

  test.each([
    ["LEMON_OMP_SKILLS_DIR"],
    ["LEMON_HARNESS_SKILLS_DIR"],
    ["LEMON_CLAUDE_SKILLS_DIR"],
    ["LEMON_CODEX_SKILLS_DIR"],
  ])("%s: no user file is read, omp's included, unless discovery_home is configured", async (name) => {
    await using box = await sandbox();
    await ompUser(box);
    await box.write(
      join(box.home, ".cursor", "mcp.json"),
      JSON.stringify({ mcpServers: { "cursor-user": { command: "x" } } }),
    );
    const on = { LEMON_MCP_EXTERNAL_USER_DISCOVERY: "1" };
    expect((await list(box, on)).map((s) => s[0])).toEqual(["omp-user", "cursor-user"]);
    const override = { ...on, [name]: join(box.root, "skills") };
    expect(await list(box, override)).toEqual([]);
    // Even an empty override (which removes that skill root) isolates.
    expect(await list(box, { ...on, [name]: "" })).toEqual([]);

    const dh = join(box.root, "dh");
    await ompUser(box, dh);
    expect(await list(box, { ...override, LEMON_MCP_DISCOVERY_HOME: dh })).toEqual([
      ["omp-user", "omp:user", true, null],
    ]);
    await toml(box, `discovery_home = ${JSON.stringify(dh)}`);
    expect(await list(box, override)).toEqual([["omp-user", "omp:user", true, null]]);
  });

  test("the module's skillRoots option isolates too; an option left undefined does not", async () => {
    await using box = await sandbox();
    await ompUser(box);
    const ctx = (skillRoots: Record<string, string | null | undefined>) =>
      createContext({ cwd: box.project, env: box.env, skillRoots });
    expect((await effectiveServers(ctx({ omp: join(box.root, "s") }), {}, "project")).servers).toEqual([]);
    expect((await effectiveServers(ctx({ claude: null }), {}, "project")).servers).toEqual([]);
    expect((await effectiveServers(ctx({ codex: undefined }), {}, "project")).servers.map((s) => s.name)).toEqual([
      "omp-user",
    ]);
  });
});

describe("foreign types and timeouts (mcp.md §4.2)", () => {
  test("type spellings compare case-insensitively without - and _; others skip the entry", async () => {
    await using box = await sandbox();
    const servers = {
      a: { type: "streamablehttp", url: "https://a.example/mcp" },
      b: { type: "Streamable_HTTP", url: "https://b.example/mcp" },
      c: { type: "streamableHttp", url: "https://c.example/mcp" },
      d: { type: "SSE", url: "https://d.example/sse" },
      e: { type: "STDIO", command: "x" },
      f: { type: "HTTP", url: "https://f.example/mcp" },
      g: { type: "websocket", url: "wss://g.example" },
    };
    await box.write(join(box.project, ".cursor", "mcp.json"), JSON.stringify({ mcpServers: servers }));
    const set = await effectiveServers(ctxFor(box), {}, "project");
    expect(set.servers.map((s) => [s.name, s.type])).toEqual([
      ["a", "http"],
      ["b", "http"],
      ["c", "http"],
      ["d", "sse"],
      ["e", "stdio"],
      ["f", "http"],
    ]);
    expect(set.diagnostics.map((d) => `${d.path?.replace(box.project, "C")}: ${d.message}`)).toEqual([
      "C/.cursor/mcp.json: servers[6] 'g': type must be stdio, http, or sse",
    ]);
  });

  test("an omp timeout above the cap is clamped with a warning; lemon's own files still reject it", async () => {
    await using box = await sandbox();
    const omp = join(box.project, ".omp", "mcp.json");
    await box.write(
      omp,
      JSON.stringify({
        mcpServers: { slow: { command: "x", timeout: 900000 }, str: { command: "x", timeout: "400000" } },
      }),
    );
    await box.write(
      join(box.project, ".codex", "config.toml"),
      '[mcp_servers.cx]\ncommand = "x"\nstartup_timeout_sec = 900\ntool_timeout_sec = 30\n',
    );
    const lemon = join(box.project, ".lemon", "mcp.json");
    await box.write(lemon, JSON.stringify({ servers: [{ name: "own", command: "x", timeout_ms: 900000 }] }));
    const set = await effectiveServers(ctxFor(box), {}, "project");
    const by = Object.fromEntries(set.servers.map((s) => [s.name, s]));
    expect(Object.keys(by)).toEqual(["slow", "str", "cx"]);
    expect(by.slow!.server.entry.timeout_ms).toBe(300000);
    expect(by.slow!.warnings).toEqual(["timeout_ms clamped to 300000 ms"]);
    expect(by.str!.server.entry.timeout_ms).toBe(300000);
    expect(by.cx!.server.entry.ready_timeout_ms).toBe(300000);
    expect(by.cx!.server.entry.tool_timeout_ms).toBe(30000);
    expect(by.cx!.warnings).toEqual(["ready_timeout_ms clamped to 300000 ms"]);
    expect(set.diagnostics.map((d) => [d.level, d.code, `${d.path?.replace(box.project, "C")}: ${d.message}`])).toEqual(
      [
        ["warn", "invalid_entry", "C/.lemon/mcp.json: servers[0] 'own': timeout_ms must not exceed 300000"],
        ["warn", "clamped", "C/.omp/mcp.json: servers[0] 'slow': timeout_ms clamped to 300000 ms"],
        ["warn", "clamped", "C/.omp/mcp.json: servers[1] 'str': timeout_ms clamped to 300000 ms"],
        ["warn", "clamped", "C/.codex/config.toml: servers[0] 'cx': ready_timeout_ms clamped to 300000 ms"],
      ],
    );
  });
});
