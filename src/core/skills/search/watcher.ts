/**
 * @module skills/search/watcher
 * File-system notifications for the identity check (skills.md §7.3, issue 16 item 4): while a
 * scope's directories are watched and no event arrived, a long-lived process may skip the stat
 * pass. The watchers run in one small worker per lemon instance, so arming them (Bun's recursive
 * `fs.watch` walks the tree synchronously: ~115 ms at 11k skill directories) and event storms never
 * block the agent's thread, and an event is recorded even while that thread is busy. The worker
 * answers through shared memory: per watch a state and an event counter, read with one atomic load.
 *
 * What is watched (watch-plan.ts): without recursion, the directories discovery reads and the
 * ones symlinks on the way to them live in, never a whole tree (a recursive watch puts one inotify
 * watch on every directory below a root: 20k for a node_modules under one skill, out of a per-user
 * budget the user's editor and bundler share); a scope needing more than MAX_PLAN_WATCHES is
 * checked by stat instead. A watch that errors, is closed under us, or cannot be armed is
 * `Failed` (logged once per instance). A watched directory that is itself removed, renamed or
 * replaced (Bun reports that event under the directory's own name) leaves a hole: the watch
 * never vouches while it has one, and the next check's plan fills it.
 * Either way the store goes back to the stat check.
 */
import type { LogEntry } from "../../context.ts";
import { workerSource } from "./watch-worker.ts";

/** A watch's state, slot 0 of its shared counters. */
export const WatchState = { Arming: 0, Armed: 1, Failed: 2, Stale: 3, Closed: 4 } as const;
export type WatchState = (typeof WatchState)[keyof typeof WatchState];

/**
 * Shared slots: 0 state, 1 event counter, 2 "tell me about the next event" (set by the main
 * thread), 3 holes (planned paths without a live watcher).
 */
const SLOTS = 4;

/**
 * What one watch covers; the worker resolves `chains` and `probe` (no file-system work on the
 * agent's thread). `single` directories are watched as given, without recursion.
 */
export interface WatchPlan {
  recursive: string[];
  single: string[];
  /** Paths whose every symlink's directory is watched, and their real target when a directory. */
  chains?: string[];
  /** Paths whose every symlink's directory is watched (not the target). */
  links?: string[];
  /** SKILL.md files: when a link, its chain and its real file's directory; with other hard links, the file. */
  probe?: string[];
}

/**
 * More paths than this in one scope and it is checked by stat instead (logged once): one inotify
 * watch per skill directory (and per hard-linked SKILL.md), so an 11k-skill root is still watched
 * even when every SKILL.md is a hard link; store-watches.ts bounds the instance's total.
 */
export const MAX_PLAN_WATCHES = 24_576;

/** One scope's watch: its state and event counter, live from the worker. */
export class ScopeWatch {
  readonly #flag: Int32Array;
  readonly #hub: WatchHub;
  /** Called (on the main thread) after an event once `notifyNext()` asked for it, and on failure. */
  readonly changed = new Set<() => void>();

  #plan: WatchPlan;
  #key: string;

  constructor(
    readonly id: number,
    plan: WatchPlan,
    key: string,
    flag: Int32Array,
    hub: WatchHub,
  ) {
    this.#plan = plan;
    this.#key = key;
    this.#flag = flag;
    this.#hub = hub;
  }

  get plan(): WatchPlan {
    return this.#plan;
  }

  get key(): string {
    return this.#key;
  }

  /**
   * Moves this watch to another plan of the same scope in place: the worker keeps the watchers
   * both plans share (re-arming 11k skill directories takes ~1 s) and counts an event when it
   * changed anything.
   */
  update(plan: WatchPlan, key: string): void {
    this.#plan = plan;
    this.#key = key;
    this.#hub.send(this, "update");
  }

  get state(): WatchState {
    return Atomics.load(this.#flag, 0) as WatchState;
  }

  /** Events so far: unchanged between two readings means nothing was reported in between. */
  get events(): number {
    return Atomics.load(this.#flag, 1);
  }

  /** Planned paths without a live watcher (removed or replaced since): the watch must not vouch. */
  get holes(): number {
    return Atomics.load(this.#flag, 3);
  }

  /** Asks the worker to post a message for the next event (one message however many events follow). */
  notifyNext(): void {
    Atomics.store(this.#flag, 2, 1);
  }

  get flag(): Int32Array {
    return this.#flag;
  }

  close(): void {
    this.#hub.unwatch(this);
  }

  /** Closes the watchers inside the worker as an outside failure would (tests, the fallback path). */
  sever(): void {
    this.#hub.post({ type: "sever", id: this.id });
  }

  /** The plan is unchanged but files may not be: the worker probes the SKILL.md files again. */
  reprobe(): void {
    this.#hub.post({ type: "reprobe", id: this.id });
  }

  /** The paths the worker watches for this plan (tests). */
  paths(): Promise<string[]> {
    return this.#hub.paths(this);
  }
}

type Reply = {
  type: "armed" | "changed" | "failed" | "stale" | "paths";
  id: number;
  message?: string;
  paths?: string[];
};

function isReply(v: unknown): v is Reply {
  if (typeof v !== "object" || v === null) return false;
  const r = v as Record<string, unknown>;
  return typeof r.id === "number" && ["armed", "changed", "failed", "stale", "paths"].includes(r.type as string);
}

/** The watch worker of one lemon instance: started on the first watch, never keeps a process alive. */
export class WatchHub {
  readonly #log: (e: LogEntry) => void;
  #worker: Worker | null = null;
  #url: string | null = null;
  #next = 1;
  readonly #watches = new Map<number, ScopeWatch>();
  #logged = false;
  #unavailable = false;

  constructor(log: (e: LogEntry) => void) {
    this.#log = log;
  }

  /** Says once per instance that notifications are off and the stat check runs instead. */
  fallback(reason: string): void {
    if (this.#logged) return;
    this.#logged = true;
    this.#log({
      level: "warn",
      message: `skill watcher unavailable (${reason}); checking skills by stat every 50 ms`,
    });
  }

  #start(): Worker | null {
    if (this.#worker) return this.#worker;
    if (this.#unavailable) return null;
    try {
      if (typeof Worker !== "function" || typeof SharedArrayBuffer !== "function") throw new Error("no workers");
      this.#url = URL.createObjectURL(new Blob([workerSource(WatchState)], { type: "application/javascript" }));
      const w = new Worker(this.#url);
      w.onmessage = (ev: MessageEvent<unknown>) => this.#reply(ev.data);
      w.onerror = (ev: ErrorEvent) => this.#broken(ev.message || "watch worker failed");
      w.unref();
      this.#worker = w;
      return w;
    } catch (err) {
      this.#unavailable = true;
      this.fallback((err as Error).message);
      return null;
    }
  }

  readonly #asked = new Map<number, (paths: string[]) => void>();

  paths(w: ScopeWatch): Promise<string[]> {
    return new Promise((done) => {
      if (!this.#worker) return done([]);
      this.#asked.set(w.id, done);
      this.#worker.postMessage({ type: "paths", id: w.id });
    });
  }

  #reply(data: unknown): void {
    if (!isReply(data)) return;
    if (data.type === "paths") {
      this.#asked.get(data.id)?.(data.paths ?? []);
      this.#asked.delete(data.id);
      return;
    }
    const w = this.#watches.get(data.id);
    if (!w) return;
    if (data.type === "failed") this.fallback(data.message ?? "watcher failed");
    if (data.type !== "armed") for (const f of w.changed) f();
  }

  /** The worker itself failed: every watch is failed, the store checks by stat from now on. */
  #broken(message: string): void {
    for (const w of this.#watches.values()) {
      Atomics.store(w.flag, 0, WatchState.Failed);
      for (const f of w.changed) f();
    }
    this.#watches.clear();
    this.#unavailable = true;
    this.fallback(message);
    this.close();
  }

  /** Starts watching `plan`; null when this instance cannot watch (logged once). */
  watch(plan: WatchPlan, key: string): ScopeWatch | null {
    const worker = this.#start();
    if (!worker) return null;
    const flag = new Int32Array(new SharedArrayBuffer(SLOTS * 4));
    const w = new ScopeWatch(this.#next++, plan, key, flag, this);
    this.#watches.set(w.id, w);
    this.send(w, "watch");
    return w;
  }

  /** Posts a watch's plan to the worker, to arm it or to move it to that plan. */
  send(w: ScopeWatch, type: "watch" | "update"): void {
    const plan = w.plan;
    this.#worker?.postMessage({
      type,
      id: w.id,
      flag: w.flag,
      recursive: plan.recursive,
      single: plan.single,
      chains: plan.chains ?? [],
      links: plan.links ?? [],
      probe: plan.probe ?? [],
      max: MAX_PLAN_WATCHES,
    });
  }

  post(msg: { type: "sever" | "reprobe"; id: number }): void {
    this.#worker?.postMessage(msg);
  }

  unwatch(w: ScopeWatch): void {
    if (!this.#watches.delete(w.id)) return;
    Atomics.store(w.flag, 0, WatchState.Closed);
    this.#worker?.postMessage({ type: "unwatch", id: w.id, flag: w.flag });
  }

  /** Watches currently held (tests, bounds). */
  get size(): number {
    return this.#watches.size;
  }

  close(): void {
    for (const done of this.#asked.values()) done([]);
    this.#asked.clear();
    for (const w of this.#watches.values()) Atomics.store(w.flag, 0, WatchState.Closed);
    this.#watches.clear();
    this.#worker?.terminate();
    this.#worker = null;
    if (this.#url) URL.revokeObjectURL(this.#url);
    this.#url = null;
  }
}
