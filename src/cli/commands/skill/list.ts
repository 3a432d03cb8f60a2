/**
 * @module cli/commands/skill/list
 * `lemon skill list [--all] [--global|--local] [--tools a,b]` (cli.md §2.1).
 */
import { defineCommand } from "../../command.ts";
import { scopeFlags, scopeFrom, toolsFlag } from "../../args.ts";
import { cliLemon } from "../../context.ts";
import { formatTable, hint, printDiagnostics, printJson, printNoSkills, truncate } from "../../output.ts";
import { escapeKey, type SkillEntry } from "../../../core/index.ts";

export function stateLabel(e: SkillEntry): string {
  return e.hidden ? `${e.activation_state}, hidden` : e.activation_state;
}

export default defineCommand({
  name: "list",
  description: "List the effective skills for the project",
  flags: {
    all: { type: "boolean", description: "Include shadowed and invalid skills" },
    ...scopeFlags,
    ...toolsFlag,
  },
  async run({ flags, io }) {
    const lemon = cliLemon(io, flags);
    const scope = scopeFrom(flags, "both");
    const list = await lemon.skills.list({ all: flags.all, ...(scope !== "both" ? { scope } : {}) });
    if (flags.json) return printJson(io, { ok: true, cwd: lemon.context.cwd, ...list });
    printDiagnostics(io, flags.quiet, list.diagnostics);
    if (list.skills.length === 0 && list.shadowed.length === 0 && list.invalid.length === 0) {
      // `skill install` does not exist yet: the hint names only what works (cli.md §1.2).
      if (printNoSkills(io, list.diagnostics))
        hint(io, flags.quiet, `create ${lemon.context.cwd}/.lemon/skill/<key>/SKILL.md`);
      return;
    }
    const rows = list.skills.map((e) => [e.key, stateLabel(e), e.scope, e.root_label, truncate(e.description, 60)]);
    if (flags.all) {
      for (const s of list.shadowed)
        rows.push([s.key, "shadowed", s.scope, s.root_label, `shadowed by ${s.shadowed_by}`]);
      // The whole diagnostic with its path: it is what the user has to fix (issue 10 §6). The key is
      // escaped: a column strips invisible characters, which may be exactly why it is invalid.
      for (const s of list.invalid)
        rows.push([escapeKey(s.key), "invalid", s.scope, s.root_label, `${s.code}: ${s.message} (${s.path})`]);
    }
    io.out(formatTable(["KEY", "STATE", "SCOPE", "ROOT", "DESCRIPTION"], rows));
  },
});
