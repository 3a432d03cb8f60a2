/**
 * @module skills/search/listing
 * Listing from the search snapshot (DESIGN.md §7): when a scope's snapshot is current, `skill
 * list` is its stat calls plus one map. Every valid skill comes from its stored listing fields and
 * only invalid SKILL.md files are parsed again, for their messages. Listings never build or
 * rewrite a snapshot: with none current they scan and parse as before.
 */
import type { RecordCache, ScopeLoad } from "../catalog.ts";
import { loadCandidate } from "../load.ts";
import type { SkillRoot } from "../roots.ts";
import { docMeta, recordFromMeta } from "./doc-meta.ts";
import type { Snapshot } from "./format.ts";
import { readSnapshotFile, snapshotPath } from "./file.ts";
import { computeIdentity, sameIdentity, scopeId, type ScopeIdentity } from "./identity.ts";

/** A scope's records from a snapshot that `identity` proved current; null when they do not line up. */
export async function scopeFromSnapshot(
  snap: Snapshot,
  identity: ScopeIdentity,
  cache?: RecordCache,
): Promise<ScopeLoad | null> {
  const candidates = identity.candidates();
  if (snap.candDoc.length !== candidates.length) return null;
  const fingerprints = identity.fingerprints();
  const records = await Promise.all(
    candidates.map(async (c, i) => {
      const doc = snap.candDoc[i]!;
      const m = doc >= 0 ? docMeta(snap, doc) : null;
      // The identity matched, so the stored fields are this file's; the checks are belt and braces.
      if (m && m.key === c.key && m.fingerprint === fingerprints[i]) return recordFromMeta(m, c);
      return loadCandidate(c, cache);
    }),
  );
  return { candidates, records, diagnostics: identity.diagnostics() };
}

/** The same from the snapshot file of a scope, checked here (a process without a relevance store). */
export async function loadScopeFromSnapshot(
  roots: SkillRoot[],
  lockfile: string,
  dir: string,
  cache?: RecordCache,
): Promise<ScopeLoad | null> {
  if (roots.length === 0) return null;
  const snap = readSnapshotFile(snapshotPath(dir, scopeId(roots)));
  if (!snap) return null;
  const idn = await computeIdentity(roots, lockfile, snap);
  if (idn.count === 0 || !sameIdentity(snap.identity, idn.digest)) return null;
  return scopeFromSnapshot(snap, idn, cache);
}
