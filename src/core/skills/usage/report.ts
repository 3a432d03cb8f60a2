/**
 * @module skills/usage/report
 * Report rows of a scope's usage sidecar (skills.md §12.3) and their text form: what the
 * curator checks, `skill_manage report` returns and `lemon skill curator status` prints.
 */
import type { LemonContext } from "../../context.ts";
import type { Diagnostic } from "../../diagnostics.ts";
import type { Scope } from "../../paths.ts";
import type { LifecycleState, UsageRecord } from "../../schema/usage.ts";
import { escapeKey } from "../skill-key.ts";
import { readUsage, usageDiagnostic, usageFile } from "./sidecar.ts";

/** One row (§12.3), snake_case like the JSON documents it appears in (run.json `candidates`). */
export interface UsageRow {
  name: string;
  lifecycle_state: LifecycleState;
  agent_authored: boolean;
  load_count: number;
  write_count: number;
  write_error_count: number;
  created_at: string | null;
  last_loaded_at: string | null;
  last_write_at: string | null;
  /** The latest of created/loaded/written, or null without a (parsable) timestamp. */
  last_activity_at: string | null;
  /** Whole days since `last_activity_at`, at least 0; null without one. */
  idle_days: number | null;
  stale_candidate: boolean;
  archive_candidate: boolean;
}

export interface UsageReportOptions {
  staleAfterDays: number;
  archiveAfterDays: number;
  now: Date;
  /** Receives the diagnostic of an invalid sidecar (which then reads as no records). */
  diagnostics?: Diagnostic[];
}

const DAY_MS = 86_400_000;

function latest(stamps: (string | null | undefined)[]): string | null {
  let best: string | null = null;
  let bestMs = -Infinity;
  for (const s of stamps) {
    if (typeof s !== "string") continue;
    const ms = Date.parse(s);
    // An unparsable stamp (hand-edited, or a hostile project file) is no activity.
    if (Number.isNaN(ms) || ms <= bestMs) continue;
    best = s;
    bestMs = ms;
  }
  return best;
}

function row(name: string, r: UsageRecord, opts: UsageReportOptions): UsageRow {
  const state: LifecycleState = r.lifecycle_state ?? "active";
  const agent = r.created_by === "agent";
  const last = latest([r.created_at, r.last_loaded_at, r.last_write_at]);
  const idle = last === null ? null : Math.max(0, Math.floor((opts.now.getTime() - Date.parse(last)) / DAY_MS));
  const eligible = agent && state !== "pinned" && state !== "archived" && idle !== null;
  return {
    name,
    lifecycle_state: state,
    agent_authored: agent,
    load_count: r.load_count ?? 0,
    write_count: r.write_count ?? 0,
    write_error_count: r.write_error_count ?? 0,
    created_at: r.created_at ?? null,
    last_loaded_at: r.last_loaded_at ?? null,
    last_write_at: r.last_write_at ?? null,
    last_activity_at: last,
    idle_days: idle,
    stale_candidate: eligible && idle >= opts.staleAfterDays,
    archive_candidate: eligible && idle >= opts.archiveAfterDays,
  };
}

const group = (r: UsageRow): number => (r.archive_candidate ? 0 : r.stale_candidate ? 1 : 2);

/** Rows of records: archive candidates, stale candidates, others; by name within each group. */
export function usageRows(skills: Record<string, UsageRecord>, opts: UsageReportOptions): UsageRow[] {
  return Object.entries(skills)
    .map(([name, r]) => row(name, r, opts))
    .sort((a, b) => group(a) - group(b) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/**
 * The report of a scope. An invalid sidecar reads as no records: its diagnostic goes to
 * `opts.diagnostics` and the context's log, and the file is left as it is.
 */
export async function usageReport(ctx: LemonContext, scope: Scope, opts: UsageReportOptions): Promise<UsageRow[]> {
  const file = usageFile(ctx, scope);
  const read = await readUsage(file);
  if (!read.ok) {
    const d = usageDiagnostic(file, read.reason);
    opts.diagnostics?.push(d);
    ctx.log({ level: "warn", message: d.message });
    return [];
  }
  return usageRows(read.skills, opts);
}

function markers(r: UsageRow): string {
  const m: string[] = [];
  if (r.agent_authored) m.push("agent-authored");
  if (r.lifecycle_state !== "active") m.push(r.lifecycle_state);
  if (r.stale_candidate) m.push("stale-candidate");
  if (r.archive_candidate) m.push("archive-candidate");
  return m.length === 0 ? "-" : m.join(",");
}

/** Escaped for one line: a hostile key or timestamp cannot start a line or move the cursor. */
const safe = (s: string): string => escapeKey(s).replace(/[\r\n]/g, (c) => (c === "\n" ? "\\n" : "\\r"));

/** The §12.3 text form, lines joined by "\n" without a trailing newline. */
export function formatUsageReport(scope: Scope, rows: readonly UsageRow[]): string {
  if (rows.length === 0) return `No ${scope} skill usage records found.`;
  const lines = rows.map(
    (r) =>
      `- ${safe(r.name)}: ${markers(r)}; loads=${r.load_count}; writes=${r.write_count}; ` +
      `idle_days=${r.idle_days ?? "unknown"}; last_activity=${r.last_activity_at === null ? "never" : safe(r.last_activity_at)}`,
  );
  return [`Skill usage report for ${scope} scope:`, ...lines].join("\n");
}
