/**
 * @module skills/curator/report
 * A run's report directory (skills.md §13.4): `<logs/curator>/<YYYYMMDDTHHMMSS>[-n]/` with
 * `run.json` and `REPORT.md`, each written atomically. Names in REPORT.md are untrusted skill
 * keys: flattened to one line so a key cannot forge report structure.
 */
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { confinedTarget, formatJson, writeFileAtomic } from "../../fsx/atomic.ts";
import type { CandidateRow, CuratorRun } from "../../schema/curator.ts";
import { flattenLine } from "../../text.ts";

/** `2026-08-29T10:15:00Z` → `20260829T101500`. */
export function basicStamp(iso: string): string {
  return iso.replace(/\.\d+Z$|Z$/, "").replace(/[-:]/g, "");
}

const errnoOf = (err: unknown) => (err instanceof Error && "code" in err ? err.code : undefined);

/**
 * Creates the run's directory: the stamp, else the first free `-2`, `-3`… (mkdir without
 * `recursive` is the claim, so two runs of the same second never share one).
 */
export async function createRunDir(logsDir: string, startedAt: string, confineTo: string | null): Promise<string> {
  const parent = await confinedTarget(logsDir, confineTo);
  await mkdir(parent, { recursive: true, mode: 0o755 });
  const stamp = basicStamp(startedAt);
  for (let n = 1; n < 10_000; n++) {
    const dir = join(parent, n === 1 ? stamp : `${stamp}-${n}`);
    try {
      await mkdir(dir, { mode: 0o755 });
      return dir;
    } catch (err) {
      if (errnoOf(err) !== "EEXIST") throw err;
    }
  }
  throw new Error(`no free report directory for ${stamp}`);
}

const yesNo = (b: boolean) => (b ? "yes" : "no");
const name = (s: string) => flattenLine(s);
const idle = (r: CandidateRow) => (r.idle_days === null ? "unknown" : String(r.idle_days));

/** REPORT.md, exactly the §13.4 structure. */
export function reportMarkdown(run: CuratorRun): string {
  const lines = [
    "# Curator run",
    "",
    `- Started: ${run.started_at}`,
    `- Scope: ${run.scope}`,
    `- Duration: ${run.duration_ms} ms`,
    `- Summary: ${run.summary}`,
    `- Review required: ${yesNo(run.review_required)}`,
    "",
    "## Auto-transitions",
    `- Checked: ${run.counts.checked}`,
    `- Marked stale: ${run.counts.marked_stale}`,
    `- Archived: ${run.counts.archived}`,
    `- Reactivated: ${run.counts.reactivated}`,
    "",
    "## State transitions",
    ...(run.state_transitions.length === 0
      ? ["None."]
      : run.state_transitions.map((t) => `- ${name(t.name)}: ${t.from} -> ${t.to}`)),
    "",
    "## Candidates",
    ...(run.candidates.length === 0
      ? ["None."]
      : run.candidates.map(
          (r) =>
            `- ${name(r.name)}: state=${r.lifecycle_state}; idle_days=${idle(r)}; stale_candidate=${yesNo(r.stale_candidate)}; archive_candidate=${yesNo(r.archive_candidate)}`,
        )),
    "",
    "## Review submission",
    ...(run.review_submission === null
      ? ["Not submitted."]
      : [
          `- Run id: ${run.review_submission.run_id}`,
          `- Submitted: ${run.review_submission.submitted_at}`,
          `- Status: ${run.review_submission.status}`,
        ]),
  ];
  return `${lines.join("\n")}\n`;
}

/** Writes `run.json` and `REPORT.md` into `dir`; the path of `run.json`. */
export async function writeRunReport(dir: string, run: CuratorRun, confineTo: string | null): Promise<string> {
  const file = join(dir, "run.json");
  await writeFileAtomic(file, formatJson(run), { mode: 0o600, confineTo });
  await writeFileAtomic(join(dir, "REPORT.md"), reportMarkdown(run), { mode: 0o600, confineTo });
  return file;
}
