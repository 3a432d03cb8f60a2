/**
 * @module skills/entry
 * The Entry object of skills.md §5.1 and the live activation state of §5.2: disabled, platform,
 * blocked, missing requirements — computed from the current environment on every call.
 */
import type { LemonContext } from "../context.ts";
import type { Scope } from "../paths.ts";
import type { ValidRecord } from "./load.ts";
import type { RootLabel } from "./roots.ts";

/** Ascending by key (UTF-16 order, as every listing sorts). */
export const byKey = <T extends { key: string }>(a: T, b: T): number => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);

/** skills.md §5.2 activation states. */
export type ActivationState = "active" | "not_ready" | "disabled" | "platform_incompatible" | "blocked";

/** Requirements missing right now (skills.md §5.2). */
export interface Missing {
  bins: string[];
  env: string[];
  tools: string[];
}

/** The Entry of skills.md §5.1, field names as in `--json`. */
export interface SkillEntry {
  key: string;
  name: string;
  description: string;
  scope: Scope;
  root: string;
  root_label: RootLabel;
  path: string;
  real_path: string;
  category: string | null;
  hidden: boolean;
  enabled: boolean;
  activation_state: ActivationState;
  missing: Missing;
  unchecked_tools: string[];
  superseded: boolean;
  platforms: string[];
  tags: string[];
  keywords: string[];
  manifest_version: 1 | 2;
  source_kind: string | null;
  source_id: string | null;
  trust_level: string | null;
  audit_status: string | null;
  content_hash: string;
  bundle_hash: string | null;
  locally_modified: boolean | null;
  /** Present only when a `skills.json` that cannot be read decided the state (skills.md §1.3 rule 4). */
  disabled_by?: "invalid_settings";
}

/** camelCase live readiness of cli.md §7. */
export interface SkillStatus {
  key: string;
  ready: boolean;
  activationState: ActivationState;
  disabled: boolean;
  platformCompatible: boolean;
  missingBins: string[];
  missingEnv: string[];
  missingTools: string[];
  uncheckedTools: string[];
}

/** Provenance from the lock record of the entry's own scope (skills/provenance.ts); null fields for unmanaged skills. */
export interface Provenance {
  source_kind: string | null;
  source_id: string | null;
  trust_level: string | null;
  audit_status: string | null;
  /** The bundle hash the record was installed with (the current one is computed by inspect/check). */
  bundle_hash: string | null;
  /** `audit_status: block` without an override naming the bundle on disk (skills.md §5.2 rule 3). */
  blocked: boolean;
}

/** Provenance of an unmanaged skill: every field null. */
export const NO_PROVENANCE: Provenance = {
  source_kind: null,
  source_id: null,
  trust_level: null,
  audit_status: null,
  bundle_hash: null,
  blocked: false,
};

/**
 * The effective disabled set of a view (skills.md §3) plus the scopes whose `skills.json` could not
 * be read. Those fail closed (§1.3 rule 4): an unreadable global file disables every skill; an
 * unreadable project file disables the project's skills and every key its `enabled` list might have
 * re-enabled (the keys of the set, which then holds only the global file's `disabled`).
 */
export class EffectiveDisabled extends Set<string> {
  constructor(
    keys: Iterable<string>,
    readonly invalid: { readonly global: boolean; readonly project: boolean } = { global: false, project: false },
  ) {
    super(keys);
  }

  /** True when the key's state is decided by failing closed rather than by a list. */
  closes(key: string, scope: Scope): boolean {
    return this.invalid.global || (this.invalid.project && (scope === "project" || this.has(key)));
  }
}

/** True when `platforms` holds `any` or the current platform (skills.md §5.2 rule 2). */
export function platformCompatible(platforms: readonly string[], current: string): boolean {
  if (platforms.includes("any")) return true;
  const p = current === "linux" || current === "darwin" || current === "win32" ? current : null;
  return p !== null && platforms.includes(p);
}

const dedupe = (xs: string[]) => [...new Set(xs)];

/**
 * PATH lookups of one listing: many skills need the same few binaries, so one call looks each up
 * once. Create one per call; it must not outlive it (readiness is live).
 */
export type BinLookup = Map<string, boolean>;

/** Missing bins, env vars and tools, unchecked tools and `superseded` (skills.md §5.2); `bins` caches PATH lookups. */
function computeMissing(
  rec: ValidRecord,
  ctx: LemonContext,
  bins: BinLookup = new Map(),
): { missing: Missing; unchecked: string[]; superseded: boolean } {
  const m = rec.manifest;
  const PATH = ctx.env.PATH ?? ctx.env.Path ?? "";
  const found = (b: string) => {
    let hit = bins.get(b);
    if (hit === undefined) bins.set(b, (hit = Bun.which(b, { PATH }) !== null));
    return hit;
  };
  const missingBins = m.requires.bins.filter((b) => !found(b));
  const env = dedupe([...m.requires.config, ...m.required_environment_variables]).filter((n) => {
    const v = ctx.env[n];
    return v === undefined || v === "";
  });
  const tools = ctx.availableTools;
  const missingTools = tools ? m.requires_tools.filter((t) => !tools.includes(t)) : [];
  const unchecked = tools ? [] : [...m.requires_tools];
  const fallback = m.fallback_for_tools;
  const superseded = tools !== null && fallback.length > 0 && fallback.every((t) => tools.includes(t));
  return { missing: { bins: missingBins, env, tools: missingTools }, unchecked, superseded };
}

/** The live Entry of a valid record; `prov` defaults to {@link NO_PROVENANCE}, `bins` to a fresh lookup. */
export function toEntry(
  rec: ValidRecord,
  ctx: LemonContext,
  disabled: ReadonlySet<string>,
  prov: Provenance = NO_PROVENANCE,
  bins?: BinLookup,
): SkillEntry {
  const c = rec.candidate;
  const m = rec.manifest;
  const { missing, unchecked, superseded } = computeMissing(rec, ctx, bins);
  const closed = disabled instanceof EffectiveDisabled && disabled.closes(c.key, c.root.scope);
  const isDisabled = closed || disabled.has(c.key);
  let state: ActivationState;
  if (isDisabled) state = "disabled";
  else if (!platformCompatible(m.platforms, ctx.platform)) state = "platform_incompatible";
  else if (prov.blocked) state = "blocked";
  else if (missing.bins.length + missing.env.length + missing.tools.length > 0) state = "not_ready";
  else state = "active";
  return {
    key: c.key,
    name: m.name ?? c.key,
    description: m.description ?? "",
    scope: c.root.scope,
    root: c.root.path,
    root_label: c.root.label,
    path: c.path,
    real_path: c.realPath,
    category: m.category ?? c.category,
    hidden: m.hide,
    enabled: !isDisabled,
    activation_state: state,
    missing,
    unchecked_tools: unchecked,
    superseded,
    platforms: m.platforms,
    tags: m.tags,
    keywords: m.keywords,
    manifest_version: m.manifest_version,
    source_kind: prov.source_kind,
    source_id: prov.source_id,
    trust_level: prov.trust_level,
    audit_status: prov.audit_status,
    content_hash: rec.contentHash,
    bundle_hash: prov.bundle_hash,
    locally_modified: null,
    ...(closed ? { disabled_by: "invalid_settings" as const } : {}),
  };
}

/** Displayable = active or not_ready, not hidden, not superseded (skills.md §5.2). */
export function isDisplayable(e: SkillEntry): boolean {
  return (e.activation_state === "active" || e.activation_state === "not_ready") && !e.hidden && !e.superseded;
}

/** The camelCase `SkillStatus` of cli.md §7 for an Entry. */
export function toStatus(e: SkillEntry, platform: string): SkillStatus {
  return {
    key: e.key,
    ready: e.activation_state === "active",
    activationState: e.activation_state,
    disabled: !e.enabled,
    platformCompatible: platformCompatible(e.platforms, platform),
    missingBins: e.missing.bins,
    missingEnv: e.missing.env,
    missingTools: e.missing.tools,
    uncheckedTools: e.unchecked_tools,
  };
}
