/**
 * @module cli/commands/skill/toggle
 * `lemon skill enable|disable <key> [--global|--local]` (cli.md §2.15); default scope global.
 */
import { defineCommand, type LemonCommand } from "../../command.ts";
import { scopeFlags, scopeFrom } from "../../args.ts";
import { cliLemon } from "../../context.ts";
import { hint, printJson } from "../../output.ts";

export function toggleCommand(enabled: boolean): LemonCommand {
  return defineCommand({
    name: enabled ? "enable" : "disable",
    description: `${enabled ? "Enable" : "Disable"} a skill in skills.json (default: global scope)`,
    args: [{ name: "key", description: "Skill key", required: true }],
    flags: { ...scopeFlags, force: { type: "boolean", description: "Record a key no skill root holds yet" } },
    async run({ flags, args, io }) {
      const scope = scopeFrom(flags, "global");
      const lemon = cliLemon(io, flags);
      const key = args.key;
      const opts = { global: scope === "global", requireDiscovered: !flags.force };
      const r = enabled ? await lemon.skills.enable(key, opts) : await lemon.skills.disable(key, opts);
      if (flags.json) return printJson(io, { ok: true, ...r });
      io.out(
        `${enabled ? "Enabled" : "Disabled"} '${key}' (${scope}, ${r.changed ? "updated" : "unchanged"} ${r.file})\n`,
      );
      if (r.effective_by !== undefined)
        hint(io, flags.quiet, `still ${r.enabled ? "enabled" : "disabled"} by ${r.effective_by}`);
    },
  });
}
