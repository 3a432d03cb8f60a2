/**
 * @module cli/commands/skill/toggle
 * `lemon skill enable|disable <key> [--global|--local]` (cli.md §2.15); default scope global.
 */
import { defineLemonCommand, type LemonCommand } from "../../command.ts";
import { scopeArgs, scopeFrom } from "../../args.ts";
import { cliLemon } from "../../context.ts";
import { info, printJson } from "../../output.ts";

export function toggleCommand(enabled: boolean): LemonCommand {
  return defineLemonCommand({
    meta: { name: enabled ? "enable" : "disable", description: `${enabled ? "Enable" : "Disable"} a skill in skills.json` },
    args: {
      key: { type: "positional", description: "Skill key", required: true },
      ...scopeArgs,
      force: { type: "boolean", description: "Record a key no skill root holds yet" },
    },
    async run({ args, io }) {
      const scope = scopeFrom(args, "global");
      const lemon = cliLemon(io, args);
      const key = String(args.key);
      const opts = { global: scope === "global", requireDiscovered: args.force !== true };
      const r = enabled ? await lemon.skills.enable(key, opts) : await lemon.skills.disable(key, opts);
      if (args.json) {
        printJson(io, { ok: true, ...r });
        return 0;
      }
      io.out(`${enabled ? "Enabled" : "Disabled"} '${key}' (${scope}, ${r.changed ? "updated" : "unchanged"} ${r.file})\n`);
      if (r.effective_by !== undefined) info(io, Boolean(args.quiet), `hint: still ${r.enabled ? "enabled" : "disabled"} by ${r.effective_by}`);
      return 0;
    },
  });
}
