/**
 * @module skills/curator/run
 * One curator pass of one scope (skills.md §13.2–§13.4), shared by `lemon skill curator run`, the
 * module API and the background curator: lock, gates, transitions, review, reports, state. The
 * state file's lock is held for the whole pass, so a second pass finds it held and stops.
 */
import { join } from "node:path";
import type { LemonContext } from "../../context.ts";
import { diagnostic, type Diagnostic } from "../../diagnostics.ts";
import { conflict } from "../../errors.ts";
import { isoSeconds } from "../../fsx/atomic.ts";
import type { Scope } from "../../paths.ts";
import type { CandidateRow, CuratorRun, CuratorState, ReviewSubmission } from "../../schema/curator.ts";
import type { AgentConfig, CuratorSettings } from "../skills-config.ts";
import { autoGate, gateMessage, latestActivity, manualGate, type CuratorGate } from "./gates.ts";
import { reviewPrompt } from "./prompt.ts";
import { createRunDir, writeRunReport } from "./report.ts";
import { submitReview } from "./review.ts";
import { lockForRun, readState } from "./state.ts";
import {
  afterTransition,
  applyTransitions,
  countsOf,
  planTransitions,
  reviewCandidates,
  summaryOf,
} from "./transitions.ts";

/** What a pass works on: one scope's files and the effects it may have. */
export interface CuratorScope {
  ctx: LemonContext;
  scope: Scope;
  stateFile: string;
  logsDir: string;
  /** `C` for the project scope (nothing is written through a link leaving it), else null. */
  confineTo: string | null;
  settings: CuratorSettings;
  /** The scope's report rows (§12.3) for the settings' thresholds. */
  rows(): Promise<CandidateRow[]>;
  /** Adds a key to the scope's `skills.json` `disabled`. */
  disable(name: string): Promise<void>;
  setLifecycle(name: string, state: CandidateRow["lifecycle_state"]): Promise<void>;
  /** The review command: the background curator's `reviewCommand`, else `[agents.<agent>]`. */
  agent(): Promise<AgentConfig | null>;
  /** The host's own latest activity (the background curator's `lastActivityAt`). */
  lastActivityAt?: () => Date | null;
  emit?: (event: {
    ts: string;
    scope: Scope;
    counts: CuratorRun["counts"];
    review_required: boolean;
    report_path: string;
  }) => void;
  reviewTimeoutMs?: number;
}

export interface CuratorRunOptions {
  /** Apply every automatic gate (cron, the background curator). */
  auto?: boolean;
  /** A manual run despite `paused`. */
  force?: boolean;
  /** Submit the review when it is required, even with `review = false`. */
  submitReview?: boolean;
  /** Include the review prompt in the result. */
  prompt?: boolean;
}

/** cli.md §2.17 `run` (snake_case like its JSON). `gate: "locked"` means another pass holds the lock. */
export interface CuratorRunResult {
  ran: boolean;
  gate: CuratorGate | "locked" | null;
  /** Why it did not run, for humans; null when it ran. */
  message: string | null;
  report_path: string | null;
  run: CuratorRun | null;
  prompt: string | null;
  diagnostics: Diagnostic[];
}

const notRun = (gate: CuratorRunResult["gate"], message: string): CuratorRunResult => ({
  ran: false,
  gate,
  message,
  report_path: null,
  run: null,
  prompt: null,
  diagnostics: [],
});

/** Runs one pass; gated or locked-out passes resolve with `ran: false`. */
export async function runCurator(s: CuratorScope, opts: CuratorRunOptions = {}): Promise<CuratorRunResult> {
  const held = await lockForRun(s.stateFile, s.confineTo, s.ctx.now);
  if (!held.ok) {
    // Cron and the background curator simply leave it to the pass in progress.
    if (opts.auto) return notRun("locked", `curator not run: another run holds the lock (${held.message})`);
    throw conflict(held.message);
  }
  try {
    const rows = await s.rows();
    const now = s.ctx.now();
    const gate = opts.auto
      ? autoGate(s.settings, held.lock.state, latestActivity(rows, s.lastActivityAt?.() ?? null), now)
      : manualGate(held.lock.state, opts.force === true);
    if (gate !== null) return notRun(gate, gateMessage(gate, s.settings));
    return await pass(s, rows, held.lock.state, held.lock.write, now, opts);
  } finally {
    await held.lock.release();
  }
}

async function pass(
  s: CuratorScope,
  rows: CandidateRow[],
  state: CuratorState,
  writeState: (next: CuratorState) => Promise<void>,
  started: Date,
  opts: CuratorRunOptions,
): Promise<CuratorRunResult> {
  const t0 = performance.now();
  const startedAt = isoSeconds(started);
  const plan = planTransitions(rows, s.settings.staleAfterDays);
  const applied = await applyTransitions(plan.transitions, {
    disable: (name) => s.disable(name),
    setState: (name, to) => s.setLifecycle(name, to),
  });
  const byName = new Map(applied.map((t) => [t.name, t]));
  const after = rows.map((r) => afterTransition(r, byName.get(r.name)));
  const candidates = after.filter((r) => r.stale_candidate || r.archive_candidate);
  const needReview = reviewCandidates(after);
  const counts = countsOf(plan.checked, applied);
  const prompt = reviewPrompt(s.scope, needReview);
  const diagnostics: Diagnostic[] = [];
  let submission: ReviewSubmission | null = null;
  if (needReview.length > 0 && (opts.submitReview === true || s.settings.review)) {
    const agent = await s.agent();
    if (agent === null) {
      diagnostics.push(
        diagnostic("warn", "review_not_submitted", `agent '${s.settings.agent}' is not configured`, {
          path: join(s.ctx.agentDir, "config.toml"),
        }),
      );
    } else {
      submission = await submitReview(s.ctx, agent, prompt, {
        ...(s.reviewTimeoutMs !== undefined ? { timeoutMs: s.reviewTimeoutMs } : {}),
        extraEnv: { LEMON_CURATOR_SCOPE: s.scope },
      });
    }
  }
  const names = (k: string) => applied.filter((t) => t.kind === k).map((t) => t.name);
  const run: CuratorRun = {
    started_at: startedAt,
    duration_ms: Math.max(0, Math.round(performance.now() - t0)),
    scope: s.scope,
    summary: summaryOf(counts),
    counts,
    review_required: needReview.length > 0,
    candidate_count: candidates.length,
    archived: names("archived"),
    marked_stale: names("marked_stale"),
    reactivated: names("reactivated"),
    state_transitions: applied.map(({ name, from, to }) => ({ name, from, to })),
    candidates,
    review_submission: submission,
  };
  const dir = await createRunDir(s.logsDir, startedAt, s.confineTo);
  const reportPath = await writeRunReport(dir, run, s.confineTo);
  // Last, so the state never names a report that is not complete.
  await writeState({
    ...state,
    version: 1,
    last_run_at: startedAt,
    last_run_summary: run.summary,
    last_report_path: reportPath,
    last_candidate_count: run.candidate_count,
    paused: state.paused ?? false,
    run_count: (state.run_count ?? 0) + 1,
  });
  s.emit?.({
    ts: isoSeconds(s.ctx.now()),
    scope: s.scope,
    counts,
    review_required: run.review_required,
    report_path: reportPath,
  });
  return {
    ran: true,
    gate: null,
    message: null,
    report_path: reportPath,
    run,
    prompt: opts.prompt ? prompt : null,
    diagnostics,
  };
}

/** cli.md §2.17 `status` (snake_case like its JSON). */
export interface CuratorStatus {
  scope: Scope;
  state: CuratorState;
  should_run_now: boolean;
  gate: CuratorGate | null;
  rows: CandidateRow[];
  diagnostics: Diagnostic[];
}

/** The state, the automatic gate as of now and the report rows; an invalid state file is reported. */
export async function curatorStatus(s: CuratorScope): Promise<CuratorStatus> {
  const [read, rows] = await Promise.all([readState(s.stateFile), s.rows()]);
  const diagnostics: Diagnostic[] = [];
  if (!read.ok)
    diagnostics.push(
      diagnostic("error", "invalid_curator_state", `invalid ${s.stateFile}: ${read.reason}`, { path: s.stateFile }),
    );
  const gate = autoGate(s.settings, read.state, latestActivity(rows, s.lastActivityAt?.() ?? null), s.ctx.now());
  // A state file that cannot be read stops every run until it is fixed: never "should run".
  return { scope: s.scope, state: read.state, should_run_now: read.ok && gate === null, gate, rows, diagnostics };
}

/** The review prompt for the scope's current candidates (§13.5), without running a pass. */
export async function currentReviewPrompt(s: CuratorScope): Promise<string> {
  return reviewPrompt(s.scope, reviewCandidates(await s.rows()));
}
