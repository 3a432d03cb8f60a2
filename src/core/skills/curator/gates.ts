/**
 * @module skills/curator/gates
 * The automatic-run gates (skills.md §13.3), checked in the contract's order: `enabled`, not
 * `paused`, the interval since the last run, and the scope's idle time. A manual run knows only
 * `paused` (and `--force` lifts that).
 */
import type { CandidateRow, CuratorState } from "../../schema/curator.ts";
import type { CuratorSettings } from "../skills-config.ts";

export type CuratorGate = "disabled" | "paused" | "interval" | "not_idle";

const HOUR_MS = 3_600_000;

const timeOf = (iso: string | null | undefined): number | null => {
  if (typeof iso !== "string") return null;
  const t = Date.parse(iso);
  return Number.isFinite(t) ? t : null;
};

/** The latest load or write in the scope's sidecar, and the host's own activity when known. */
export function latestActivity(rows: readonly CandidateRow[], host: Date | null = null): number | null {
  let latest: number | null = host !== null && Number.isFinite(host.getTime()) ? host.getTime() : null;
  for (const r of rows)
    for (const t of [timeOf(r.last_loaded_at), timeOf(r.last_write_at)])
      if (t !== null && (latest === null || t > latest)) latest = t;
  return latest;
}

/** The first automatic gate that holds the run back, or null when it may run now. */
export function autoGate(
  settings: Pick<CuratorSettings, "enabled" | "intervalHours" | "minIdleHours">,
  state: CuratorState,
  activity: number | null,
  now: Date,
): CuratorGate | null {
  if (!settings.enabled) return "disabled";
  if (state.paused === true) return "paused";
  const last = timeOf(state.last_run_at);
  // A last run "in the future" (a clock set back) counts as just now: waiting is the safe side.
  if (last !== null && (now.getTime() - last) / HOUR_MS < settings.intervalHours) return "interval";
  if (activity !== null && (now.getTime() - activity) / HOUR_MS < settings.minIdleHours) return "not_idle";
  return null;
}

/** The gate of a manual run: only `paused`, lifted by `force`. */
export function manualGate(state: CuratorState, force: boolean): CuratorGate | null {
  return state.paused === true && !force ? "paused" : null;
}

/** The human line for a gated run. */
export function gateMessage(gate: CuratorGate, settings: Pick<CuratorSettings, "intervalHours" | "minIdleHours">) {
  switch (gate) {
    case "disabled":
      return "curator not run: disabled ([skills.curator] enabled = false)";
    case "paused":
      return "curator not run: paused (run 'lemon skill curator resume', or 'run --force' once)";
    case "interval":
      return `curator not run: interval (the last run was less than ${settings.intervalHours} hours ago)`;
    case "not_idle":
      return `curator not run: not_idle (skills were used less than ${settings.minIdleHours} hours ago)`;
  }
}
