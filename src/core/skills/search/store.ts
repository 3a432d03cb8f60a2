/**
 * @module skills/search/store
 * The snapshots of one lemon instance (skills.md §7.3): per scope, the identity is checked at
 * most once per 50 ms and concurrent callers share one in-flight check; a changed identity
 * rebuilds the scope (reusing unchanged documents), in the snapshot worker when many skills need
 * loading. A snapshot that cannot be written is used from memory with a warning.
 *
 * A snapshot built here is returned before it is persisted: the write (tens of MB at 10k skills,
 * sometimes slower than the whole rebuild when the kernel throttles dirty pages) goes on behind
 * the call, writes of one file in order, and `settled()`/`close()` wait for them.
 */
import type { LogEntry } from "../../context.ts";
import type { WorkerLocation } from "../../workers/spec.ts";
import type { SkillRoot } from "../roots.ts";
import { mappingIntact, readSnapshotFile, snapshotPath, writeSnapshotFile } from "./file.ts";
import { openSnapshot, type Snapshot } from "./format.ts";
import { computeIdentity, sameIdentity, scopeId, type ScopeIdentity } from "./identity.ts";
import { StoreWatches, type WatchMode } from "./store-watches.ts";
import type { ScopeWatch } from "./watcher.ts";
// Building (scope-build: loading SKILL.md, the builder, TypeBox) and the worker client load only
// when a scope needs a build: a query against a current snapshot never parses them.
import type { SnapshotWorkerClient } from "./worker-client.ts";

/** `auto`: the worker builds when at least `workerThreshold` skills need loading. */
export type WorkerMode = "auto" | "always" | "never";

export const CHECK_INTERVAL_MS = 50;

export type { WatchMode } from "./store-watches.ts";

export interface StoreOptions {
  dir: string;
  now: () => number;
  log: (e: LogEntry) => void;
  workerMode?: WorkerMode;
  workerThreshold?: number;
  workerLocation?: WorkerLocation;
  watch?: WatchMode;
}

export interface ScopeRequest {
  roots: readonly SkillRoot[];
  lockfile: string;
  refresh: boolean;
}

interface ScopeState {
  checkedAt: number;
  checked: boolean;
  current: Snapshot | null;
  /** The identity check that proved `current` (for listings, which need its candidates). */
  identity: ScopeIdentity | null;
  inflight: Promise<Snapshot | null> | null;
}

/** A current snapshot with the check that proved it. */
export interface CurrentScope {
  snap: Snapshot;
  identity: ScopeIdentity;
}

export interface BuildStats {
  scopeId: string;
  via: "worker" | "main";
  reused: number;
  loaded: number;
}

export class SnapshotStore {
  readonly #opts: StoreOptions;
  readonly #states = new Map<string, ScopeState>();
  #worker: SnapshotWorkerClient | null = null;
  /** Per snapshot file, the last write still in flight. */
  readonly #writes = new Map<string, Promise<void>>();
  /** Identity checks run, and calls a watch vouched for instead (tests and benchmarks). */
  readonly counts = { checks: 0, watched: 0 };
  /** The last build of this instance, for tests and benchmarks. */
  lastBuild: BuildStats | null = null;

  /** File-system watches vouching for scopes between checks (store-watches.ts). */
  readonly watches: StoreWatches;

  constructor(opts: StoreOptions) {
    this.#opts = opts;
    this.watches = new StoreWatches(opts.watch ?? "auto", opts.now, opts.log);
  }

  /** Scope ids by root list: the engine reuses one list per cwd between root resolutions. */
  readonly #ids = new WeakMap<readonly SkillRoot[], string>();

  #idOf(roots: readonly SkillRoot[]): string {
    let id = this.#ids.get(roots);
    if (id === undefined) this.#ids.set(roots, (id = scopeId(roots)));
    return id;
  }

  #stateOf(id: string): ScopeState {
    let st = this.#states.get(id);
    if (!st)
      this.#states.set(id, (st = { checkedAt: 0, checked: false, current: null, identity: null, inflight: null }));
    return st;
  }

  /**
   * Makes sure the scope of `roots` is watched (skills.watch): arms it at once, whatever the mode
   * but `never`. Returns the watch, or null while it cannot be.
   */
  async watchScope(req: { roots: readonly SkillRoot[]; lockfile: string }): Promise<ScopeWatch | null> {
    await this.current({ ...req, refresh: false });
    const id = this.#idOf(req.roots);
    return this.watches.afterCheck(id, this.#stateOf(id).identity, req.roots, true);
  }

  /** The watch of a scope (tests). */
  watchOf(roots: readonly SkillRoot[]): ScopeWatch | null {
    return this.watches.watchOf(this.#idOf(roots));
  }

  /**
   * Every scope is checked again on its next current() or peek(), whatever the interval or the
   * watch says: refresh() after a write of our own (skill_manage, install) must see it at once,
   * before the watch's event arrives.
   */
  forgetChecks(): void {
    for (const st of this.#states.values()) st.checked = false;
  }

  #fresh(state: ScopeState): boolean {
    return state.checked && this.#opts.now() - state.checkedAt < CHECK_INTERVAL_MS;
  }

  /**
   * Drops a scope's mapped snapshot whose file was changed in place since it was mapped
   * (file.ts): the scope is checked again, reading the file afresh (or rebuilding), and the old
   * map is never read again. One stat for a mapped snapshot, nothing for one held in memory.
   * Returns the snapshot that is safe to hand out as is.
   */
  #unmapChanged(state: ScopeState): Snapshot | null {
    const snap = state.current;
    if (snap === null || mappingIntact(snap)) return snap;
    state.current = null;
    state.identity = null;
    state.checked = false;
    return null;
  }

  /** The current snapshot of a scope, or null when the scope has no skill directories. */
  async current(req: ScopeRequest): Promise<Snapshot | null> {
    const state = this.#stateOf(this.#idOf(req.roots));
    // A check in flight may hand back a map it opened before the file changed: that one is
    // checked again; the last try rebuilds in memory, which is never mapped.
    for (let tries = 0; tries < 3; tries++) {
      const safe = this.#unmapChanged(state);
      const snap = await this.#current(tries < 2 ? req : { ...req, refresh: true });
      if (snap === null || snap === safe || mappingIntact(snap)) return snap;
      if (state.current === snap) this.#unmapChanged(state);
    }
    return null;
  }

  async #current(req: ScopeRequest): Promise<Snapshot | null> {
    const id = this.#idOf(req.roots);
    const state = this.#stateOf(id);
    if (state.inflight) {
      const shared = await state.inflight;
      if (!req.refresh) return shared;
    } else if (!req.refresh && this.#fresh(state)) return state.current;
    else if (!req.refresh && state.checked && this.watches.vouches(id, req.lockfile)) {
      this.counts.watched++;
      return state.current;
    }
    if (state.inflight) return state.inflight;
    this.watches.beforeCheck(id, req.lockfile);
    // A scope with no root has nothing to stat: only real checks are counted.
    if (req.roots.some((r) => r.exists)) this.counts.checks++;
    const run = this.#check(id, state, req).finally(() => {
      state.inflight = null;
      state.checked = true;
      state.checkedAt = this.#opts.now();
      this.watches.afterCheck(id, state.identity, req.roots, false);
    });
    state.inflight = run;
    return run;
  }

  /**
   * The current snapshot of a scope with the check that proved it, for listings: the 50 ms
   * interval and in-flight checks are shared with `current()`, so a listing and a relevance call
   * in the same turn stat the tree once. Never builds: null when no snapshot is current (the
   * listing then reads the skills).
   */
  async peek(req: { roots: readonly SkillRoot[]; lockfile: string }): Promise<CurrentScope | null> {
    const id = this.#idOf(req.roots);
    const state = this.#stateOf(id);
    this.#unmapChanged(state);
    if (state.inflight) await state.inflight.catch(() => null);
    else if (!this.#fresh(state) && !(state.checked && this.watches.vouches(id, req.lockfile))) {
      const base = state.current ?? readSnapshotFile(snapshotPath(this.#opts.dir, id));
      if (!base) return null;
      const idn = await computeIdentity(req.roots, req.lockfile, base);
      // Stale or empty: leave the state alone, so the next relevance call rebuilds it.
      if (idn.count === 0 || !sameIdentity(base.identity, idn.digest)) return null;
      Object.assign(state, { current: base, identity: idn, checked: true, checkedAt: this.#opts.now() });
    }
    const snap = this.#unmapChanged(state);
    return snap && state.identity ? { snap, identity: state.identity } : null;
  }

  /** The file a scope's snapshot lives in. */
  fileFor(roots: readonly SkillRoot[]): string {
    return snapshotPath(this.#opts.dir, scopeId(roots));
  }

  async worker(): Promise<SnapshotWorkerClient> {
    if (this.#worker) return this.#worker;
    const { SnapshotWorkerClient } = await import("./worker-client.ts");
    return (this.#worker ??= new SnapshotWorkerClient(this.#opts.workerLocation));
  }

  /** Resolves once every snapshot built so far is on disk (or its write failed with a warning). */
  async settled(): Promise<void> {
    while (this.#writes.size > 0) await Promise.all(this.#writes.values());
  }

  async close(): Promise<void> {
    this.watches.close();
    this.#worker?.close();
    this.#worker = null;
    this.#states.clear();
    await this.settled();
  }

  #persist(file: string, bytes: Uint8Array): void {
    const write = (this.#writes.get(file) ?? Promise.resolve()).then(async () => {
      const err = await writeSnapshotFile(file, bytes);
      if (err !== null) this.#warnWrite(file, err);
    });
    const tracked = write.finally(() => {
      if (this.#writes.get(file) === tracked) this.#writes.delete(file);
    });
    this.#writes.set(file, tracked);
  }

  async #check(id: string, st: ScopeState, req: ScopeRequest): Promise<Snapshot | null> {
    const file = snapshotPath(this.#opts.dir, id);
    // The snapshot in memory, else the one on disk: its stored scan makes the check stats only.
    let onDisk: Snapshot | null | undefined;
    const disk = () => (onDisk === undefined ? (onDisk = readSnapshotFile(file)) : onDisk);
    const base = st.current ?? disk();
    let idn = await computeIdentity(req.roots, req.lockfile, req.refresh ? null : base);
    st.identity = null;
    if (idn.count === 0) return (st.current = null);
    if (!req.refresh && base && sameIdentity(base.identity, idn.digest)) return this.#use(st, base, idn);
    // Another process may have rebuilt the file since this one mapped it.
    const latest = !req.refresh && base === st.current ? disk() : null;
    if (latest && sameIdentity(latest.identity, idn.digest)) return this.#use(st, latest, idn);
    const previous = req.refresh ? null : (st.current ?? disk());
    // A stats-only check statted the snapshot's stored PATHS; before building on those numbers,
    // make sure they were its scan's own paths (damaged bytes whose header still checks are
    // rebuilt from a full scan, which also writes PATHS afresh).
    if (idn.lean && !idn.pathsAgree()) {
      idn = await computeIdentity(req.roots, req.lockfile, null);
      if (idn.count === 0) return (st.current = null);
    }
    return this.#use(
      st,
      await this.#build(id, file, idn, req.roots, previous, req.refresh ? null : disk() ? file : null),
      idn,
    );
  }

  #use(st: ScopeState, snap: Snapshot, idn: ScopeIdentity): Snapshot {
    st.current = snap;
    st.identity = idn;
    return snap;
  }

  async #build(
    id: string,
    file: string,
    idn: ScopeIdentity,
    roots: readonly SkillRoot[],
    previous: Snapshot | null,
    previousFile: string | null,
  ): Promise<Snapshot> {
    const { buildScope, pendingLoads } = await import("./scope-build.ts");
    const mode = this.#opts.workerMode ?? "auto";
    const useWorker =
      mode === "always" ||
      (mode === "auto" &&
        typeof Worker === "function" &&
        pendingLoads(idn.scan, idn.files, idn.candidates, idn.fingerprints, previous) >=
          (this.#opts.workerThreshold ?? 256));
    if (useWorker) {
      try {
        // The worker reads the previous file and writes the new one itself: a write of this file
        // still in flight here goes first, so the two land in order.
        await this.#writes.get(file);
        const r = await (await this.worker()).build({
          file,
          previous: previousFile,
          identity: idn.hex,
          scan: idn.scan,
          watch: new Uint8Array(idn.watch.buffer, idn.watch.byteOffset, idn.watch.byteLength),
          paths: idn.statPaths(),
          roots: [...roots],
          candidates: idn.candidates().map((c) => ({
            key: c.key,
            root: Math.max(0, roots.indexOf(c.root)),
            path: c.path,
            realPath: c.realPath,
            category: c.category,
            skillFile: c.skillFile,
          })),
          fingerprints: idn.fingerprints(),
        });
        if (r.writeError !== null) this.#warnWrite(file, r.writeError);
        const snap = openSnapshot(r.bytes, false);
        if (typeof snap === "string") throw new Error(`worker built an unusable snapshot (${snap})`);
        this.lastBuild = { scopeId: id, via: "worker", reused: r.reused, loaded: r.loaded };
        return snap;
      } catch (err) {
        if (mode === "always") throw err;
        this.#opts.log({
          level: "warn",
          message: `snapshot worker unavailable, building in-process: ${(err as Error).message}`,
        });
      }
    }
    const r = await buildScope({
      roots,
      candidates: idn.candidates(),
      fingerprints: idn.fingerprints,
      files: idn.files,
      identity: idn.digest,
      scan: idn.scan,
      watch: idn.watch,
      paths: idn.statPaths(),
      previous,
    });
    this.#persist(file, r.bytes);
    const snap = openSnapshot(r.bytes, false);
    if (typeof snap === "string") throw new Error(`built an unusable snapshot (${snap})`);
    this.lastBuild = { scopeId: id, via: "main", reused: r.reused, loaded: r.loaded };
    return snap;
  }

  #warnWrite(file: string, reason: string): void {
    this.#opts.log({
      level: "warn",
      message: `search snapshot ${file} could not be written (${reason}); using it from memory`,
    });
  }
}
