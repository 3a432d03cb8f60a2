/**
 * @module skills/provenance
 * What a scope's `skills.lock.json` says about the skills discovery found (skills.md §5.1,
 * §5.2 rule 3, install.md §4.8, §6, §8): a record describes the skill at its recorded location
 * only (same key, the root of its `agent` label in the same scope, directly in that root), never
 * a same-named skill elsewhere.
 *
 * A project's lockfile arrives with the clone, so it can only ever take trust away: its `block`
 * blocks, but nothing it says makes a skill more trusted than having no record. An override
 * there counts only when it names the bundle on disk, as in the global lock, which leaves a
 * forged one exactly as good as no record at all. Its trust level is shown as `community` at
 * most: the relevant block tells the model each skill's trust, and a clone must not be able to
 * present its own skill as `official` or `trusted` (the record itself, in `inspect`'s `lock`,
 * still says what the file says).
 */
import { realpathSync, statSync } from "node:fs";
import { join } from "node:path";
import type { LemonContext } from "../context.ts";
import { diagnostic, type Diagnostic } from "../diagnostics.ts";
import type { Scope } from "../paths.ts";
import type { SecurityOverride } from "../schema/lockfile.ts";
import { NO_PROVENANCE, type Provenance } from "./entry.ts";
import { readLockfileSync, type LockAgent, type LockDoc, type LockRead, type LockRecord } from "./lockfile.ts";
import { labelRoot } from "./roots.ts";
import { fingerprintOf } from "./fingerprint.ts";
import type { SkillCandidate } from "./scan.ts";

/** The `invalid_lockfile` diagnostic (skills.md §2.3): listing continues without provenance. */
export const invalidLockfile = (file: string, reason: string): Diagnostic =>
  diagnostic("warn", "invalid_lockfile", `invalid skills.lock.json: ${reason}`, { path: file });

/** The real path of the root an `agent` label installs into in one scope, or null when it is switched off. */
export type Locate = (agent: LockAgent) => string | null;

/**
 * Where each label's root of a scope really is (install.md §4.8, as the installer places skills):
 * `lemon` is `A/skill` or `P/skill`; another tool's project root is `C/.<tool>/skills` (not the
 * same root of a parent directory); its global root honours the `skillRoots` option and the
 * override variable, and is none while isolation hides it. Compared by real path, so a root that discovery keeps under another label
 * (`~/.claude/skills` linked to `~/.agents/skills`) is still the recorded location. Each label
 * costs one realpath, and only when a record names it.
 */
export function rootLocator(ctx: LemonContext, scope: Scope): Locate {
  const memo = new Map<LockAgent, string | null>();
  return (agent) => {
    if (!memo.has(agent)) {
      const path = labelRoot(ctx, scope, agent).path;
      memo.set(agent, path === null ? null : realOrSelf(path));
    }
    return memo.get(agent) ?? null;
  };
}

function realOrSelf(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}

/**
 * The record of `doc` that describes the skill at `c`, or null: same key, directly in the root
 * the record's `agent` names in this scope (a skill one category level below is another skill).
 */
export function recordFor(doc: LockDoc, c: SkillCandidate, locate: Locate): LockRecord | null {
  const rec = Object.hasOwn(doc.skills, c.key) ? doc.skills[c.key] : undefined;
  if (rec === undefined || c.path !== join(c.root.path, c.key)) return null;
  return locate(rec.agent) === c.root.realPath ? rec : null;
}

/**
 * Whether an override still names the bundle on disk (install.md §8 step 4). A bundle that cannot
 * be hashed (unreadable, over the walk caps) is not the approved one: the skill stays blocked.
 */
export async function overrideHolds(dir: string, override: SecurityOverride | null): Promise<boolean> {
  const status = await overrideStatus(dir, override);
  return status.valid;
}

/** The override's validity and the bundle hash now (null when it cannot be computed). */
export async function overrideStatus(
  dir: string,
  override: SecurityOverride | null,
): Promise<{ valid: boolean; bundle_hash: string | null }> {
  const current = await currentBundleHash(dir);
  return { valid: override !== null && current !== null && current === override.bundle_hash, bundle_hash: current };
}

/** The bundle hash of a directory now (install.md §7.2), or null when it has none. */
export async function currentBundleHash(dir: string): Promise<string | null> {
  const { computeBundleHash } = await import("./bundle.ts");
  try {
    return await computeBundleHash(dir);
  } catch {
    return null;
  }
}

/** A record's provenance fields as an Entry shows them. */
export function provenanceOf(rec: LockRecord | null, scope: Scope, blocked: boolean): Provenance {
  if (rec === null) return NO_PROVENANCE;
  return {
    source_kind: rec.source_kind,
    source_id: rec.source_id,
    trust_level: scope === "project" && rec.trust_level !== null ? "community" : rec.trust_level,
    audit_status: rec.audit_status,
    bundle_hash: rec.bundle_hash,
    blocked,
  };
}

/** What one scope's lockfile says about the candidates of a listing. */
export interface ScopeLock {
  scope: Scope;
  file: string;
  /** Empty for an invalid file (with `diagnostic` set). */
  doc: LockDoc;
  diagnostic: Diagnostic | null;
  /** Paths of the candidates the lock blocks (state 3 of skills.md §5.2). */
  blocked: ReadonlySet<string>;
  /** The Entry provenance of a candidate of this scope (a method, so callers need not load this module). */
  provenance(c: SkillCandidate): Provenance;
  /** The record describing a candidate of this scope, or null. */
  record(c: SkillCandidate): LockRecord | null;
}

/**
 * Reads a scope's lockfile and decides `blocked` for the candidates `candidateOf` names by key
 * (the scope's winners). Only `block` records with an override cost a bundle hash, each time:
 * install.md §8 step 4 recomputes on every rebuild. `overrides` may carry verdicts already
 * computed for the same files (a search snapshot's generation).
 */
export async function readScopeLock(
  scope: Scope,
  file: string,
  locate: Locate,
  candidateOf: (key: string) => SkillCandidate | undefined,
  read: LockRead = readLockfileSync(file),
  overrides?: Map<string, boolean>,
): Promise<ScopeLock> {
  const make = (doc: LockDoc, diag: Diagnostic | null, blocked: ReadonlySet<string>): ScopeLock => ({
    scope,
    file,
    doc,
    diagnostic: diag,
    blocked,
    provenance: (c) => provenanceOf(recordFor(doc, c, locate), scope, blocked.has(c.path)),
    record: (c) => recordFor(doc, c, locate),
  });
  if (!read.ok) {
    const empty: LockDoc = { version: 1, skills: Object.create(null) as LockDoc["skills"] };
    return make(empty, invalidLockfile(file, read.reason), new Set());
  }
  const blocked = new Set<string>();
  const checks: Promise<void>[] = [];
  for (const [key, rec] of Object.entries(read.doc.skills)) {
    if (rec.audit_status !== "block") continue;
    const c = candidateOf(key);
    if (c === undefined || recordFor(read.doc, c, locate) !== rec) continue;
    if (rec.security_override === null) {
      blocked.add(c.path);
      continue;
    }
    const known = overrides?.get(c.path);
    if (known !== undefined) {
      if (!known) blocked.add(c.path);
      continue;
    }
    checks.push(
      overrideHolds(c.realPath, rec.security_override).then((ok) => {
        overrides?.set(c.path, ok);
        if (!ok) blocked.add(c.path);
      }),
    );
  }
  await Promise.all(checks);
  return make(read.doc, null, blocked);
}

/**
 * Lockfiles as last parsed, reused while the stat fingerprint holds (one per registry): a
 * long-lived embedder lists often, and a lock of many records costs a parse each time. A file
 * replaced between the stat and the read is cached under the older fingerprint, so the next call
 * reads it again; nothing older than what the stat saw is ever returned.
 */
export class LockReads {
  readonly #cache = new Map<string, { key: string; read: LockRead }>();

  read(file: string): LockRead {
    let key: string;
    try {
      key = fingerprintOf(statSync(file));
    } catch {
      // Missing or unstatable: the read says which, and nothing is worth keeping.
      this.#cache.delete(file);
      return readLockfileSync(file);
    }
    const hit = this.#cache.get(file);
    if (hit?.key === key) return hit.read;
    const read = readLockfileSync(file);
    this.#cache.set(file, { key, read });
    return read;
  }

  clear(): void {
    this.#cache.clear();
  }
}

/**
 * The locks of a view's scopes (project first), deciding `blocked` for the effective skills.
 * The lockfile of a scope the view does not read is not read either.
 */
export async function viewLocks(
  ctx: LemonContext,
  files: Record<Scope, string>,
  scopes: readonly Scope[],
  effective: ReadonlyMap<string, { candidate: SkillCandidate }>,
  reads?: LockReads,
): Promise<ScopeLock[]> {
  return Promise.all(
    scopes.map((scope) =>
      readScopeLock(
        scope,
        files[scope],
        rootLocator(ctx, scope),
        (key) => {
          const c = effective.get(key)?.candidate;
          return c?.root.scope === scope ? c : undefined;
        },
        reads ? reads.read(files[scope]) : readLockfileSync(files[scope]),
      ),
    ),
  );
}

/** The provenance of a candidate under the lock of its own scope among `locks`. */
export function provenanceIn(locks: readonly ScopeLock[], c: SkillCandidate): Provenance {
  const lock = locks.find((l) => l.scope === c.root.scope);
  return lock ? lock.provenance(c) : NO_PROVENANCE;
}

/** The lock record of a candidate under the lock of its own scope, or null. */
export function recordIn(locks: readonly ScopeLock[], c: SkillCandidate): LockRecord | null {
  const lock = locks.find((l) => l.scope === c.root.scope);
  return lock ? lock.record(c) : null;
}
