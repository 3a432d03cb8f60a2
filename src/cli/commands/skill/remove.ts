/**
 * @module cli/commands/skill/remove
 * `lemon skill remove <key> [--local] [--force] [--approve]`, alias `uninstall` (cli.md §2.14,
 * install.md §10). The approval is the prompt `Remove skill '<key>' from <path>? [y/N] `.
 */
import { defineCommand } from "../../command.ts";
import { abortedOr, cliApprover } from "../../approve.ts";
import { cliLemon } from "../../context.ts";
import { printJson } from "../../output.ts";
import { cell } from "../../../core/index.ts";

export default defineCommand({
  name: "remove",
  description: "Remove a skill lemon installed (default: global scope)",
  args: [{ name: "key", description: "Skill key", required: true }],
  flags: {
    local: { type: "boolean", aliases: ["project"], description: "Project scope (default: global)" },
    force: { type: "boolean", description: "Remove a pinned skill too" },
  },
  async run({ flags, args, io }) {
    const lemon = cliLemon(io, flags);
    // The prompt is `Remove skill '<key>' from <path>? [y/N] ` (approve.ts describeRequest).
    const approver = cliApprover(io, flags);
    const opts = { global: !flags.local, force: flags.force, approve: approver.approve };
    const r = await lemon.skills
      .uninstall(args.key, opts)
      .catch((err: unknown) => abortedOr(io, flags.json, approver, err));
    if (typeof r === "number") return r;
    if (flags.json) return printJson(io, { ok: true, key: r.key, scope: r.scope, removed: r.removed });
    io.out(`Removed '${cell(r.key)}' (${r.scope}, ${cell(r.path)})\n`);
  },
});
