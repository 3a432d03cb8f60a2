/**
 * @module skills/settings
 * `skills.json` per scope (skills.md §3): reading the effective disabled set and the enable/disable
 * transactions. Lists stay unique and sorted; unknown keys survive rewrites.
 */
import { diagnostic, type Diagnostic } from "../diagnostics.ts";
import type { LemonContext } from "../context.ts";
import { resolvePaths, type LemonPaths, type Scope } from "../paths.ts";
import { isJsonFormatError, parseJson } from "../json.ts";
import { isSkillsJson } from "../schema/skills.checks.js";
import { emptySkillsJson, MAX_SKILLS_JSON_BYTES } from "../schema/skills-data.ts";
import type { SkillsJson } from "../schema/skills-json.ts";
import { EffectiveDisabled } from "./entry.ts";
import { decodeUtf8 } from "./frontmatter.ts";
import { MSG } from "./messages.ts";
import { readRegularFile, type RegularFileProblem } from "../fsx/regular-file.ts";

/** The document of a `skills.json` text, or the reason it is invalid (the codec's reasons). */
async function parseSkillsJson(text: string): Promise<{ doc: SkillsJson } | { error: string }> {
  let raw: unknown;
  try {
    raw = parseJson(text);
  } catch (err) {
    return { error: isJsonFormatError(err) ? err.reason : "invalid JSON" };
  }
  if (isSkillsJson(raw)) return { doc: raw as SkillsJson };
  // Only an invalid file pays for TypeBox, to name the offending field.
  const [{ checkSchema }, { SkillsJson: schema }] = await Promise.all([
    import("../schema/check.ts"),
    import("../schema/skills-json.ts"),
  ]);
  return { error: checkSchema(schema, raw) ?? "invalid document" };
}

/** One scope's `skills.json`: its document, or the reason it could not be read (then the document is empty). */
export interface SettingsFile {
  file: string;
  doc: SkillsJson;
  error: string | null;
}

/** Both scopes' `skills.json` and the diagnostics of unreadable ones. */
export interface Settings {
  global: SettingsFile;
  project: SettingsFile;
  diagnostics: Diagnostic[];
}

function problemText(problem: RegularFileProblem, errno: string | null): string {
  if (problem === "not_regular") return "not a regular file";
  if (problem === "too_large") return `file exceeds ${MAX_SKILLS_JSON_BYTES} bytes`;
  return `cannot read file (${errno ?? "error"})`;
}

/**
 * Never throws and never blocks: a missing file is the empty document, anything else unreadable
 * is an error. Not fsx readDocument: for a read, a `.lemon` that is a file (ENOTDIR) means no
 * project settings, and must not fail the project's other skills closed.
 */
async function readOne(file: string): Promise<SettingsFile> {
  const read = readRegularFile(file, MAX_SKILLS_JSON_BYTES);
  if (!read.ok) {
    if (read.problem === "missing") return { file, doc: emptySkillsJson(), error: null };
    return { file, doc: emptySkillsJson(), error: problemText(read.problem, read.errno) };
  }
  const text = decodeUtf8(read.bytes);
  if (text === null) return { file, doc: emptySkillsJson(), error: "file is not valid UTF-8" };
  const parsed = await parseSkillsJson(text);
  if ("doc" in parsed) return { file, doc: parsed.doc, error: null };
  return { file, doc: emptySkillsJson(), error: parsed.error };
}

/** Both scopes' files; an unreadable one gets an `invalid_settings` error diagnostic and fails closed. */
export async function readSettings(ctx: LemonContext, paths: LemonPaths = resolvePaths(ctx)): Promise<Settings> {
  const [global, project] = await Promise.all([readOne(paths.global.skillsJson), readOne(paths.project.skillsJson)]);
  const diagnostics = [global, project]
    .filter((f) => f.error !== null)
    .map((f) => diagnostic("error", "invalid_settings", MSG.invalidSettings(f.error ?? ""), { path: f.file }));
  return { global, project, diagnostics };
}

/**
 * `(global.disabled ∪ project.disabled) − project.enabled`; global-only views use global.disabled.
 * An unreadable file contributes nothing to the lists and marks its scope as failing closed.
 */
export function effectiveDisabled(s: Settings, view: "both" | "global" | "project"): EffectiveDisabled {
  const globalInvalid = s.global.error !== null;
  if (view === "global")
    return new EffectiveDisabled(s.global.doc.disabled ?? [], { global: globalInvalid, project: false });
  const out = new Set([...(s.global.doc.disabled ?? []), ...(s.project.doc.disabled ?? [])]);
  for (const k of s.project.doc.enabled ?? []) out.delete(k);
  return new EffectiveDisabled(out, { global: globalInvalid, project: s.project.error !== null });
}

/** A key's effective state for a cwd and the file that decides it (null: no file mentions the key). */
export function keyState(s: Settings, key: string, scope: Scope): { enabled: boolean; file: string | null } {
  const disabled = effectiveDisabled(s, "both");
  if (s.global.error !== null) return { enabled: false, file: s.global.file };
  if (disabled.closes(key, scope)) return { enabled: false, file: s.project.file };
  if (s.project.doc.enabled?.includes(key)) return { enabled: true, file: s.project.file };
  if (s.project.doc.disabled?.includes(key)) return { enabled: false, file: s.project.file };
  if (s.global.doc.disabled?.includes(key)) return { enabled: false, file: s.global.file };
  return { enabled: true, file: null };
}

const sorted = (xs: Iterable<string>) => [...new Set(xs)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

/** What `setEnabled` did to the scope's file. */
export interface ToggleWrite {
  file: string;
  changed: boolean;
}

/** Applies enable/disable for one key in one scope (skills.md §3 table). */
export async function setEnabled(ctx: LemonContext, key: string, enabled: boolean, scope: Scope): Promise<ToggleWrite> {
  const p = resolvePaths(ctx);
  const file = scope === "global" ? p.global.skillsJson : p.project.skillsJson;
  // An unreadable global file might disable the key: the project then records the override
  // (it has no effect on a key the global file does not disable).
  const global = scope === "project" && enabled ? await readOne(p.global.skillsJson) : null;
  const overrides = global !== null && (global.error !== null || (global.doc.disabled ?? []).includes(key));
  const [{ update }, { skillsJsonCodec }] = await Promise.all([
    import("../fsx/update.ts"),
    import("./settings-codec.ts"),
  ]);
  const changed = await update(
    file,
    skillsJsonCodec,
    (cur) => {
      const disabled = new Set(cur.disabled ?? []);
      const enabledSet = new Set(cur.enabled ?? []);
      if (enabled) {
        disabled.delete(key);
        if (overrides) enabledSet.add(key);
      } else {
        disabled.add(key);
        if (scope === "project") enabledSet.delete(key);
      }
      const lists = { disabled: sorted(disabled), enabled: sorted(enabledSet) };
      const next: SkillsJson = { ...cur, version: cur.version ?? 1, ...lists };
      const same = JSON.stringify(next) === JSON.stringify(cur);
      return { next: same ? undefined : next, result: !same };
    },
    {
      command: enabled ? "skill enable" : "skill disable",
      now: ctx.now,
      confineTo: scope === "project" ? ctx.cwd : null,
    },
  );
  return { file, changed };
}
