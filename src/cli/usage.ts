/**
 * @module cli/usage
 * Usage text: a static top-level page (hot path) and citty's renderer for every subcommand.
 */
import type { CommandDef } from "citty";
import type { LemonCommand } from "./command.ts";
import { commonArgs } from "./args.ts";
import { stripAnsi } from "../core/text.ts";

export { TOP_USAGE } from "./top-usage.ts";

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
