/**
 * @module skills/settings
 * `skills.json` per scope (skills.md §3): reading the effective disabled set and the enable/disable
 * transactions. Lists stay unique and sorted; unknown keys survive rewrites.
 */
import { diagnostic, type Diagnostic } from "../diagnostics.ts";
import { jsonCodec, readDocument, update } from "../fsx/update.ts";
import type { LemonContext } from "../context.ts";
import { resolvePaths, type Scope } from "../paths.ts";
import { emptySkillsJson, SkillsJson } from "../schema/skills-json.ts";
import { MSG } from "./messages.ts";

export const skillsJsonCodec = jsonCodec(SkillsJson, emptySkillsJson);

export interface Settings {
  global: SkillsJson;
  project: SkillsJson;
  diagnostics: Diagnostic[];
}

async function readOne(file: string, diagnostics: Diagnostic[]): Promise<SkillsJson> {
  try {
    return await readDocument(file, skillsJsonCodec);
  } catch (err) {
    diagnostics.push(diagnostic("warn", "invalid_settings", MSG.invalidSettings((err as Error).message), { path: file }));
    return emptySkillsJson();
  }
}

export async function readSettings(ctx: LemonContext): Promise<Settings> {
  const p = resolvePaths(ctx);
  const diagnostics: Diagnostic[] = [];
  const [global, project] = await Promise.all([readOne(p.global.skillsJson, diagnostics), readOne(p.project.skillsJson, diagnostics)]);
  return { global, project, diagnostics };
}

/** `(global.disabled ∪ project.disabled) − project.enabled`; global-only views use global.disabled. */
export function effectiveDisabled(s: Settings, view: "both" | "global" | "project"): Set<string> {
  if (view === "global") return new Set(s.global.disabled ?? []);
  const out = new Set([...(s.global.disabled ?? []), ...(s.project.disabled ?? [])]);
  for (const k of s.project.enabled ?? []) out.delete(k);
  return out;
}

const sorted = (xs: Iterable<string>) => [...new Set(xs)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

export interface ToggleResult {
  file: string;
  changed: boolean;
}

/** Applies enable/disable for one key in one scope (skills.md §3 table). */
export async function setEnabled(ctx: LemonContext, key: string, enabled: boolean, scope: Scope): Promise<ToggleResult> {
  const p = resolvePaths(ctx);
  const file = scope === "global" ? p.global.skillsJson : p.project.skillsJson;
  let globalDisabled: string[] = [];
  if (scope === "project" && enabled) {
    const diags: Diagnostic[] = [];
    globalDisabled = (await readOne(p.global.skillsJson, diags)).disabled ?? [];
  }
  const changed = await update(
    file,
    skillsJsonCodec,
    (cur) => {
      const disabled = new Set(cur.disabled ?? []);
      const enabledSet = new Set(cur.enabled ?? []);
      if (enabled) {
        disabled.delete(key);
        if (scope === "project" && globalDisabled.includes(key)) enabledSet.add(key);
      } else {
        disabled.add(key);
        if (scope === "project") enabledSet.delete(key);
      }
      const next: SkillsJson = { ...cur, version: cur.version ?? 1, disabled: sorted(disabled), enabled: sorted(enabledSet) };
      const same = JSON.stringify(next) === JSON.stringify(cur);
      return { next: same ? undefined : next, result: !same };
    },
    {
      command: enabled ? "skill enable" : "skill disable",
      now: ctx.now,
      ...(scope === "project" ? { confineTo: ctx.cwd } : {}),
    },
  );
  return { file, changed };
}
