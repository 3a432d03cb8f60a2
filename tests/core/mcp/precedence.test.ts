import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { createContext } from "../../../src/core/context.ts";
import { effectiveServers, mcpConfig } from "../../../src/core/mcp/index.ts";
import { firstClaimWins } from "../../../src/core/merge.ts";
import { sandbox, type Sandbox } from "../../support/sandbox.ts";
import { ctxFor } from "./fixtures.ts";

const lemonProject = (box: Sandbox, doc: unknown) =>
  box.write(join(box.project, ".lemon", "mcp.json"), JSON.stringify(doc));
const lemonGlobal = (box: Sandbox, doc: unknown) => box.write(join(box.agentDir, "mcp.json"), JSON.stringify(doc));
const names = async (box: Sandbox, env: Record<string, string> = {}) =>
  (await effectiveServers(ctxFor(box, env), {}, "project")).servers.map((s) => [
    s.name,
    s.source,
    s.enabled,
    s.disabled_by,
  ]);

describe("merge", () => {
  test("first claim wins, losers are shadowed, keyless items are additive", () => {
    const r = firstClaimWins(["a1", "b1", "x", "a2", "x", "b2"], (s) => (s === "x" ? undefined : s[0]));
    expect(r.map((c) => [c.item, c.shadowed])).toEqual([
      ["a1", ["a2"]],
      ["b1", ["b2"]],
      ["x", []],
      ["x", []],
    ]);
  });
});

describe("sources and precedence (mcp.md §2)", () => {
  test("project, global, env, config.toml, module option, then imports; a disabled entry still claims", async () => {
    await using box = await sandbox();
    await lemonProject(box, {
      servers: [{ name: "a", command: "p", enabled: false }, { command: "/usr/bin/legacy-tool" }],
    });
    await lemonGlobal(box, {
      servers: [{ name: "a", command: "g" }, { name: "b", command: "g" }, { command: "legacy-tool.exe" }],
    });
    await box.write(
      join(box.agentDir, "config.toml"),
      '[mcp]\nexternal_user_discovery = false\n\n[[mcp.servers]]\nname = "c"\nurl = "https://c.example/mcp"\n\n[[mcp.servers]]\nname = "d"\ncommand = "toml"\n',
    );
    await box.write(
      join(box.project, ".cursor", "mcp.json"),
      JSON.stringify({ mcpServers: { a: { command: "i" }, e: { command: "i" } } }),
    );
    const env = {
      LEMON_MCP_SERVERS: JSON.stringify({
        servers: [
          { name: "b", command: "env" },
          { name: "d", command: "env" },
        ],
      }),
    };
    const api = mcpConfig({
      cwd: box.project,
      env: { ...box.env, ...env },
      config: { servers: [{ name: "f", command: "opt" }] },
    });
    const l = await api.list({ all: true });
    expect(l.effective.map((s) => [s.name, s.source, s.enabled, s.disabled_by, s.shadowed])).toEqual([
      ["a", "lemon:project", false, "entry", [{ source: "lemon:global" }, { source: "cursor:project" }]],
      ["legacy_tool#1", "lemon:project", true, null, []],
      ["b", "lemon:global", true, null, [{ source: "lemon:env" }]],
      ["legacy_tool#2", "lemon:global", true, null, []],
      ["d", "lemon:env", true, null, [{ source: "lemon:config" }]],
      ["f", "lemon:config", true, null, []],
      ["c", "lemon:config", true, null, []],
      ["e", "cursor:project", true, null, []],
    ]);
  });

  test("mcpServers in a lemon file is read after servers; a duplicate is reported", async () => {
    await using box = await sandbox();
    await lemonProject(box, {
      servers: [{ name: "x", command: "first" }],
      mcpServers: { x: { command: "second" }, y: { url: "https://y.example" } },
    });
    const set = await effectiveServers(ctxFor(box), {}, "project");
    expect(set.servers.map((s) => [s.name, s.server.entry.command ?? s.server.entry.url])).toEqual([
      ["x", "first"],
      ["y", "https://y.example"],
    ]);
    expect(set.diagnostics.map((d) => [d.code, d.key])).toEqual([["duplicate_name", "x"]]);
  });

  test("enabled_servers / disabled_servers: project decides first, denylist wins in a file, lists beat the entry", async () => {
    await using box = await sandbox();
    await lemonGlobal(box, {
      servers: [
        { name: "g1", command: "x", enabled: false },
        { name: "g2", command: "x" },
        { name: "g3", command: "x" },
      ],
      enabled_servers: ["g1", "g3"],
      disabled_servers: ["g2", "g3", "imp"],
    });
    await lemonProject(box, { servers: [], enabled_servers: ["g2", "imp"], disabled_servers: ["imp"] });
    await box.write(
      join(box.project, ".cursor", "mcp.json"),
      JSON.stringify({ mcpServers: { imp: { command: "x" } } }),
    );
    expect(await names(box)).toEqual([
      ["g1", "lemon:global", true, null],
      ["g2", "lemon:global", true, null],
      ["g3", "lemon:global", false, "lemon:global disabled_servers"],
      ["imp", "cursor:project", false, "lemon:project disabled_servers"],
    ]);
  });

  test("omp disabledServers/enabledServers apply to imported sources only", async () => {
    await using box = await sandbox();
    await box.write(
      join(box.project, ".omp", "mcp.json"),
      JSON.stringify({ disabledServers: ["lem", "imp"], enabledServers: ["off"] }),
    );
    await lemonProject(box, { servers: [{ name: "lem", command: "x" }] });
    await box.write(
      join(box.project, ".cursor", "mcp.json"),
      JSON.stringify({ mcpServers: { imp: { command: "x" }, off: { command: "x", disabled: true } } }),
    );
    expect(await names(box)).toEqual([
      ["lem", "lemon:project", true, null],
      ["imp", "cursor:project", false, "omp disabledServers"],
      ["off", "cursor:project", true, null],
    ]);
  });

  test("top-level enabled: project true overrides global false; master switch beats both", async () => {
    await using box = await sandbox();
    await lemonGlobal(box, { enabled: false, servers: [{ name: "g", command: "x" }] });
    expect(await names(box)).toEqual([["g", "lemon:global", false, "mcp disabled"]]);
    await lemonProject(box, { enabled: true });
    expect(await names(box)).toEqual([["g", "lemon:global", true, null]]);
    const set = await effectiveServers(ctxFor(box, { LEMON_MCP_DISABLED: "TRUE" }), {}, "project");
    expect([set.disabled, set.servers[0]!.disabled_by]).toEqual([true, "mcp disabled"]);
    await box.write(join(box.agentDir, "config.toml"), "[mcp]\ndisabled = true\n");
    expect((await effectiveServers(ctxFor(box), {}, "project")).disabled).toBe(true);
    // An explicit module option wins over config.toml.
    const api = mcpConfig({ cwd: box.project, env: box.env, config: { disabled: false } });
    expect((await api.list({ all: true })).disabled).toBe(false);
  });

  test("external discovery off: no imports; env beats config.toml", async () => {
    await using box = await sandbox();
    await box.write(
      join(box.project, ".cursor", "mcp.json"),
      JSON.stringify({ mcpServers: { imp: { command: "x" } } }),
    );
    expect(await names(box, { LEMON_MCP_EXTERNAL_DISCOVERY: "no" })).toEqual([]);
    await box.write(join(box.agentDir, "config.toml"), "[mcp]\nexternal_discovery = false\n");
    expect(await names(box)).toEqual([]);
    // Env wins over config.toml in both directions (mcp.md §1).
    expect(await names(box, { LEMON_MCP_EXTERNAL_DISCOVERY: "1" })).toEqual([["imp", "cursor:project", true, null]]);
  });

  test("isolation reads no user file (omp's included) unless a discovery home is configured", async () => {
    await using box = await sandbox();
    await box.write(
      join(box.home, ".omp", "agent", "mcp.json"),
      JSON.stringify({ mcpServers: { ou: { command: "x" } } }),
    );
    expect(await names(box)).toEqual([["ou", "omp:user", true, null]]);
    const isolated = { LEMON_HOME: join(box.root, "lemon-home") };
    expect(await names(box, isolated)).toEqual([]);
    const dh = join(box.root, "dh");
    await box.write(join(dh, ".omp", "agent", "mcp.json"), JSON.stringify({ mcpServers: { dh: { command: "x" } } }));
    expect(await names(box, { ...isolated, LEMON_MCP_DISCOVERY_HOME: dh })).toEqual([["dh", "omp:user", true, null]]);
    expect(await names(box, { ...isolated, CLAUDE_CONFIG_DIR: join(box.home, ".claude") })).toEqual([]);
  });

  test("launching from the home directory never turns user files into project files", async () => {
    await using box = await sandbox();
    await box.write(join(box.home, ".cursor", "mcp.json"), JSON.stringify({ mcpServers: { cu: { command: "x" } } }));
    await box.write(
      join(box.home, ".config", "opencode", "opencode.json"),
      JSON.stringify({ mcp: { oc: { type: "local", command: ["x"] } } }),
    );
    const fromHome = await effectiveServers(createContext({ cwd: box.home, env: box.env }), {}, "project");
    expect(fromHome.servers).toEqual([]);
    const inside = await effectiveServers(
      createContext({ cwd: join(box.home, ".config", "opencode"), env: box.env }),
      {},
      "project",
    );
    expect(inside.servers).toEqual([]);
    const opted = await effectiveServers(
      createContext({ cwd: box.home, env: { ...box.env, LEMON_MCP_EXTERNAL_USER_DISCOVERY: "1" } }),
      {},
      "project",
    );
    expect(opted.servers.map((s) => [s.name, s.source])).toEqual([
      ["oc", "opencode:user"],
      ["cu", "cursor:user"],
    ]);
  });

  test("invalid lemon sources are skipped whole, others still load", async () => {
    await using box = await sandbox();
    await box.write(join(box.project, ".lemon", "mcp.json"), '{"servers": [ {"name": "p", "command": "x"} ');
    await lemonGlobal(box, { servers: "not-a-list" });
    await box.write(
      join(box.project, ".cursor", "mcp.json"),
      JSON.stringify({ mcpServers: { imp: { command: "x" } } }),
    );
    const set = await effectiveServers(ctxFor(box, { LEMON_MCP_SERVERS: "[{oops" }), {}, "project");
    expect(set.servers.map((s) => s.name)).toEqual(["imp"]);
    expect(set.diagnostics.map((d) => [d.code, d.source])).toEqual([
      ["parse_error", "lemon:project"],
      ["parse_error", "lemon:global"],
      ["parse_error", "lemon:env"],
    ]);
  });

  test("--global scope drops project files and project-level imports", async () => {
    await using box = await sandbox();
    await lemonProject(box, { servers: [{ name: "p", command: "x" }], disabled_servers: ["g"] });
    await lemonGlobal(box, { servers: [{ name: "g", command: "x" }] });
    await box.write(
      join(box.project, ".cursor", "mcp.json"),
      JSON.stringify({ mcpServers: { imp: { command: "x" } } }),
    );
    const set = await effectiveServers(ctxFor(box), {}, "global");
    expect(set.servers.map((s) => [s.name, s.enabled])).toEqual([["g", true]]);
  });
});
