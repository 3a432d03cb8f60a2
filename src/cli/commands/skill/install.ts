/**
 * @module cli/commands/skill/install
 * `lemon skill install <source> [--local] [--agent …] [--force] [--approve] [--ref R] [--path P]
 * [--skill K] [--as KEY] [--list] [--security-override HASH]` (cli.md §2.12, install.md §5).
 * Default scope global. Slow clones show a live progress line on a terminal; a pipe gets the
 * progress lines only with `--verbose`.
 */
import { cell, formatFinding, type LockRecord } from "../../../core/index.ts";
import { usageError, scopeFlags, scopeFrom } from "../../args.ts";
import { abortedOr, cliApprover } from "../../approve.ts";
import { defineCommand } from "../../command.ts";
import { cliLemon } from "../../context.ts";
import type { CliIo } from "../../io.ts";
import { formatRows, formatTable, info, printJson } from "../../output.ts";
import { progress } from "../../progress.ts";

const AGENTS = ["lemon", "agents", "claude", "codex", "omp"] as const;

/** The source as a user would type it again, from the lock record (redacted: ids never hold secrets). */
export function sourceLine(rec: LockRecord): string {
  const id = rec.source_id ?? "";
  let shown = id;
  if (rec.source_kind === "github")
    shown = `gh:${id}${rec.subdir !== null ? `/${rec.subdir}` : ""}${rec.source_ref !== null ? `@${rec.source_ref}` : ""}`;
  else if (rec.source_kind === "git" && rec.source_ref !== null)
    shown = `${id}#${rec.source_ref}${rec.subdir !== null ? `:${rec.subdir}` : ""}`;
  else if (rec.source_kind === "git" && rec.subdir !== null) shown = `${id} --path ${rec.subdir}`;
  else if (rec.source_kind === "local" && rec.subdir !== null) shown = `${id}/${rec.subdir}`;
  const commit = rec.resolved_commit !== null ? ` (commit ${rec.resolved_commit.slice(0, 12)})` : "";
  return `${shown}${commit}`;
}

async function listing(
  io: CliIo,
  flags: { json: boolean },
  out: { source: string; skills: { key: string; path: string }[] },
) {
  if (flags.json) return printJson(io, { ok: true, source: out.source, skills: out.skills });
  if (out.skills.length === 0) return io.out("No skills found in the source.\n");
  io.out(
    formatTable(
      ["KEY", "PATH"],
      out.skills.map((s) => [s.key, s.path === "" ? "." : s.path]),
    ),
  );
}

export default defineCommand({
  name: "install",
  description: "Install a skill from a local path, a git repository or GitHub (default: global scope)",
  args: [{ name: "source", description: "Path, git URL, gh:owner/repo[/subdir][@ref], …", required: true }],
  flags: {
    ...scopeFlags,
    agent: {
      type: "string",
      value: "label",
      choices: AGENTS,
      description: "Install into this tool's skill root: lemon (default), agents, claude, codex, omp",
    },
    force: { type: "boolean", description: "Replace an installed skill with the same key" },
    ref: { type: "string", value: "ref", description: "Git branch, tag or commit to install" },
    path: { type: "string", value: "subdir", description: "Directory inside the source" },
    skill: { type: "string", value: "key", description: "Which skill of a source holding several" },
    as: { type: "string", value: "key", description: "Install under another key" },
    list: { type: "boolean", description: "List the skills in the source; install nothing" },
    "security-override": {
      type: "string",
      value: "sha256",
      description: "Install a blocked bundle after review: its exact bundle sha256",
    },
    verbose: { type: "boolean", description: "Print fetch progress even when stderr is not a terminal" },
  },
  async run({ flags, args, io }) {
    const override = flags["security-override"];
    if (override !== undefined && !/^[0-9a-f]{64}$/.test(override))
      throw usageError("--security-override must be a 64-character lowercase hex sha256");
    const scope = scopeFrom(flags, "global");
    const lemon = cliLemon(io, flags);
    const bar = progress(io, flags);
    const common = {
      ...(flags.ref !== undefined ? { ref: flags.ref } : {}),
      ...(flags.path !== undefined ? { path: flags.path } : {}),
      ...(bar.onProgress ? { onProgress: bar.onProgress } : {}),
    };
    try {
      if (flags.list) return await listing(io, flags, await lemon.skills.listSource(args.source, common));
      const approver = cliApprover(io, flags);
      const r = await lemon.skills
        .install(args.source, {
          ...common,
          global: scope === "global",
          agent: (flags.agent ?? "lemon") as (typeof AGENTS)[number],
          approve: approver.approve,
          force: flags.force,
          ...(flags.skill !== undefined ? { skill: flags.skill } : {}),
          ...(flags.as !== undefined ? { as: flags.as } : {}),
          ...(override !== undefined ? { securityOverride: override } : {}),
          onNotice: (line) => info(io, flags.quiet, `notice: ${line}`),
        })
        .catch((err: unknown) => {
          bar.done();
          return abortedOr(io, flags.json, approver, err);
        });
      bar.done();
      if (typeof r === "number") return r;
      if (flags.json) return printJson(io, { ok: true, ...r });
      const trust = r.lock.trust_level ?? "unknown trust";
      io.out(
        `${r.action === "replaced" ? "Replaced" : "Installed"} '${cell(r.skill.key)}' (${trust}, audit ${r.audit.verdict})\n`,
      );
      io.out(
        formatRows(
          [
            ["path", r.skill.path],
            ["source", sourceLine(r.lock)],
          ],
          "  ",
        ),
      );
      // What was accepted (a warn, or a block under an override) stays visible after --approve.
      for (const f of r.audit.findings)
        if (f.severity === "critical" || f.severity === "high") info(io, flags.quiet, `audit: ${formatFinding(f)}`);
    } finally {
      await lemon.close();
    }
  },
});
