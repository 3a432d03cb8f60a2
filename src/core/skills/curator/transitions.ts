/**
 * @module skills/curator/transitions
 * The automatic lifecycle pass (skills.md §13.2): a pure plan over the report rows, then its
 * application. Only agent-authored rows move; pinned and archived ones never do, and nothing is
 * ever deleted: archiving only adds the key to `skills.json` `disabled` and records the state.
 */
import type { CandidateRow, CuratorCounts, CuratorTransition } from "../../schema/curator.ts";
import { keyProblem } from "../skill-key.ts";

export type TransitionKind = "archived" | "marked_stale" | "reactivated";

export interface PlannedTransition extends CuratorTransition {
  kind: TransitionKind;
}

export interface TransitionPlan {
  checked: number;
  transitions: PlannedTransition[];
}

/**
 * A project sidecar arrives with the clone: a record whose key could not be a skill directory
 * (a path, an invisible character) names no skill, so the pass never writes it into skills.json.
 */
const isSkillKey = (name: string) => keyProblem(name) === null && !/[/\\]/.test(name) && name !== "." && name !== "..";

/** First matching rule per agent-authored row (§13.2); rows come in report order. */
export function planTransitions(rows: readonly CandidateRow[], staleAfterDays: number): TransitionPlan {
  const transitions: PlannedTransition[] = [];
  let checked = 0;
  for (const r of rows) {
    if (!r.agent_authored) continue;
    checked++;
    const state = r.lifecycle_state;
    // The row's candidate flags already exclude pinned and archived skills; checked again so a
    // row built elsewhere can never move one.
    if (state === "pinned" || state === "archived" || !isSkillKey(r.name)) continue;
    if (r.archive_candidate) transitions.push({ name: r.name, from: state, to: "archived", kind: "archived" });
    else if (r.stale_candidate && state === "active")
      transitions.push({ name: r.name, from: state, to: "stale", kind: "marked_stale" });
    else if (state === "stale" && r.idle_days !== null && r.idle_days < staleAfterDays)
      transitions.push({ name: r.name, from: state, to: "active", kind: "reactivated" });
  }
  return { checked, transitions };
}

/** Counts of applied transitions; `checked` is every agent-authored row. */
export function countsOf(checked: number, applied: readonly PlannedTransition[]): CuratorCounts {
  const n = (k: TransitionKind) => applied.filter((t) => t.kind === k).length;
  return { checked, marked_stale: n("marked_stale"), archived: n("archived"), reactivated: n("reactivated") };
}

/** `checked=<n> stale=<n> archived=<n> reactivated=<n>` (§13.2). */
export function summaryOf(c: CuratorCounts): string {
  return `checked=${c.checked} stale=${c.marked_stale} archived=${c.archived} reactivated=${c.reactivated}`;
}

/** A row after the pass, with its new state (its candidate flags are the pass's input and stay). */
export function afterTransition(row: CandidateRow, t: PlannedTransition | undefined): CandidateRow {
  if (t === undefined) return row;
  return { ...row, lifecycle_state: t.to };
}

/**
 * Rows that need a review: candidates whose state is not pinned or archived after the pass
 * (§13.4 `review_required`). Returned in report order.
 */
export function reviewCandidates(rows: readonly CandidateRow[]): CandidateRow[] {
  return rows.filter(
    (r) =>
      (r.stale_candidate || r.archive_candidate) && r.lifecycle_state !== "pinned" && r.lifecycle_state !== "archived",
  );
}

/** How the plan is applied; injected so the pass can be tested without the sidecar module. */
export interface TransitionEffects {
  /** Adds the key to the scope's `skills.json` `disabled` (idempotent). */
  disable(name: string): Promise<void>;
  /** Records the lifecycle state in the scope's usage sidecar. */
  setState(name: string, state: CuratorTransition["to"]): Promise<void>;
}

/**
 * Applies each transition in order; archiving disables first, so a crash between the two steps
 * leaves a disabled skill whose state the next pass archives again. A failure stops the pass and
 * propagates with what was applied before it.
 */
export async function applyTransitions(
  plan: readonly PlannedTransition[],
  fx: TransitionEffects,
): Promise<PlannedTransition[]> {
  const applied: PlannedTransition[] = [];
  for (const t of plan) {
    if (t.kind === "archived") await fx.disable(t.name);
    await fx.setState(t.name, t.to);
    applied.push(t);
  }
  return applied;
}
