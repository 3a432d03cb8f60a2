/**
 * @module skills/tools/lookup
 * One key's effective skill, for the agent tools. An agent loads one skill at a time, often in
 * a long-lived host with a thousand skills installed; building every Entry of a listing to pick
 * one (registry.view) costs milliseconds a load does not need. When the relevance store proves a
 * scope's search snapshot current, the snapshot already holds that scope's scan in precedence
 * order; otherwise the scope is scanned, which is cheap next to parsing. Either way only the
 * key's candidates are read, the key is resolved exactly as the catalog's precedence does
 * (project before global, earlier roots first, invalid files claim nothing, a directory
 * reachable from both scopes counts once, at its project position) and only its Entry is built,
 * with the same settings and lockfile reads as a listing.
 */
import type { LemonContext } from "../../context.ts";
import { resolvePaths, type LemonPaths, type Scope } from "../../paths.ts";
import type { RecordCache } from "../catalog.ts";
import { toEntry, type SkillEntry } from "../entry.ts";
import { loadCandidate, type ValidRecord } from "../load.ts";
import type { SkillRegistry } from "../registry.ts";
import { resolveRoots } from "../roots.ts";
import type { SkillCandidate } from "../scan.ts";

/** The effective skill of a key: its Entry, its record and the paths of the view. */
export interface KeyLookup {
  entry: SkillEntry;
  record: ValidRecord;
  paths: LemonPaths;
}

/** A scope's candidates in precedence order and a way to load any one of them. */
interface ScopeScan {
  candidates: SkillCandidate[];
  record(i: number): Promise<ValidRecord | null>;
}

async function scopeScan(
  registry: SkillRegistry,
  roots: ReturnType<typeof resolveRoots>["project"],
  lockfile: string,
  cache: RecordCache,
): Promise<ScopeScan> {
  // No root of the scope exists: nothing to find there, and no snapshot to ask.
  if (roots.every((r) => !r.exists)) return { candidates: [], record: async () => null };
  const current = await registry.relevance().store.peek({ roots, lockfile });
  if (current === null) return scanned(roots, cache);
  const { docMeta, recordFromMeta } = await import("../search/doc-meta.ts");
  const candidates = current.identity.candidates();
  const fingerprints = current.identity.fingerprints();
  if (current.snap.candDoc.length !== candidates.length) return scanned(roots, cache);
  return {
    candidates,
    async record(i) {
      const c = candidates[i]!;
      const doc = current.snap.candDoc[i]!;
      const m = doc >= 0 ? docMeta(current.snap, doc) : null;
      // As the listing does: the stored fields when they are this file's, else the file itself.
      const rec =
        m && m.key === c.key && m.fingerprint === fingerprints[i]
          ? recordFromMeta(m, c)
          : await loadCandidate(c, cache);
      return rec.valid ? rec : null;
    },
  };
}

/**
 * A scope without a current snapshot: scanned, and only the key's candidates read (through the
 * record cache, so a long-lived host parses each SKILL.md once per change).
 */
async function scanned(roots: ReturnType<typeof resolveRoots>["project"], cache: RecordCache): Promise<ScopeScan> {
  const { scanRoots } = await import("../catalog.ts");
  const { candidates } = scanRoots(roots);
  return {
    candidates,
    async record(i) {
      const rec = await loadCandidate(candidates[i]!, cache);
      return rec.valid ? rec : null;
    },
  };
}

/** The first valid candidate of `key` in a scope, skipping directories an earlier scope holds. */
async function winner(scan: ScopeScan, key: string, taken: ReadonlySet<string> | null): Promise<ValidRecord | null> {
  for (let i = 0; i < scan.candidates.length; i++) {
    const c = scan.candidates[i]!;
    if (c.key !== key || taken?.has(c.realPath)) continue;
    const rec = await scan.record(i);
    if (rec !== null) return rec;
  }
  return null;
}

/**
 * The effective skill `key` names for `ctx` (hidden and disabled ones included), or `undefined`
 * when no valid skill has it.
 */
export async function lookupKey(
  registry: SkillRegistry,
  ctx: LemonContext,
  key: string,
  cache: RecordCache,
): Promise<KeyLookup | undefined> {
  const paths = resolvePaths(ctx);
  const { project, global } = resolveRoots(ctx, paths);
  const [p, g] = await Promise.all([
    scopeScan(registry, project, paths.project.lockfile, cache),
    scopeScan(registry, global, paths.global.lockfile, cache),
  ]);
  let record = await winner(p, key, null);
  if (record === null) {
    const taken = new Set(p.candidates.map((c) => c.realPath));
    record = await winner(g, key, taken);
  }
  if (record === null) return undefined;
  const [settingsApi, prov] = await Promise.all([import("../settings.ts"), import("../provenance.ts")]);
  const settings = await settingsApi.readSettings(ctx, paths);
  const scopes: Scope[] = ["project", "global"];
  const files = { project: paths.project.lockfile, global: paths.global.lockfile };
  const locks = await prov.viewLocks(ctx, files, scopes, new Map([[key, record]]));
  const disabled = settingsApi.effectiveDisabled(settings, "both");
  const entry = toEntry(record, ctx, disabled, prov.provenanceIn(locks, record.candidate));
  return { entry, record, paths };
}
