// Location variables with a relative value (adv-mcp 4a): a relative CODEX_HOME, XDG_CONFIG_HOME,
// COPILOT_HOME, CLAUDE_CONFIG_DIR or discovery home would resolve inside the project, and the
// project's files would then pass as the user's own (`:user`, which needs no trust). They are
// ignored, as the XDG Base Directory spec says, with a warning.
import { describe, expect, test } from "bun:test";
import { join, relative } from "node:path";
import { effectiveServers } from "../../../src/core/mcp/index.ts";
import { sandbox, type Sandbox } from "../../support/sandbox.ts";
import { ctxFor } from "./fixtures.ts";

const stdio = (arg: string) => ({ command: "/bin/echo", args: [arg] });

async function hostileProject(box: Sandbox) {
  await box.write(
    join(box.project, "opencode", "opencode.json"),
    JSON.stringify({ mcp: { ocu: { type: "local", command: ["/bin/echo"] } } }),
  );
  await box.write(join(box.project, "cx", "config.toml"), '[mcp_servers.cxu]\ncommand = "/bin/echo"\n');
  await box.write(join(box.project, "cop", "mcp-config.json"), JSON.stringify({ mcpServers: { cpu: stdio("c") } }));
  await box.write(join(box.project, ".claude.json"), JSON.stringify({ mcpServers: { clu: stdio("cl") } }));
  await box.write(join(box.project, ".omp", "agent", "mcp.json"), JSON.stringify({ mcpServers: { ompu: stdio("o") } }));
}

const users = (set: Awaited<ReturnType<typeof effectiveServers>>) =>
  set.servers.filter((s) => s.source.endsWith(":user")).map((s) => `${s.name} ${s.source}`);

describe("relative location variables are ignored", () => {
  test("CODEX_HOME, XDG_CONFIG_HOME, COPILOT_HOME, CLAUDE_CONFIG_DIR: never a project file as :user", async () => {
    await using box = await sandbox();
    await hostileProject(box);
    // Relative to the process and to C alike: whichever a lookup used, it would land in the project.
    const rel = (p: string) => relative(process.cwd(), join(box.project, p)) || ".";
    const env = {
      LEMON_MCP_DISCOVERY_HOME: box.home,
      LEMON_MCP_EXTERNAL_USER_DISCOVERY: "1",
      XDG_CONFIG_HOME: rel(""),
      CODEX_HOME: rel("cx"),
      COPILOT_HOME: rel("cop"),
      CLAUDE_CONFIG_DIR: rel(""),
    };
    const set = await effectiveServers(ctxFor(box, env), {}, "project");
    expect(users(set)).toEqual([]);
    const warned = set.diagnostics.filter((d) => d.code === "relative_path").map((d) => d.message);
    for (const v of ["XDG_CONFIG_HOME", "CODEX_HOME", "COPILOT_HOME", "CLAUDE_CONFIG_DIR"])
      expect(warned).toContain(`${v} is not an absolute path; ignored`);
  });

  test("a relative discovery home (env or config.toml) is ignored; ~ still means home", async () => {
    await using box = await sandbox();
    await hostileProject(box);
    for (const env of [{ LEMON_MCP_DISCOVERY_HOME: "." }, { LEMON_MCP_DISCOVERY_HOME: "./" }]) {
      const set = await effectiveServers(ctxFor(box, env), {}, "project");
      expect(users(set)).toEqual([]);
      expect(set.diagnostics.map((d) => d.message)).toContain(
        "LEMON_MCP_DISCOVERY_HOME is not an absolute path; ignored",
      );
    }
    await box.write(join(box.agentDir, "config.toml"), '[mcp]\ndiscovery_home = "."\n');
    const set = await effectiveServers(ctxFor(box), {}, "project");
    expect(users(set)).toEqual([]);
    expect(set.diagnostics.map((d) => d.message)).toContain("mcp.discovery_home is not an absolute path; ignored");
    await box.write(join(box.home, ".omp", "agent", "mcp.json"), JSON.stringify({ mcpServers: { mine: stdio("m") } }));
    const home = await effectiveServers(ctxFor(box, { LEMON_MCP_DISCOVERY_HOME: "~" }), {}, "project");
    expect(users(home)).toEqual(["mine omp:user"]);
  });
});
