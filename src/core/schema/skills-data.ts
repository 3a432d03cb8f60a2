/**
 * @module schema/skills-data
 * The plain data of the skills formats, without TypeBox: the manifest's field names and custom
 * string formats (skills.md §4.2–§4.4) and the empty `skills.json`. The TypeBox schemas
 * (manifest.ts, skills-json.ts) and the checks generated from them (skills.checks.js) both use
 * these, so a listing validates manifests without loading TypeBox.
 */
import { charCount, isSafeText, utf8Bytes } from "../text.ts";

/** The custom string formats of the manifest schemas, by format name. */
export const FORMATS: Readonly<Record<string, (s: string) => boolean>> = {
  "lemon-safe-128b": (s) => isSafeText(s) && utf8Bytes(s) <= 128,
  "lemon-safe-64b": (s) => isSafeText(s) && utf8Bytes(s) <= 64,
  "lemon-description": (s) => isSafeText(s) && charCount(s) <= 1024 && utf8Bytes(s) <= 4096,
};

/** Whether `value` has the custom format `name` (false for an unknown format, as TypeBox says). */
export function checkFormat(name: string, value: string): boolean {
  const f = Object.hasOwn(FORMATS, name) ? FORMATS[name] : undefined;
  return f?.(value) === true;
}

/** Top-level keys of §4.2 (and the normalisation inputs of §4.3). */
export const MANIFEST_FIELDS: ReadonlySet<string> = new Set([
  "name",
  "description",
  "version",
  "author",
  "tags",
  "keywords",
  "hide",
  "disable-model-invocation",
  "disableModelInvocation",
  "requires",
  "platforms",
  "metadata",
  "requires_tools",
  "fallback_for_tools",
  "required_environment_variables",
  "verification",
  "references",
  "prerequisites",
]);

/** Keys of `requires` (§4.2); any other is kept without effect and reported by lint (§4.3 item 7). */
export const REQUIRES_FIELDS: ReadonlySet<string> = new Set(["bins", "config"]);

/** Foreign keys lint does not report as unknown (skills.md §15.1). */
export const KNOWN_FOREIGN_FIELDS: ReadonlySet<string> = new Set([
  "license",
  "compatibility",
  "allowed-tools",
  "argument-hint",
  "user-invocable",
  "metadata",
]);

/** Keys that make a manifest v2 (skills.md §4.2), beside `metadata.lemon`. */
export const V2_FIELDS: readonly string[] = [
  "platforms",
  "requires_tools",
  "fallback_for_tools",
  "required_environment_variables",
  "verification",
  "references",
];

/** `skills.json` is at most 1 MiB, for reads and rewrites alike (lemon's own state files). */
export const MAX_SKILLS_JSON_BYTES = 1024 * 1024;

/** The `skills.json` document a missing file reads as (skills.md §3). */
export const emptySkillsJson = (): { version: number; disabled: string[]; enabled: string[] } => ({
  version: 1,
  disabled: [],
  enabled: [],
});
