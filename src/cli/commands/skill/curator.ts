/**
 * @module cli/commands/skill/curator
 * `lemon skill curator status|run|pause|resume` (cli.md §2.17, skills.md §13); default scope
 * global, `--local` the project. `run --auto` is the crontab line: a gated or locked-out run
 * exits 0 with its reason on stderr (silenced by `--quiet`), so cron mails only real failures.
 */
import { defineCommand, defineGroup, type FlagSpec } from "../../command.ts";
import { scopeFlags, scopeFrom, usageError } from "../../args.ts";
import { cliLemon } from "../../context.ts";
import { info, printDiagnostics, printJson } from "../../output.ts";
import { escapeKey, type CuratorStatus } from "../../../core/index.ts";

const shared = {
  ...scopeFlags,
  "stale-after-days": { type: "integer", description: "Days idle before a stale candidate", value: "n" },
  "archive-after-days": { type: "integer", description: "Days idle before an archive candidate", value: "n" },
} as const satisfies Record<string, FlagSpec>;

type SharedFlags = {
  readonly global: boolean;
  readonly local: boolean;
  readonly "stale-after-days": number | undefined;
  readonly "archive-after-days": number | undefined;
};

/** `--global` (default) or `--local`; both at once is a usage error. */
const scopeOf = (flags: { global: boolean; local: boolean }) =>
  scopeFrom(flags, "global") === "project" ? ("project" as const) : ("global" as const);

function callOptions(flags: SharedFlags) {
  const scope = scopeOf(flags);
  const o: { scope: "global" | "project"; staleAfterDays?: number; archiveAfterDays?: number } = { scope };
  for (const [name, key] of [
    ["stale-after-days", "staleAfterDays"],
    ["archive-after-days", "archiveAfterDays"],
  ] as const) {
    const v = flags[name];
    if (v === undefined) continue;
    if (v < 0) throw usageError(`--${name} must be at least 0 (got ${v})`);
    o[key] = v;
  }
  return o;
}

type Row = CuratorStatus["rows"][number];

function markers(r: Row): string {
  const m: string[] = [];
  if (r.agent_authored) m.push("agent-authored");
  if (r.lifecycle_state !== "active") m.push(r.lifecycle_state);
  if (r.stale_candidate) m.push("stale-candidate");
  if (r.archive_candidate) m.push("archive-candidate");
  return m.length === 0 ? "-" : m.join(",");
}

/** The skills.md §12.3 text form of the rows. */
function usageText(scope: string, rows: readonly Row[]): string {
  if (rows.length === 0) return `No ${scope} skill usage records found.\n`;
  const lines = rows.map(
    (r) =>
      `- ${escapeKey(r.name)}: ${markers(r)}; loads=${r.load_count}; writes=${r.write_count}; idle_days=${r.idle_days ?? "unknown"}; last_activity=${r.last_activity_at !== null ? escapeKey(r.last_activity_at) : "never"}`,
  );
  return `Skill usage report for ${scope} scope:\n${lines.join("\n")}\n`;
}

const status = defineCommand({
  name: "status",
  description: "Show the curator state, whether an automatic run is due, and the usage rows",
  flags: shared,
  async run({ flags, io }) {
    const st = await cliLemon(io, flags).skills.curator.status(callOptions(flags));
    if (flags.json) {
      const { diagnostics, ...rest } = st;
      return printJson(io, { ok: true, ...rest, diagnostics });
    }
    const s = st.state;
    io.out(`Curator (${st.scope} scope): ${s.paused === true ? "paused" : "not paused"}; runs=${s.run_count ?? 0}\n`);
    io.out(`Last run: ${s.last_run_at ?? "never"}${s.last_run_summary ? ` (${s.last_run_summary})` : ""}\n`);
    if (s.last_report_path) io.out(`Last report: ${s.last_report_path}\n`);
    io.out(`Automatic run due: ${st.should_run_now ? "yes" : `no${st.gate !== null ? ` (${st.gate})` : ""}`}\n`);
    io.out(usageText(st.scope, st.rows));
    printDiagnostics(io, flags.quiet, st.diagnostics);
  },
});

const run = defineCommand({
  name: "run",
  description: "Run the curator once (cron: 'run --auto' applies the automatic gates)",
  flags: {
    ...shared,
    auto: { type: "boolean", description: "Apply the automatic gates (enabled, paused, interval, idle)" },
    force: { type: "boolean", description: "Run even when paused" },
    prompt: { type: "boolean", description: "Print the review prompt" },
    "submit-review": { type: "boolean", description: "Submit the review to the agent command when required" },
  },
  async run({ flags, io }) {
    const r = await cliLemon(io, flags).skills.curator.run({
      ...callOptions(flags),
      auto: flags.auto,
      force: flags.force,
      prompt: flags.prompt,
      submitReview: flags["submit-review"],
    });
    if (flags.json) {
      const { message: _message, diagnostics, ...rest } = r;
      return printJson(io, { ok: true, ...rest, diagnostics });
    }
    if (!r.ran || r.run === null) {
      info(io, flags.quiet, r.message ?? `curator not run: ${r.gate}`);
      return;
    }
    io.out(`${r.run.summary}\n`);
    io.out(`${r.report_path}\n`);
    const sub = r.run.review_submission;
    if (sub !== null) info(io, flags.quiet, `review submitted: ${sub.status} (run ${sub.run_id})`);
    else if (r.run.review_required) info(io, flags.quiet, "review required: see the report's candidates");
    printDiagnostics(io, flags.quiet, r.diagnostics);
    if (flags.prompt && r.prompt !== null) io.out(`\n${r.prompt}`);
  },
});

function pauseCommand(paused: boolean) {
  return defineCommand({
    name: paused ? "pause" : "resume",
    description: paused ? "Pause automatic curator runs" : "Resume automatic curator runs",
    flags: scopeFlags,
    async run({ flags, io }) {
      const scope = scopeOf(flags);
      const lemon = cliLemon(io, flags);
      await (paused ? lemon.skills.curator.pause({ scope }) : lemon.skills.curator.resume({ scope }));
      if (flags.json) return printJson(io, { ok: true, scope, paused });
      io.out(`Curator ${paused ? "paused" : "resumed"} (${scope} scope)\n`);
    },
  });
}

const pause = pauseCommand(true);
const resume = pauseCommand(false);

export default defineGroup({
  name: "curator",
  description: "Curate agent-written skills: mark idle ones stale, archive long-unused ones",
  commands: {
    status: { load: async () => status },
    run: { load: async () => run },
    pause: { load: async () => pause },
    resume: { load: async () => resume },
  },
});
