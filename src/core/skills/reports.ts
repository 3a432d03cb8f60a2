/**
 * @module skills/reports
 * The check-style reports over one catalog view: `check` (skills.md §15.2, cli.md §2.4) and
 * `inspect` (cli.md §2.3). Field names are the contract's JSON names, so the CLI prints them as
 * they are. Values lemon cannot know yet are `null`, never a guess.
 */
import type { Diagnostic } from "../diagnostics.ts";
import { invalidRequest, notFound } from "../errors.ts";
import type { Manifest, Reference } from "../schema/manifest.ts";
import type { Discovery } from "./catalog.ts";
import { byKey, type SkillEntry } from "./entry.ts";
import type { InvalidRecord } from "./load.ts";
import { updateAvailable, type LockRecord } from "./lockfile.ts";
import { escapeKey } from "./skill-key.ts";

/** One row of `check` (cli.md §2.4). */
export interface SkillCheck {
  key: string;
  state: SkillEntry["activation_state"] | "invalid";
  missing: SkillEntry["missing"];
  unchecked_tools: string[];
  /** Why the SKILL.md is invalid; null for a valid skill. */
  invalid: { code: string; message: string; path: string } | null;
  /** Current bundle hash against the lock's; null without an install record. */
  locally_modified: boolean | null;
  /** What the last `update --check` recorded; null without a record or before any check. */
  update_available: boolean | null;
  /** Whether the security override names the bundle on disk; null without an override. */
  override_valid: boolean | null;
}

/** `check`'s document: `ok` is false when a checked skill is invalid or blocked, or a skills.json is unreadable. */
export interface CheckReport {
  ok: boolean;
  checks: SkillCheck[];
  diagnostics: Diagnostic[];
}

/** The manifest section of `inspect` (cli.md §2.3). */
export interface InspectManifest {
  name: string;
  description: string;
  platforms: string[];
  requires: Manifest["requires"];
  requires_tools: string[];
  fallback_for_tools: string[];
  required_environment_variables: string[];
  references: Reference[];
  verification: Manifest["verification"];
  tags: string[];
  keywords: string[];
  unknown_fields: string[];
}

/** `inspect`'s `skill` object: the Entry plus manifest, lock and on-demand hashes (cli.md §2.3). */
export interface SkillInspection extends SkillEntry {
  manifest: InspectManifest;
  /** The install record (install.md §6) of the skill's own scope and location; null for unmanaged skills. */
  lock: LockRecord | null;
  /** The bundle hash of the skill directory as it is now (install.md §7.2). */
  current_bundle_hash: string;
  locally_modified: boolean | null;
  override_valid: boolean | null;
  /** As in `check`: what the last `update --check` recorded. */
  update_available: boolean | null;
}

/** What check and inspect need beyond the view: each entry's record and the bundle hash now. */
export interface DriftSource {
  record(e: SkillEntry): LockRecord | null;
  /** The bundle hash of a directory now; null when it cannot be computed (unreadable, over the caps). */
  bundleHash(dir: string): Promise<string | null>;
}

/** The drift fields of one entry (install.md §6 "Drift", §8 step 4); hashes only a managed skill. */
export interface Drift {
  record: LockRecord | null;
  current: string | null;
  locally_modified: boolean | null;
  update_available: boolean | null;
  /** Why `update_available` is null for a managed skill. */
  update_reason: string | null;
  override_valid: boolean | null;
}

export async function driftOf(e: SkillEntry, src: DriftSource, current?: string | null): Promise<Drift> {
  const record = src.record(e);
  if (record === null) {
    return {
      record,
      current: current ?? null,
      locally_modified: null,
      update_available: null,
      update_reason: null,
      override_valid: null,
    };
  }
  const now = current !== undefined ? current : await src.bundleHash(e.real_path);
  const update = updateAvailable(record);
  const override = record.security_override;
  return {
    record,
    current: now,
    // A bundle that cannot be hashed is not the one installed.
    locally_modified: record.bundle_hash === null ? null : now !== record.bundle_hash,
    update_available: update.value,
    update_reason: update.reason,
    override_valid: override === null ? null : now !== null && now === override.bundle_hash,
  };
}

/** An entry whose override turned out void since the view was built is blocked now. */
function stateWith(e: SkillEntry, d: Drift): SkillEntry["activation_state"] {
  const blockedNow = d.record?.audit_status === "block" && d.override_valid !== true;
  const earlier = e.activation_state === "disabled" || e.activation_state === "platform_incompatible";
  return blockedNow && !earlier ? "blocked" : e.activation_state;
}

const notFoundError = (key: string) =>
  notFound(`Skill '${key}' not found`, { hint: `run 'lemon skill list' or 'lemon skill search ${key}'` });

function fromEntry(e: SkillEntry, d: Drift): SkillCheck {
  return {
    key: e.key,
    state: stateWith(e, d),
    missing: e.missing,
    unchecked_tools: e.unchecked_tools,
    invalid: null,
    locally_modified: d.locally_modified,
    update_available: d.update_available,
    override_valid: d.override_valid,
  };
}

function fromInvalid(r: InvalidRecord): SkillCheck {
  return {
    key: r.candidate.key,
    state: "invalid",
    missing: { bins: [], env: [], tools: [] },
    unchecked_tools: [],
    invalid: { code: r.code, message: r.message, path: r.candidate.skillFile },
    locally_modified: null,
    update_available: null,
    override_valid: null,
  };
}

/** Readiness and validity of one key (NOT_FOUND when no root holds it) or of every discovered skill. */
export async function checkReport(
  discovery: Discovery,
  entries: readonly SkillEntry[],
  diagnostics: Diagnostic[],
  key: string | undefined,
  drift: DriftSource,
): Promise<CheckReport> {
  const checks: SkillCheck[] = [];
  const row = async (e: SkillEntry) => fromEntry(e, await driftOf(e, drift));
  if (key !== undefined) {
    const e = entries.find((x) => x.key === key);
    if (e) checks.push(await row(e));
    else {
      const bad = discovery.invalid.filter((r) => r.candidate.key === key);
      if (bad.length === 0) throw notFoundError(key);
      checks.push(...bad.map(fromInvalid));
    }
  } else {
    checks.push(...(await Promise.all(entries.map(row))), ...discovery.invalid.map(fromInvalid));
    checks.sort(byKey);
  }
  // An unreadable skills.json fails the check (skills.md §1.3 rule 4): its diagnostic names the file.
  const failed = checks.some((c) => c.state === "invalid" || c.state === "blocked");
  const ok = !failed && !diagnostics.some((d) => d.code === "invalid_settings");
  return { ok, checks, diagnostics };
}

/**
 * Everything about one effective skill; `bundleHash` computes the current bundle hash of a
 * directory. A key held only by invalid SKILL.md files is INVALID_REQUEST saying why.
 */
export async function inspection(
  discovery: Discovery,
  entries: readonly SkillEntry[],
  key: string,
  bundleHash: (dir: string) => Promise<string>,
  record: (e: SkillEntry) => LockRecord | null = () => null,
): Promise<SkillInspection> {
  const rec = discovery.effective.get(key);
  const entry = entries.find((e) => e.key === key);
  if (!rec || !entry) {
    const bad = discovery.invalid.find((r) => r.candidate.key === key);
    // Escaped: sanitising the message would strip what may be exactly why the key is invalid.
    if (bad) throw invalidRequest(`skill '${escapeKey(key)}' is invalid: ${bad.code}: ${bad.message}`);
    throw notFoundError(key);
  }
  const m = rec.manifest;
  // The current hash is shown for every skill, so a failure to compute it is the command's error.
  const current = await bundleHash(entry.path);
  const d = await driftOf(entry, { record, bundleHash }, current);
  return {
    ...entry,
    activation_state: stateWith(entry, d),
    manifest: {
      name: m.name ?? entry.key,
      description: m.description ?? "",
      platforms: m.platforms,
      requires: m.requires,
      requires_tools: m.requires_tools,
      fallback_for_tools: m.fallback_for_tools,
      required_environment_variables: m.required_environment_variables,
      references: m.references,
      verification: m.verification,
      tags: m.tags,
      keywords: m.keywords,
      unknown_fields: m.unknown_fields,
    },
    lock: d.record,
    current_bundle_hash: current,
    locally_modified: d.locally_modified,
    override_valid: d.override_valid,
    update_available: d.update_available,
  };
}
