/**
 * @module skills/search/relevance
 * `findRelevant` (skills.md §7.1) over the two scope snapshots of a cwd: documents come from the
 * snapshots, disabled state and readiness are computed live; project results precede global
 * ones, a global skill whose key a project skill claims is never returned. Every request is
 * bounded before tokenising (tokenize.ts queryText: the first and last 4,096 of at most 8,192
 * characters, zero-width characters inside words dropped) and after it (boundTerms: at most
 * MAX_QUERY_TERMS distinct words), so a call's time and memory do not grow with the request.
 */
import { statSync } from "node:fs";
import type { LemonContext } from "../../context.ts";
import { type LemonPaths, resolvePaths } from "../../paths.ts";
import { isDisplayable, toEntry, type SkillEntry } from "../entry.ts";
import type { LockRead } from "../lockfile.ts";
import type { ScopeLock } from "../provenance.ts";
import { resolveRoots, type SkillRoot } from "../roots.ts";
import { docMeta, recordFromMeta } from "./doc-meta.ts";
import type { Snapshot } from "./format.ts";
import type { ParsedQuery } from "./score.ts";
import { fingerprintOf } from "./stat-many.ts";
import { CHECK_INTERVAL_MS, SnapshotStore, type StoreOptions, type WorkerMode } from "./store.ts";
import { normaliseMaxResults } from "./limits.ts";

/**
 * The scorer (tokenizer, glossary, term matching) loads with the first query: a listing builds
 * this engine only to peek at a snapshot, and never scores.
 */
interface Scorer {
  scoreWithNorm: typeof import("./score.ts").scoreWithNorm;
  /** The cut-off (cutoff.ts, loaded with the scorer), or null for the uncut list. */
  keeps: typeof import("./cutoff.ts").keeps | null;
}

export interface FindRelevantOptions {
  maxResults?: number;
  refresh?: boolean;
  /** Apply the calibrated "nothing fits" cut-off (cutoff.ts; default true); false: the uncut list. */
  cutoff?: boolean;
}

/** The disabled set when neither skills.json exists. */
const NONE: ReadonlySet<string> = new Set();

export { DEFAULT_MAX_RESULTS, MAX_RESULTS_CAP, normaliseMaxResults } from "./limits.ts";

function workerModeOf(ctx: LemonContext): WorkerMode {
  const v = ctx.env.LEMON_SNAPSHOT_WORKER;
  return v === "always" || v === "never" ? v : "auto";
}

/** stat fingerprint of a file, "-" when missing: cheap enough to check on every call. */
function statKey(file: string): string {
  try {
    const st = statSync(file, { throwIfNoEntry: false });
    return st ? fingerprintOf(st) : "-";
  } catch {
    return "?";
  }
}

export class RelevanceEngine {
  readonly store: SnapshotStore;
  readonly #now: () => number;
  /** Roots per cwd, re-resolved at most once per identity-check interval. */
  readonly #roots = new Map<string, { at: number; roots: { project: SkillRoot[]; global: SkillRoot[] } }>();
  /** The parsed skills.json pair, reused while neither file's stat fingerprint changes. */
  #settings: { key: string; disabled: ReadonlySet<string> } | null = null;
  /**
   * Override verdicts per snapshot: a rebuilt scope is a new snapshot object, so the bundle hashes
   * of overridden skills are recomputed on every rebuild (install.md §8 step 4).
   */
  readonly #overrides = new WeakMap<Snapshot, Map<string, boolean>>();
  /** Each lockfile as last parsed, reused while its stat fingerprint holds. */
  readonly #lockReads = new Map<string, { key: string; read: LockRead }>();

  constructor(ctx: LemonContext, opts: Partial<StoreOptions> = {}) {
    this.#now = () => ctx.now().getTime();
    this.store = new SnapshotStore({
      dir: resolvePaths(ctx).snapshotDir,
      now: () => ctx.now().getTime(),
      log: (e) => ctx.log(e),
      workerMode: workerModeOf(ctx),
      ...opts,
    });
  }

  /** The scope snapshots of a cwd (checked or rebuilt as §7.3 says). */
  async snapshots(
    ctx: LemonContext,
    refresh: boolean,
    paths: LemonPaths = resolvePaths(ctx),
  ): Promise<{
    roots: { project: SkillRoot[]; global: SkillRoot[] };
    project: Snapshot | null;
    global: Snapshot | null;
  }> {
    const roots = this.#rootsFor(ctx, refresh);
    const [project, global] = await Promise.all([
      this.store.current({ roots: roots.project, lockfile: paths.project.lockfile, refresh }),
      this.store.current({ roots: roots.global, lockfile: paths.global.lockfile, refresh }),
    ]);
    return { roots, project, global };
  }

  /** The §7.1 results for a request, read only within the bound the module header describes. */
  async findRelevant(ctx: LemonContext, query: string, opts: FindRelevantOptions = {}): Promise<SkillEntry[]> {
    const max = normaliseMaxResults(opts.maxResults);
    if (max === 0 || typeof query !== "string") return [];
    const [scorer, tok] = await Promise.all([import("./score.ts"), import("./tokenize.ts")]);
    const score: Scorer = { scoreWithNorm: scorer.scoreWithNorm, keeps: opts.cutoff === false ? null : scorer.keeps };
    const parsed = boundTerms(scorer.parseQuery(tok.queryText(query)), tok.MAX_QUERY_TERMS);
    if (parsed.terms.length === 0) return [];
    // The paths are resolved once per call (each resolution joins some 45 of them).
    const paths = resolvePaths(ctx);
    const [snaps, disabled] = await Promise.all([
      this.snapshots(ctx, opts.refresh === true, paths),
      this.#disabled(paths, ctx),
    ]);
    const [projectLock, globalLock] = await Promise.all([
      this.#lock(ctx, "project", paths.project.lockfile, snaps.project, snaps.roots.project),
      this.#lock(ctx, "global", paths.global.lockfile, snaps.global, snaps.roots.global),
    ]);
    const out: SkillEntry[] = [];
    if (snaps.project)
      collect(score, snaps.project, snaps.roots.project, parsed, max, ctx, disabled, null, out, projectLock);
    if (out.length < max && snaps.global)
      collect(score, snaps.global, snaps.roots.global, parsed, max, ctx, disabled, snaps.project, out, globalLock);
    return out;
  }

  /**
   * A scope's lockfile as it is now (blocked skills never reach relevance, skills.md §5.2), or
   * null when there is none: the usual case loads no lockfile code at all.
   */
  async #lock(
    ctx: LemonContext,
    scope: "project" | "global",
    file: string,
    snap: Snapshot | null,
    roots: readonly SkillRoot[],
  ): Promise<ScopeLock | null> {
    const key = statKey(file);
    if (snap === null || key === "-") return null;
    const [{ readScopeLock, rootLocator }, { readLockfileSync }] = await Promise.all([
      import("../provenance.ts"),
      import("../lockfile.ts"),
    ]);
    let cached = this.#lockReads.get(file);
    if (cached?.key !== key) this.#lockReads.set(file, (cached = { key, read: readLockfileSync(file) }));
    let overrides = this.#overrides.get(snap);
    if (!overrides) this.#overrides.set(snap, (overrides = new Map()));
    const candidateOf = (key: string) => {
      const doc = snap.docForKey(key);
      return doc >= 0 ? candidateOfDoc(snap, doc, roots)?.candidate : undefined;
    };
    return readScopeLock(scope, file, rootLocator(ctx, scope), candidateOf, cached.read, overrides);
  }

  /** Waits for snapshot writes still in flight, then drops the cached state. */
  async close(): Promise<void> {
    this.#roots.clear();
    this.#settings = null;
    this.#lockReads.clear();
    await this.store.close();
  }

  #rootsFor(ctx: LemonContext, refresh: boolean): { project: SkillRoot[]; global: SkillRoot[] } {
    const now = this.#now();
    const hit = this.#roots.get(ctx.cwd);
    // Past the interval, a watch of what the resolution depends on may vouch for it (store-watches.ts).
    if (!refresh && hit && (now - hit.at < CHECK_INTERVAL_MS || this.store.watches.rootsVouch(ctx.cwd)))
      return hit.roots;
    this.store.watches.beforeRoots(ctx.cwd);
    const roots = resolveRoots(ctx);
    this.#roots.set(ctx.cwd, { at: now, roots });
    this.store.watches.afterRoots(ctx.cwd, roots);
    return roots;
  }

  /** The live disabled set (skills.md §7.1 rule 9): re-read whenever either skills.json changed. */
  async #disabled(p: LemonPaths, ctx: LemonContext): Promise<ReadonlySet<string>> {
    const g = statKey(p.global.skillsJson);
    const pr = statKey(p.project.skillsJson);
    const key = `${p.global.skillsJson}\0${g}\0${p.project.skillsJson}\0${pr}`;
    if (this.#settings?.key === key) return this.#settings.disabled;
    // Neither file exists (the usual case): nothing is disabled, and the settings code (with
    // TypeBox to check the files) is not loaded at all.
    let disabled: ReadonlySet<string> = NONE;
    if (g !== "-" || pr !== "-") {
      const { effectiveDisabled, readSettings } = await import("../settings.ts");
      disabled = effectiveDisabled(await readSettings(ctx), "both");
    }
    this.#settings = { key, disabled };
    return disabled;
  }
}

/**
 * The query with at most `max` distinct words (slots), the first and last halves of them: the
 * slots past the coverage bits (30) only add terms to look up, so a request of thousands of
 * distinct words would cost a term look-up each (adversarial report F2). Glossary slots come last.
 */
function boundTerms(q: ParsedQuery, max: number): ParsedQuery {
  if (q.slots <= max) return q;
  const head = max >> 1;
  const tail = q.slots - (max - head);
  return { ...q, terms: q.terms.filter((t) => t.slot < head || t.slot >= tail) };
}

/** Appends displayable hits of one scope to `out` until it holds `max` entries. */
function collect(
  { scoreWithNorm, keeps }: Scorer,
  snap: Snapshot,
  roots: readonly SkillRoot[],
  q: ParsedQuery,
  max: number,
  ctx: LemonContext,
  disabled: ReadonlySet<string>,
  claimedBy: Snapshot | null,
  out: SkillEntry[],
  lock: ScopeLock | null,
): void {
  let limit = Math.max(8, (max - out.length) * 3);
  for (;;) {
    const scored = scoreWithNorm(snap, q, limit);
    const hits = scored.hits;
    const found: SkillEntry[] = [];
    let cut = false;
    for (const h of hits) {
      if (out.length + found.length >= max) break;
      // Hits come best first, so the first one cut ends the scope.
      if (keeps && !keeps(h, q, scored)) {
        cut = true;
        break;
      }
      const entry = entryOf(snap, h.doc, roots, ctx, disabled, lock);
      if (!entry || !isDisplayable(entry)) continue;
      if (claimedBy && claimedBy.docForKey(entry.key) >= 0) continue;
      found.push(entry);
    }
    if (cut || out.length + found.length >= max || hits.length < limit || limit >= snap.docCount) {
      out.push(...found);
      return;
    }
    limit *= 4;
  }
}

function candidateOfDoc(snap: Snapshot, doc: number, roots: readonly SkillRoot[]) {
  const m = docMeta(snap, doc);
  const root = m ? roots[m.root] : undefined;
  if (!m || !root) return null;
  const candidate = {
    key: m.key,
    root,
    path: m.path,
    realPath: m.real_path,
    category: m.category,
    skillFile: m.skill_file,
  };
  return { m, candidate };
}

function entryOf(
  snap: Snapshot,
  doc: number,
  roots: readonly SkillRoot[],
  ctx: LemonContext,
  disabled: ReadonlySet<string>,
  lock: ScopeLock | null,
): SkillEntry | null {
  const found = candidateOfDoc(snap, doc, roots);
  if (!found) return null;
  const prov = lock ? lock.provenance(found.candidate) : undefined;
  return toEntry(recordFromMeta(found.m, found.candidate), ctx, disabled, prov);
}
