/**
 * @module skills/toggle
 * `enable` / `disable` (skills.md §3, cli.md §2.15): the key's place in a scope's disabled list,
 * and the state it ends up in once both scopes' `skills.json` are considered. The registry hands
 * in the discovery of the cwd, so this module never scans.
 */
import { withCwd, type LemonContext } from "../context.ts";
import { invalidParams, notFound } from "../errors.ts";
import type { Scope } from "../paths.ts";
import type { Discovery } from "./catalog.ts";
import type { SkillRecord } from "./load.ts";
import { escapeKey, keyProblem } from "./skill-key.ts";

/** Options of `enable` / `disable`. */
export interface ToggleOptions {
  /** Project directory (default: the instance's cwd). */
  cwd?: string;
  /** Global scope (default true); false writes the project's `skills.json`. */
  global?: boolean;
  /**
   * Refuse a key no root holds with NOT_FOUND (default false: skills.md §3 records it for when the
   * skill appears). The CLI sets it unless `--force` (cli.md §2.15).
   */
  requireDiscovered?: boolean;
}

/** The result of `enable` / `disable`, as cli.md §2.15's JSON. */
export interface ToggleResult {
  key: string;
  scope: Scope;
  /** The `skills.json` written (or left unchanged). */
  file: string;
  /** The key's effective state after the change, both scopes considered. */
  enabled: boolean;
  changed: boolean;
  /** The other scope's file when it still decides otherwise. */
  effective_by?: string;
}

/** Keys are directory names: no separators or NUL, not `.`/`..`, at most 255 characters. */
const KEY_PATTERN = /^[^/\\\0]+$/;

/** INVALID_PARAMS unless `key` could name a skill directory whose name is a valid key (skill-key.ts). */
function assertKey(key: string): void {
  const bad = typeof key !== "string" || key === "" || key === "." || key === "..";
  if (bad || !KEY_PATTERN.test(key) || key.length > 255) throw invalidParams(`invalid skill key '${escapeKey(key)}'`);
  const problem = keyProblem(key);
  if (problem !== null) throw invalidParams(problem);
}

/** Every candidate discovery found: effective, shadowed and invalid (lint and enable/disable look at all). */
export const everyRecord = (d: Discovery): SkillRecord[] => [
  ...d.effective.values(),
  ...d.shadowed.map((s) => s.record),
  ...d.invalid,
];

/** Enables or disables `key` in the scope `opts.global` names; `discover` gives the cwd's discovery. */
export async function toggleSkill(
  base: LemonContext,
  key: string,
  enabled: boolean,
  opts: ToggleOptions,
  discover: () => Promise<Discovery>,
): Promise<ToggleResult> {
  assertKey(key);
  const ctx = withCwd(base, opts.cwd);
  const scope: Scope = opts.global === false ? "project" : "global";
  const d = await discover();
  const found = everyRecord(d).filter((r) => r.candidate.key === key);
  if (found.length === 0 && opts.requireDiscovered === true)
    throw notFound(`skill '${key}' not found; use --force to record it anyway`);
  const { setEnabled, readSettings, keyState } = await import("./settings.ts");
  const write = await setEnabled(ctx, key, enabled, scope);
  // The scope of the skill the key names decides how a failing-closed file applies to it.
  const keyScope = d.effective.get(key)?.candidate.root.scope ?? found[0]?.candidate.root.scope ?? "global";
  const state = keyState(await readSettings(ctx), key, keyScope);
  const decidedElsewhere = state.enabled !== enabled && state.file !== write.file ? state.file : null;
  return {
    key,
    scope,
    file: write.file,
    enabled: state.enabled,
    changed: write.changed,
    ...(decidedElsewhere !== null ? { effective_by: decidedElsewhere } : {}),
  };
}
