// Approval of imported servers (issue 9, mcp.md §4.2): an import asks before every tool call
// (`always`) unless the entry carries lemon's own `approval`; a foreign auto-approve list maps to
// `tool_approvals: never` for exactly its tools. lemon's own sources keep §3.1's default (`never`).
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { effectiveServers, mcpConfig, type EffectiveServer } from "../../../src/core/mcp/index.ts";
import { sandbox } from "../../support/sandbox.ts";
import { ctxFor } from "./fixtures.ts";

const by = (servers: EffectiveServer[]) => Object.fromEntries(servers.map((s) => [s.name, s]));

describe("approval of imported servers", () => {
  test("every provider's import defaults to always; lemon's own approval field is honoured", async () => {
    await using box = await sandbox();
    const w = (p: string, v: unknown) => box.write(join(box.project, p), JSON.stringify(v));
    await w(".omp/mcp.json", { mcpServers: { omp1: { command: "x" } } });
    await w(".claude/.mcp.json", { mcpServers: { cl1: { command: "x" }, cl2: { command: "x", approval: "never" } } });
    await box.write(join(box.project, ".codex", "config.toml"), '[mcp_servers.cx1]\ncommand = "x"\n');
    // Gemini's `trust` never bypasses approval (§4.3).
    await w(".gemini/settings.json", { mcpServers: { ge1: { command: "x", trust: true } } });
    await w("opencode.json", { mcp: { oc1: { type: "local", command: ["x"] } } });
    await w(".cursor/mcp.json", { mcpServers: { cu1: { command: "x" } } });
    await w(".windsurf/mcp_config.json", { mcpServers: { ws1: { command: "x" } } });
    await w(".vscode/mcp.json", { servers: { vs1: { command: "x" } } });
    await w(".mcp.json", { mcpServers: { mj1: { command: "x" } } });
    const set = await effectiveServers(ctxFor(box), {}, "project");
    expect(set.servers.map((s) => [s.name, s.approval])).toEqual([
      ["omp1", "always"],
      ["cl1", "always"],
      ["cl2", "never"],
      ["cx1", "always"],
      ["ge1", "always"],
      ["oc1", "always"],
      ["cu1", "always"],
      ["ws1", "always"],
      ["vs1", "always"],
      ["mj1", "always"],
    ]);
    for (const s of set.servers) expect(s.server.entry.tool_approvals).toBeUndefined();
    const api = mcpConfig({ cwd: box.project, env: box.env });
    expect((await api.get("cu1")).approval).toBe("always");
    expect((await api.list({ all: true })).effective.map((e) => e.approval)).toContain("always");
  });

  test("alwaysAllow / autoApprove and Codex's approve mode: never for exactly those tools", async () => {
    await using box = await sandbox();
    await box.write(
      join(box.project, ".mcp.json"),
      JSON.stringify({
        mcpServers: {
          roo: { command: "x", alwaysAllow: ["read_file", "list", 7] },
          cline: { command: "x", autoApprove: ["search"] },
          proto: { command: "x", alwaysAllow: ["__proto__"] },
        },
      }),
    );
    await box.write(
      join(box.project, ".codex", "config.toml"),
      [
        "[mcp_servers.cx]",
        'command = "x"',
        'default_tools_approval_mode = "approve"',
        "[mcp_servers.cx.tools.status]",
        'approval_mode = "approve"',
        "[mcp_servers.cx.tools.push]",
        'approval_mode = "prompt"',
      ].join("\n"),
    );
    await box.write(
      join(box.project, "opencode.json"),
      JSON.stringify({ mcp: { oc: { type: "local", command: ["x"], alwaysAllow: ["t"] } } }),
    );
    const s = by((await effectiveServers(ctxFor(box), {}, "project")).servers);
    expect(s.roo!.approval).toBe("always");
    expect(s.roo!.server.entry.tool_approvals).toEqual({ read_file: "never", list: "never" });
    expect(s.cline!.server.entry.tool_approvals).toEqual({ search: "never" });
    expect(Object.keys(s.proto!.server.entry.tool_approvals ?? {})).toEqual(["__proto__"]);
    // A server-wide default is no list of tools: the server still asks for every other tool.
    expect([s.cx!.approval, s.cx!.server.entry.tool_approvals]).toEqual(["always", { status: "never" }]);
    expect(s.oc!.server.entry.tool_approvals).toEqual({ t: "never" });
  });

  test("lemon's own sources: an entry without approval is never (mcp.md §3.1)", async () => {
    await using box = await sandbox();
    const own = JSON.stringify({ servers: [{ name: "own", command: "x" }] });
    await box.write(join(box.project, ".lemon", "mcp.json"), own);
    const env = { LEMON_MCP_SERVERS: JSON.stringify([{ name: "envd", command: "x" }]) };
    const set = await effectiveServers(ctxFor(box, env), {}, "project");
    expect(set.servers.map((s) => [s.name, s.approval])).toEqual([
      ["own", "never"],
      ["envd", "never"],
    ]);
  });
});
