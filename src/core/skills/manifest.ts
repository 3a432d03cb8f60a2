/**
 * @module skills/manifest
 * Normalises and validates a parsed frontmatter mapping into a Manifest (skills.md §4.3–§4.4).
 * The first failing rule wins; normalisation repairs are reported as lint warnings.
 */
import type { Manifest, Reference } from "../schema/manifest.ts";
import { manifestChecks } from "../schema/skills.checks.js";
import { checkFormat, MANIFEST_FIELDS, V2_FIELDS } from "../schema/skills-data.ts";
import { isSafeText, utf8Bytes } from "../text.ts";

// The rules of schema/manifest.ts as generated functions: no TypeBox on the listing path.
const CHECKS = manifestChecks(checkFormat);
/** Each rule's field path, split once: the rules run for every SKILL.md of a listing. */
const RULES = CHECKS.fields.map((rule) => ({ ...rule, path: rule.field.split(".") }));

/** A normalisation repair (skills.md §4.3), reported by lint under its code. */
export interface ManifestWarning {
  code: "list_item_dropped" | "description_multiline" | "value_coerced";
  message: string;
}

/** The manifest, or the first validation message; `raw` is the normalised mapping either way. */
export type ManifestResult =
  | { ok: true; manifest: Manifest; warnings: ManifestWarning[]; raw: Record<string, unknown> }
  | { ok: false; message: string; warnings: ManifestWarning[]; raw: Record<string, unknown> };

type Obj = Record<string, unknown>;
const isMap = (v: unknown): v is Obj =>
  v !== null && typeof v === "object" && !Array.isArray(v) && !(v instanceof Date);

// The helpers below run for every value of every SKILL.md of a cold listing. A small function
// called a few dozen times is compiled by the JIT, which costs more than the whole run of it:
// scalars are handled inline, without a call.

/** Null values are absent (skills.md §4.1 rule 6), at every level of the mapping. */
function dropNulls(v: unknown): unknown {
  if (Array.isArray(v)) return v.map((x) => (x !== null && typeof x === "object" ? dropNulls(x) : x));
  if (isMap(v)) {
    const out: Obj = {};
    for (const [k, x] of Object.entries(v)) {
      if (x === null || x === undefined) continue;
      const value = typeof x === "object" ? dropNulls(x) : x;
      Object.defineProperty(out, k, { value, enumerable: true, writable: true, configurable: true });
    }
    return out;
  }
  return v;
}

/** The value at a dotted `path` (or its parts), undefined when a step is not a mapping. */
function get(obj: Obj, path: string | readonly string[]): unknown {
  let cur: unknown = obj;
  for (const part of typeof path === "string" ? path.split(".") : path) {
    if (cur === null || typeof cur !== "object" || Array.isArray(cur) || cur instanceof Date) return undefined;
    cur = (cur as Obj)[part];
  }
  return cur;
}

function ensureMap(obj: Obj, key: string): Obj | null {
  const v = obj[key];
  if (v === undefined) {
    const m: Obj = {};
    obj[key] = m;
    return m;
  }
  return isMap(v) ? v : null;
}

/**
 * How a number was written: `version: 1.10` parses as 1.1, but the author meant "1.10". The
 * header's own top-level line holds the text (TOML: before its first table); without a header
 * (or on a line the scan cannot read) the number's shortest spelling stands in.
 */
function numberSource(header: string, key: string, value: number): string {
  for (const line of header.split(/\r?\n/)) {
    if (/^\s*\[/.test(line)) break;
    if (!line.startsWith(key)) continue;
    const m = /^[ \t]*[:=][ \t]*([^\s#,]+)/.exec(line.slice(key.length));
    if (m && Number(m[1]!.replace(/_/g, "")) === value) return m[1]!;
  }
  return String(value);
}

/** skills.md §4.3 item 7: what real skills write that the contract reads leniently. */
function coerce(m: Obj, raw: Record<string, unknown>, header: string, warnings: ManifestWarning[]): void {
  if (raw.requires === null || (Array.isArray(raw.requires) && raw.requires.length === 0)) {
    delete m.requires;
    const what = raw.requires === null ? "null" : "an empty list";
    warnings.push({ code: "value_coerced", message: `requires: ${what} counts as absent` });
  }
  if (typeof m.version === "number") {
    const text = numberSource(header, "version", m.version);
    warnings.push({ code: "value_coerced", message: `version: the number ${text} is taken as the string "${text}"` });
    m.version = text;
  }
}

function normalise(m: Obj, warnings: ManifestWarning[]): void {
  // 1. platform aliases
  if (Array.isArray(m.platforms)) {
    const seen: unknown[] = [];
    for (const p of m.platforms) {
      const v = typeof p === "string" ? (({ macos: "darwin", windows: "win32" } as Obj)[p.toLowerCase()] ?? p) : p;
      if (!seen.includes(v)) seen.push(v);
    }
    m.platforms = seen;
  }
  // 2. free-text requires (Hermes)
  if (typeof m.requires === "string") {
    m.hermes_requires = m.requires;
    delete m.requires;
  }
  const hermes = isMap(m.metadata) && isMap(m.metadata.hermes) ? m.metadata.hermes : undefined;
  // 3. prerequisites
  const hermesPrereq = hermes && isMap(hermes.prerequisites) ? hermes.prerequisites : undefined;
  const prereq = isMap(m.prerequisites) ? m.prerequisites : hermesPrereq;
  if (prereq) {
    if (prereq.commands !== undefined && (m.requires === undefined || isMap(m.requires))) {
      const req = ensureMap(m, "requires");
      if (req && req.bins === undefined) req.bins = prereq.commands;
    }
    if (prereq.env_vars !== undefined) {
      const req = m.requires === undefined || isMap(m.requires) ? ensureMap(m, "requires") : null;
      if (req && req.config === undefined) req.config = prereq.env_vars;
      if (m.required_environment_variables === undefined) m.required_environment_variables = prereq.env_vars;
    }
  }
  // 4. Hermes metadata fills absent fields
  if (hermes) {
    if (m.tags === undefined && hermes.tags !== undefined) m.tags = hermes.tags;
    if (hermes.category !== undefined && get(m, "metadata.lemon.category") === undefined) {
      const meta = m.metadata as Obj;
      const lemon = ensureMap(meta, "lemon");
      if (lemon) lemon.category = hermes.category;
    }
    if (m.requires_tools === undefined && hermes.requires_tools !== undefined) m.requires_tools = hermes.requires_tools;
    if (m.fallback_for_tools === undefined && hermes.fallback_for_tools !== undefined)
      m.fallback_for_tools = hermes.fallback_for_tools;
  }
  // 5. required_environment_variables: strings or {name, optional?}
  if (Array.isArray(m.required_environment_variables)) {
    const out: unknown[] = [];
    let bad = false;
    for (const item of m.required_environment_variables) {
      if (typeof item === "string") out.push(item);
      else if (isMap(item)) {
        if (item.optional === true) continue;
        if (item.name !== undefined) out.push(item.name);
        else bad = true;
      } else bad = true;
    }
    // An unusable item makes the whole field invalid; a non-list value fails validation below.
    m.required_environment_variables = bad ? [null] : out;
  }
  // 6. description folding
  if (typeof m.description === "string") {
    let d = m.description.replace(/\r?\n$/, "");
    if (/[\r\n]/.test(d)) {
      d = d.replace(/[\r\n]+/g, " ");
      warnings.push({ code: "description_multiline", message: "description was folded from several lines" });
    }
    m.description = d;
  }
  // 7. tags / keywords repair
  for (const field of ["tags", "keywords"] as const) {
    if (m[field] === undefined) continue;
    let list: unknown[];
    const v = m[field];
    if (typeof v === "string")
      list = v
        .split(",")
        .map((s) => s.trim())
        .filter((s) => s !== "");
    else if (Array.isArray(v)) list = v;
    else {
      list = [];
      warnings.push({ code: "list_item_dropped", message: `${field} is not a list; treated as empty` });
    }
    const kept = list.filter((x): x is string => typeof x === "string" && isSafeText(x) && utf8Bytes(x) <= 128);
    const dropped = list.length - kept.length;
    if (dropped > 0) {
      const message = `${field}: dropped ${dropped} item(s) that are not safe strings of at most 128 bytes`;
      warnings.push({ code: "list_item_dropped", message });
    }
    if (kept.length > 32)
      warnings.push({ code: "list_item_dropped", message: `${field}: cut from ${kept.length} to 32 items` });
    m[field] = kept.slice(0, 32).map((s) => s.trim());
  }
}

function validate(m: Obj): string | null {
  for (const rule of RULES) {
    // Most rules name a top-level field: read it here rather than through get().
    const v = rule.path.length === 1 ? m[rule.field] : get(m, rule.path);
    if (v === undefined) continue;
    // No manifest field takes a TOML datetime, and a Date would pass the map schema.
    if (v instanceof Date || !rule.check(v)) return rule.message;
  }
  const ver = m.verification;
  if (isMap(ver)) {
    for (const [k, check] of Object.entries(CHECKS.verification)) {
      if (ver[k] !== undefined && !check(ver[k])) return `verification.${k} has the wrong type`;
    }
  }
  return null;
}

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : []);

/**
 * Normalises and validates a parsed frontmatter mapping (skills.md §4.3–§4.4). `header` is the
 * frontmatter's text (default none), which a numeric `version` is read back from.
 */
export function buildManifest(data: Record<string, unknown>, header = ""): ManifestResult {
  const warnings: ManifestWarning[] = [];
  const m = dropNulls(data) as Obj;
  coerce(m, data, header, warnings);
  normalise(m, warnings);
  const problem = validate(m);
  if (problem !== null) return { ok: false, message: problem, warnings, raw: m };
  const requires = isMap(m.requires) ? m.requires : {};
  const config = strings(requires.config);
  const hide = m.hide === true || m["disable-model-invocation"] === true || m.disableModelInvocation === true;
  const verification = isMap(m.verification)
    ? {
        ...(typeof m.verification.command === "string" ? { command: m.verification.command } : {}),
        expect_exit: typeof m.verification.expect_exit === "number" ? m.verification.expect_exit : 0,
        ...(typeof m.verification.expect_output === "string" ? { expect_output: m.verification.expect_output } : {}),
      }
    : null;
  const category = get(m, "metadata.lemon.category");
  const v2 = V2_FIELDS.some((f) => m[f] !== undefined) || get(m, "metadata.lemon") !== undefined;
  const manifest: Manifest = {
    name: typeof m.name === "string" ? m.name : null,
    description: typeof m.description === "string" ? m.description : null,
    version: typeof m.version === "string" ? m.version : null,
    hide,
    tags: strings(m.tags),
    keywords: strings(m.keywords),
    requires: { bins: strings(requires.bins), config },
    platforms: m.platforms === undefined ? ["any"] : strings(m.platforms),
    category: typeof category === "string" ? category : null,
    synthesized: get(m, "metadata.lemon.synthesized") === true,
    requires_tools: strings(m.requires_tools),
    fallback_for_tools: strings(m.fallback_for_tools),
    required_environment_variables:
      m.required_environment_variables === undefined ? config : strings(m.required_environment_variables),
    verification,
    references: Array.isArray(m.references) ? (m.references as Reference[]) : [],
    manifest_version: v2 ? 2 : 1,
    unknown_fields: Object.keys(m).filter((k) => !MANIFEST_FIELDS.has(k) && k !== "hermes_requires"),
  };
  return { ok: true, manifest, warnings, raw: m };
}
