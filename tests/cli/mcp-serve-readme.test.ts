// The README's "Serving skills over MCP" snippets are the configuration a user pastes into
// Claude Code, Codex, Cursor and VS Code: each is written where that tool keeps it and read back
// by lemon's own importers (mcp.md §4), which must find a `lemon` server running `lemon mcp serve`.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createContext } from "../../src/core/context.ts";
import { effectiveServers } from "../../src/core/mcp/index.ts";
import { sandbox, type Sandbox } from "../support/sandbox.ts";

const README = readFileSync(join(import.meta.dir, "../../README.md"), "utf8");

/** The README section on `lemon mcp serve`. */
function section(): string {
  const start = README.indexOf("## Serving skills over MCP (`lemon mcp serve`)");
  expect(start).toBeGreaterThanOrEqual(0);
  const end = README.indexOf("\n## ", start + 3);
  return README.slice(start, end < 0 ? undefined : end);
}

/** The first fenced block of `lang` after the bold label `**<label>**`. */
function snippet(label: string, lang: string): string {
  const text = section();
  const at = text.indexOf(`**${label}**`);
  expect([label, at >= 0]).toEqual([label, true]);
  const m = new RegExp("```" + lang + "\\n([\\s\\S]*?)```").exec(text.slice(at));
  expect([label, m !== null]).toEqual([label, true]);
  return m![1]!;
}

async function lemonEntry(box: Sandbox, env: Record<string, string> = {}) {
  const ctx = createContext({ cwd: box.project, env: { ...box.env, ...env } });
  const set = await effectiveServers(ctx, {}, "project");
  const s = set.servers.find((x) => x.name === "lemon");
  expect(s).toBeDefined();
  const entry = s!.server.entry as { command?: string; args?: string[] };
  return { source: s!.source, type: s!.type, command: entry.command, args: entry.args };
}

const SERVE = { type: "stdio" as const, command: "lemon", args: ["mcp", "serve"] };

describe("README: adding lemon to other agents", () => {
  test("Claude Code: the `claude mcp add` line and the ~/.claude.json entry agree; the importer finds it", async () => {
    const line = /`claude mcp add lemon -- ([^`]+)`/.exec(section());
    expect(line).not.toBeNull();
    const [command, ...args] = line![1]!.split(" ");
    expect({ command, args }).toEqual({ command: SERVE.command, args: SERVE.args });
    await using box = await sandbox();
    await box.write(join(box.home, ".claude.json"), snippet("Claude Code", "json"));
    expect(await lemonEntry(box, { LEMON_MCP_EXTERNAL_USER_DISCOVERY: "1" })).toEqual({
      source: "claude:user",
      ...SERVE,
    });
  });

  test("Codex: config.toml [mcp_servers.lemon]", async () => {
    await using box = await sandbox();
    await box.write(join(box.project, ".codex", "config.toml"), snippet("Codex", "toml"));
    expect(await lemonEntry(box)).toEqual({ source: "codex:project", ...SERVE });
  });

  test("Cursor: .cursor/mcp.json", async () => {
    await using box = await sandbox();
    await box.write(join(box.project, ".cursor", "mcp.json"), snippet("Cursor", "json"));
    expect(await lemonEntry(box)).toEqual({ source: "cursor:project", ...SERVE });
  });

  test("VS Code: .vscode/mcp.json with servers", async () => {
    await using box = await sandbox();
    await box.write(join(box.project, ".vscode", "mcp.json"), snippet("VS Code", "json"));
    expect(await lemonEntry(box)).toEqual({ source: "vscode:project", ...SERVE });
  });
});
