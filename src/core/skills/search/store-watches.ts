/**
 * @module skills/search/store-watches
 * The store's side of the watched identity check (issue 16 item 4): per scope, the watch that may
 * vouch for it between checks. A watch vouches when it was armed before the last check started,
 * reported no event since, and the lockfile (outside the roots, stat'ed on every call) still has
 * the stats it had then; anything else means the stat check of skills.md §7.3 runs.
 */
import type { LogEntry } from "../../context.ts";
import type { SkillRoot } from "../roots.ts";
import type { ScopeIdentity } from "./identity.ts";
import { STAT_FIELDS, put, statOne } from "./stat-many.ts";
import { WatchHub, WatchState, type ScopeWatch } from "./watcher.ts";

/**
 * `auto`: a scope is watched from its second check on (a process that checks twice is long-lived;
 * a cold CLI call never pays for arming); `eager`: from the first; `never`: stat checks only.
 */
export type WatchMode = "auto" | "eager" | "never";

/** Watched scopes per instance; the least recently used one beyond this is released. */
const MAX_WATCHED_SCOPES = 8;
/**
 * Paths the scope watches of one instance hold at most (one inotify watch each; two scopes of the
 * largest kind): the least recently used scopes beyond it are released, as beyond MAX_WATCHED_SCOPES.
 */
const MAX_TOTAL_WATCHES = 49_152;
/** A scope whose watched directory went away is re-armed at most this often. */
const REARM_MS = 1000;
/**
 * A watch vouches for at most this long after a check, then the stat check runs once more: a
 * safety net for what notifications cannot see (file systems that do not report, such as network
 * mounts). Roots are re-resolved at least every ROOTS_VOUCH_MS.
 */
const SCOPE_VOUCH_MS = 5000;
const ROOTS_VOUCH_MS = 1000;

interface Slot {
  checks: number;
  watch: ScopeWatch | null;
  /** The watch's event count when the last check started while it was armed; -1: no such check. */
  baseline: number;
  baselineAt: number;
  /** The lockfile's stats when the last check started (stat-many.ts layout). */
  lock: Float64Array;
  /** The identity the watch plan was made for. */
  planFor: string;
  /** True once this scope cannot be watched (an error, too many links): stat checks for good. */
  unwatchable: boolean;
  armedAt: number;
  usedAt: number;
}

const freshSlot = (): Slot => ({
  checks: 0,
  watch: null,
  baseline: -1,
  baselineAt: 0,
  lock: new Float64Array(STAT_FIELDS),
  planFor: "",
  unwatchable: false,
  armedAt: 0,
  usedAt: 0,
});

/** Scratch for the lockfile's stats on each vouch (numbers compared, no fingerprint string). */
const lockNow = new Float64Array(STAT_FIELDS);

function sameLock(file: string, then: Float64Array): boolean {
  put(lockNow, 0, statOne(file));
  for (let i = 0; i < STAT_FIELDS; i++) if (lockNow[i] !== then[i]) return false;
  return true;
}

export class StoreWatches {
  readonly #mode: WatchMode;
  readonly #now: () => number;
  readonly #log: (e: LogEntry) => void;
  readonly #slots = new Map<string, Slot>();
  #hub: WatchHub | null = null;
  readonly #subs = new Set<() => void>();
  /** After close(): nothing arms again (a check still in flight at close ends without a watch). */
  #closed = false;

  constructor(mode: WatchMode, now: () => number, log: (e: LogEntry) => void) {
    this.#mode = mode;
    this.#now = now;
    this.#log = log;
  }

  #slot(id: string): Slot {
    let s = this.#slots.get(id);
    if (!s) this.#slots.set(id, (s = freshSlot()));
    s.usedAt = this.#now();
    return s;
  }

  #hubOf(): WatchHub {
    return (this.#hub ??= new WatchHub(this.#log));
  }

  /** True when the scope's watch vouches that nothing changed since its last check. */
  vouches(id: string, lockfile: string): boolean {
    const s = this.#slots.get(id);
    const w = s?.watch;
    if (!s || !w || s.baseline < 0 || w.state !== WatchState.Armed || w.events !== s.baseline) return false;
    if (w.holes !== 0) return false;
    const now = this.#now();
    if (now - s.baselineAt >= SCOPE_VOUCH_MS || !sameLock(lockfile, s.lock)) return false;
    s.usedAt = now;
    return true;
  }

  /** Called before a check's stats: an event from now on is one the check may have missed. */
  beforeCheck(id: string, lockfile: string): void {
    const s = this.#slot(id);
    const w = s.watch;
    s.baseline = w !== null && w.state === WatchState.Armed ? w.events : -1;
    s.baselineAt = this.#now();
    put(s.lock, 0, statOne(lockfile));
  }

  /**
   * After a check (or for skills.watch, `force`): arms, re-arms or releases the scope's watch as
   * the mode and its state say. Arming happens in the worker; until it is armed and a check has
   * started after that, the scope is checked by stat.
   */
  afterCheck(id: string, idn: ScopeIdentity | null, roots: readonly SkillRoot[], force: boolean): ScopeWatch | null {
    const s = this.#slot(id);
    if (!force) s.checks++;
    if (this.#mode === "never" || s.unwatchable || this.#closed) return null;
    const w = s.watch;
    if (w && w.state === WatchState.Failed) {
      // The hub logged it; this scope stays on the stat check.
      this.#drop(s);
      s.unwatchable = true;
      return null;
    }
    if (!idn || idn.count === 0) {
      this.#drop(s);
      return null;
    }
    if (!force && this.#mode === "auto" && s.checks < 2 && !w) return null;
    const healthy = w !== null && (w.state === WatchState.Armed || w.state === WatchState.Arming);
    if (healthy && s.planFor === idn.hex) {
      // A watched directory replaced since: the worker watches what is at the path now.
      if (w.holes !== 0) w.reprobe();
      return w;
    }
    if (w && !healthy && this.#now() - s.armedAt < REARM_MS) return null;
    // Until the new plan is in the worker the watch may miss what the check just found (a new
    // directory): no vouching before the next check.
    s.baseline = -1;
    void import("./watch-plan.ts").then(({ planKey, watchPlan }) => {
      if (this.#slots.get(id) !== s || s.unwatchable || this.#closed) return;
      const plan = watchPlan(roots, idn);
      if ("reason" in plan) {
        this.#drop(s);
        s.unwatchable = true;
        this.#hubOf().fallback(`${plan.reason} in the ${roots[0]?.scope ?? "a"} scope`);
        return;
      }
      s.planFor = idn.hex;
      const key = planKey(plan);
      if (s.watch && s.watch.state <= WatchState.Armed) {
        // Same paths, other stats: a SKILL.md may have been replaced by one with other hard links.
        if (s.watch.key === key) s.watch.reprobe();
        else {
          s.watch.update(plan, key);
          this.#bound();
        }
        return;
      }
      this.#drop(s);
      s.armedAt = this.#now();
      s.watch = this.#hubOf().watch(plan, key);
      if (!s.watch) s.unwatchable = true;
      this.#bound();
    });
    return w;
  }

  #drop(s: Slot): void {
    s.watch?.close();
    s.watch = null;
    s.baseline = -1;
  }

  /**
   * Keeps at most MAX_WATCHED_SCOPES watches and MAX_TOTAL_WATCHES directories: the least recently
   * used scopes (those left behind by a root change) go first.
   */
  #bound(): void {
    const watched = [...this.#slots.values()].filter((s) => s.watch !== null);
    const size = (s: Slot) => (s.watch ? s.watch.plan.single.length + (s.watch.plan.chains?.length ?? 0) : 0);
    let total = watched.reduce((n, s) => n + size(s), 0);
    watched.sort((a, b) => a.usedAt - b.usedAt);
    for (let i = 0; i < watched.length - 1; i++) {
      if (watched.length - i <= MAX_WATCHED_SCOPES && total <= MAX_TOTAL_WATCHES) return;
      total -= size(watched[i]!);
      this.#drop(watched[i]!);
    }
  }

  readonly #roots = new Map<string, Slot>();

  /** True when the watch of a cwd's root parents vouches that its roots resolve as before. */
  rootsVouch(cwd: string): boolean {
    const s = this.#roots.get(cwd);
    const w = s?.watch;
    if (!s || !w || s.baseline < 0 || w.state !== WatchState.Armed || w.events !== s.baseline) return false;
    return w.holes === 0 && this.#now() - s.baselineAt < ROOTS_VOUCH_MS;
  }

  /** Called before the roots of a cwd are resolved (the baseline of its watch, as beforeCheck). */
  beforeRoots(cwd: string): void {
    let s = this.#roots.get(cwd);
    if (!s) this.#roots.set(cwd, (s = freshSlot()));
    s.usedAt = this.#now();
    const w = s.watch;
    s.baseline = w !== null && w.state === WatchState.Armed ? w.events : -1;
    s.baselineAt = this.#now();
  }

  /** After the roots of a cwd were resolved: arms (from the second resolution in `auto`) or re-arms its watch. */
  afterRoots(cwd: string, roots: { project: SkillRoot[]; global: SkillRoot[] }): void {
    const s = this.#roots.get(cwd);
    if (!s || this.#mode === "never" || s.unwatchable || this.#closed) return;
    s.checks++;
    if (this.#mode === "auto" && s.checks < 2 && !s.watch) return;
    const w = s.watch;
    if (w && w.state === WatchState.Failed) {
      this.#drop(s);
      s.unwatchable = true;
      return;
    }
    void import("./watch-plan.ts").then(({ planKey, rootsPlan }) => {
      if (this.#roots.get(cwd) !== s || s.unwatchable || this.#closed) return;
      const plan = rootsPlan(cwd, roots);
      const key = planKey(plan);
      if (s.watch && s.watch.key === key && s.watch.state <= WatchState.Armed) {
        if (s.watch.holes !== 0) s.watch.reprobe();
        return;
      }
      if (s.watch && s.watch.state > WatchState.Armed && this.#now() - s.armedAt < REARM_MS) return;
      this.#drop(s);
      s.armedAt = this.#now();
      s.watch = this.#hubOf().watch(plan, key);
      if (!s.watch) s.unwatchable = true;
      if (this.#roots.size > MAX_WATCHED_SCOPES) {
        const [oldest] = [...this.#roots.entries()].sort((a, b) => a[1].usedAt - b[1].usedAt);
        if (oldest && oldest[1] !== s) {
          this.#drop(oldest[1]);
          this.#roots.delete(oldest[0]);
        }
      }
    });
  }

  watchOf(id: string): ScopeWatch | null {
    return this.#slots.get(id)?.watch ?? null;
  }

  /**
   * Keeps a skills.watch subscription's `close` until the returned function runs it; the last one
   * released also releases every watch (findRelevant re-arms its own at its next check).
   */
  hold(close: () => void): () => void {
    if (this.#closed) {
      close();
      return () => {};
    }
    this.#subs.add(close);
    return () => {
      if (!this.#subs.delete(close)) return;
      close();
      if (this.#subs.size === 0) this.release();
    };
  }

  release(): void {
    for (const s of this.#slots.values()) this.#drop(s);
    for (const s of this.#roots.values()) this.#drop(s);
  }

  /** Ends every subscription and watch (lemon.close()). */
  close(): void {
    this.#closed = true;
    for (const c of this.#subs) c();
    this.#subs.clear();
    this.release();
    this.#slots.clear();
    this.#roots.clear();
    this.#hub?.close();
    this.#hub = null;
  }
}
