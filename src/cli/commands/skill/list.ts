/**
 * @module cli/commands/skill/list
 * `lemon skill list [--all] [--global|--local] [--tools a,b]` (cli.md §2.1).
 */
import { defineLemonCommand } from "../../command.ts";
import { scopeArgs, scopeFrom, toolsArg } from "../../args.ts";
import { cliLemon } from "../../context.ts";
import { formatTable, printDiagnostics, printJson, truncate } from "../../output.ts";
import type { SkillEntry } from "../../../core/skills/entry.ts";

export function stateLabel(e: SkillEntry): string {
  return e.hidden ? `${e.activation_state}, hidden` : e.activation_state;
}

export default defineLemonCommand({
  meta: { name: "list", description: "List the effective skills for the project" },
  args: {
    all: { type: "boolean", description: "Include shadowed and invalid skills" },
    ...scopeArgs,
    ...toolsArg,
  },
  async run({ args, io }) {
    const lemon = cliLemon(io, args);
    const scope = scopeFrom(args, "both");
    const list = await lemon.skills.list({ all: Boolean(args.all), ...(scope !== "both" ? { scope } : {}) });
    if (args.json) {
      printJson(io, { ok: true, cwd: lemon.context.cwd, ...list });
      return 0;
    }
    printDiagnostics(io, Boolean(args.quiet), list.diagnostics);
    if (list.skills.length === 0 && list.shadowed.length === 0 && list.invalid.length === 0) {
      // A root cut at its scan bound may hold skills past it: never claim there are none (cli.md §1.2).
      if (list.diagnostics.some((d) => d.code === "scan_limit")) {
        io.out("No skills listed: a skill root was not scanned completely.\n");
        return 0;
      }
      io.out("No skills found.\n");
      io.err(`hint: create ${lemon.context.cwd}/.lemon/skill/<key>/SKILL.md or run 'lemon skill install <source>'\n`);
      return 0;
    }
    const rows = list.skills.map((e) => [e.key, stateLabel(e), e.scope, e.root_label, truncate(e.description, 60)]);
    if (args.all) {
      for (const s of list.shadowed) rows.push([s.key, "shadowed", s.scope, s.root_label, `shadowed by ${s.shadowed_by}`]);
      for (const s of list.invalid) rows.push([s.key, "invalid", s.scope, s.root_label, truncate(`${s.code}: ${s.message}`, 60)]);
    }
    io.out(formatTable(["KEY", "STATE", "SCOPE", "ROOT", "DESCRIPTION"], rows));
    return 0;
  },
});
