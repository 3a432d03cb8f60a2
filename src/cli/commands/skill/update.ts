/**
 * @module cli/commands/skill/update
 * `lemon skill update <key …> | --all [--check] [--force] [--approve] [--ref R] [--local]
 * [--security-override HASH]` (cli.md §2.13, install.md §9). One key fails like any command; with
 * several keys (or `--all`) it reports per key on stdout, carries on after a failure, and exits 1
 * when any key failed.
 */
import { defineCommand } from "../../command.ts";
import { usageError } from "../../args.ts";
import { abortedOr, cliApprover } from "../../approve.ts";
import { cliLemon } from "../../context.ts";
import { info, printJson } from "../../output.ts";
import { progress } from "../../progress.ts";
import { cell, sanitizeMessage, type UpdateItem, type UpdateResult } from "../../../core/index.ts";

const short = (id: string | null) => (id === null ? "unknown" : id.length > 12 ? id.slice(0, 12) : id);

/** `x: updated 1a2b3c4d5e6f -> 9f8e7d6c5b4a`, `y: up to date`, `z: pinned` (cli.md §2.13). */
function line(r: UpdateResult): string {
  const key = cell(r.key);
  switch (r.status) {
    case "updated":
      return `${key}: updated ${short(r.from)} -> ${short(r.to)}`;
    case "update_available":
      return `${key}: update available ${short(r.from)} -> ${short(r.to)}`;
    case "up_to_date":
      return `${key}: up to date`;
    case "pinned":
      return `${key}: pinned`;
  }
}

const HASH = /^[0-9a-f]{64}$/;

export default defineCommand({
  name: "update",
  description: "Update installed skills from their recorded sources",
  args: [{ name: "keys", description: "Skill keys (or --all)", variadic: true }],
  flags: {
    all: { type: "boolean", description: "Every skill in the scope's skills.lock.json" },
    check: { type: "boolean", description: "Only check upstream; change nothing but the check record" },
    force: { type: "boolean", description: "Overwrite local modifications" },
    ref: { type: "string", description: "Follow this git ref from now on (moves a commit pin)", value: "ref" },
    local: { type: "boolean", aliases: ["project"], description: "Project scope (default: global)" },
    "security-override": {
      type: "string",
      description: "Install a blocked update whose bundle has exactly this sha256",
      value: "sha256",
    },
    verbose: { type: "boolean", description: "Show git progress even when stderr is not a terminal" },
  },
  async run({ flags, words, io }) {
    const keys = [...words];
    if (flags.all && keys.length > 0) throw usageError("give skill keys or --all, not both");
    if (!flags.all && keys.length === 0) throw usageError("give a skill key or --all");
    const several = flags.all || keys.length > 1;
    if (several && flags.ref !== undefined) throw usageError("--ref applies to one skill key");
    if (several && flags["security-override"] !== undefined)
      throw usageError("--security-override applies to one skill key");
    const override = flags["security-override"];
    if (override !== undefined && !HASH.test(override))
      throw usageError("--security-override must be a 64-character lowercase hex sha256");
    const lemon = cliLemon(io, flags);
    const approver = cliApprover(io, flags);
    const bar = progress(io, flags);
    const opts = {
      global: !flags.local,
      approve: approver.approve,
      force: flags.force,
      check: flags.check,
      ...(flags.ref !== undefined ? { ref: flags.ref } : {}),
      ...(override !== undefined ? { securityOverride: override } : {}),
      ...(bar.onProgress ? { onProgress: bar.onProgress } : {}),
      onNotice: (l: string) => info(io, flags.quiet, l),
    };
    if (!several) {
      let r: UpdateResult;
      try {
        r = await lemon.skills.update(keys[0]!, opts);
      } catch (err) {
        bar.done();
        return abortedOr(io, flags.json, approver, err);
      }
      bar.done();
      if (flags.json) printJson(io, { ok: true, results: [r] });
      else io.out(`${line(r)}\n`);
      return 0;
    }
    const items: UpdateItem[] = await lemon.skills.updateMany(flags.all ? "all" : keys, opts);
    bar.done();
    const ok = items.every((i) => !("error" in i));
    if (flags.json) {
      printJson(io, { ok, results: items });
      return ok ? 0 : 1;
    }
    if (items.length === 0) info(io, flags.quiet, "No installed skills to update.");
    for (const i of items)
      io.out(
        "error" in i
          ? `${cell(i.key)}: error [${i.error.code}]: ${sanitizeMessage(i.error.message)}\n`
          : `${line(i)}\n`,
      );
    return ok ? 0 : 1;
  },
});
