/**
 * @module cli/usage
 * Usage text: a static top-level page (hot path) and citty's renderer for every subcommand.
 */
import type { CommandDef } from "citty";
import type { LemonCommand } from "./command.ts";
import { commonArgs } from "./args.ts";
import { stripAnsi } from "../core/text.ts";

export const TOP_USAGE = `lemon — skills and MCP toolkit for coding agents

USAGE lemon <command> [OPTIONS]

COMMANDS

  skill    Find, inspect, lint, enable and disable agent skills (SKILL.md)
  mcp      Manage MCP server configuration
  version  Print the version
  help     Show usage for a command

OPTIONS

  --json       Print one JSON document
  --cwd=<path> Project directory
  --quiet      Suppress informational output
  --no-color   Disable colour
  -h, --help   Show usage
  --version    Print the version

Use lemon <command> --help for more information about a command.
`;

export function toCitty(cmd: LemonCommand, leaf: boolean): CommandDef {
  const def: CommandDef = {
    meta: { name: cmd.meta.name, description: cmd.meta.description, ...(cmd.meta.alias ? { alias: cmd.meta.alias } : {}) },
    args: leaf ? { ...(cmd.args ?? {}), ...commonArgs } : {},
  };
  if (cmd.subCommands) {
    const subs: Record<string, () => Promise<CommandDef>> = {};
    for (const [name, load] of Object.entries(cmd.subCommands))
      subs[name] = async () => {
        const c = await load();
        return { meta: { name, description: c.meta.description, ...(c.meta.alias ? { alias: c.meta.alias } : {}), ...(c.meta.hidden ? { hidden: true } : {}) } };
      };
    def.subCommands = subs;
  }
  return def;
}

export async function renderCommandUsage(path: string[], cmd: LemonCommand, color: boolean): Promise<string> {
  const { renderUsage } = await import("citty");
  const def = toCitty(cmd, !cmd.subCommands);
  const parent: CommandDef = { meta: { name: ["lemon", ...path.slice(0, -1)].join(" ") } };
  const text = await renderUsage(def, parent);
  return (color ? text : stripAnsi(text)) + "\n";
}
