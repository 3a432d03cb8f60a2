/**
 * @module skills/search/limits
 * How many results `findRelevant` returns (skills.md §7.1 rule 3), without the engine: the public
 * entry re-exports it so the CLI can print the effective `max_results`.
 */

export const DEFAULT_MAX_RESULTS = 3;
export const MAX_RESULTS_CAP = 50;

/** The §7.1 rule 3 limit: default 3, capped at 50, 0 (no results) for anything else. */
export function normaliseMaxResults(v: unknown): number {
  if (v === undefined) return DEFAULT_MAX_RESULTS;
  if (typeof v !== "number" || !Number.isInteger(v) || v <= 0) return 0;
  return Math.min(v, MAX_RESULTS_CAP);
}
