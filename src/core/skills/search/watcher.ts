/**
 * @module skills/search/watcher
 * File-system notifications for the identity check (skills.md §7.3, issue 16 item 4): while a
 * scope's directories are watched and no event arrived, a long-lived process may skip the stat
 * pass. The watchers run in one small worker per lemon instance, so arming them (Bun's recursive
 * `fs.watch` walks the tree synchronously: ~115 ms at 11k skill directories) and event storms never
 * block the agent's thread, and an event is recorded even while that thread is busy. The worker
 * answers through shared memory: per watch a state and an event counter, read with one atomic load.
 *
 * What is watched: every existing root's real path recursively (depth does not matter: any event
 * below a root only costs one stat check), and, without recursion, the real directories that
 * symlinks lead out of the roots to (linked categories and linked skill directories), so a link
 * to a large tree is never walked. A watch that errors, is closed under us, or cannot be armed is
 * `Failed` (logged once per instance); one whose own directory was removed or renamed is `Stale`.
 * Either way the store goes back to the stat check.
 */
import type { LogEntry } from "../../context.ts";

/** A watch's state, slot 0 of its shared counters. */
export const WatchState = { Arming: 0, Armed: 1, Failed: 2, Stale: 3, Closed: 4 } as const;
export type WatchState = (typeof WatchState)[keyof typeof WatchState];

/** Shared slots: 0 state, 1 event counter, 2 "tell me about the next event" (set by the main thread). */
const SLOTS = 3;

/** Directories of one scope to watch, real paths. */
export interface WatchPlan {
  recursive: string[];
  single: string[];
}

/** More linked directories than this and the scope is checked by stat instead. */
export const MAX_SINGLE_WATCHES = 4096;

/**
 * The worker, as source: it has to exist as a file only for this module, so it is built from a
 * Blob and needs no entry of its own in the binary. Plain JS, no imports beyond node:fs.
 */
const WORKER_SOURCE = `
const { watch } = require("node:fs");
const ARMED = ${WatchState.Armed}, FAILED = ${WatchState.Failed}, STALE = ${WatchState.Stale}, CLOSED = ${WatchState.Closed};
const watches = new Map();
function open(m) {
  const flag = m.flag;
  const w = { handles: [], quiet: false };
  watches.set(m.id, w);
  const done = () => Atomics.load(flag, 0) >= FAILED;
  const bump = () => {
    Atomics.add(flag, 1, 1);
    if (Atomics.compareExchange(flag, 2, 1, 0) === 1) postMessage({ type: "changed", id: m.id });
  };
  const stop = (state, message) => {
    if (done()) return;
    Atomics.store(flag, 0, state);
    w.quiet = true;
    for (const h of w.handles) try { h.close(); } catch {}
    bump();
    postMessage({ type: state === FAILED ? "failed" : "stale", id: m.id, message });
  };
  const add = (dir, recursive) => {
    const h = watch(dir, { recursive, persistent: false }, (_type, name) => {
      // No name: the event is about the watched directory itself (removed, renamed).
      if (name === null || name === undefined || name === "") stop(STALE, dir);
      else bump();
    });
    h.on("error", (err) => stop(FAILED, String((err && err.message) || err)));
    h.on("close", () => { if (!w.quiet) stop(FAILED, "watcher closed"); });
    w.handles.push(h);
  };
  try {
    for (const d of m.recursive) add(d, true);
    for (const d of m.single) add(d, false);
  } catch (err) {
    stop(FAILED, String((err && err.message) || err));
    return;
  }
  if (!done()) { Atomics.store(flag, 0, ARMED); postMessage({ type: "armed", id: m.id }); }
}
self.onmessage = (e) => {
  const m = e.data;
  const w = watches.get(m.id);
  if (m.type === "watch") open(m);
  else if (m.type === "unwatch" && w) {
    w.quiet = true;
    Atomics.store(m.flag, 0, CLOSED);
    for (const h of w.handles) try { h.close(); } catch {}
    watches.delete(m.id);
  } else if (m.type === "sever" && w) for (const h of w.handles) try { h.close(); } catch {}
};
`;

/** One scope's watch: its state and event counter, live from the worker. */
export class ScopeWatch {
  readonly #flag: Int32Array;
  readonly #hub: WatchHub;
  /** Called (on the main thread) after an event once `notifyNext()` asked for it, and on failure. */
  readonly changed = new Set<() => void>();

  constructor(
    readonly id: number,
    readonly plan: WatchPlan,
    readonly key: string,
    flag: Int32Array,
    hub: WatchHub,
  ) {
    this.#flag = flag;
    this.#hub = hub;
  }

  get state(): WatchState {
    return Atomics.load(this.#flag, 0) as WatchState;
  }

  /** Events so far: unchanged between two readings means nothing was reported in between. */
  get events(): number {
    return Atomics.load(this.#flag, 1);
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
}

type Reply = { type: "armed" | "changed" | "failed" | "stale"; id: number; message?: string };

function isReply(v: unknown): v is Reply {
  if (typeof v !== "object" || v === null) return false;
  const r = v as Record<string, unknown>;
  return typeof r.id === "number" && ["armed", "changed", "failed", "stale"].includes(r.type as string);
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
      this.#url = URL.createObjectURL(new Blob([WORKER_SOURCE], { type: "application/javascript" }));
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

  #reply(data: unknown): void {
    if (!isReply(data)) return;
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
    worker.postMessage({ type: "watch", id: w.id, flag, recursive: plan.recursive, single: plan.single });
    return w;
  }

  post(msg: { type: "sever"; id: number }): void {
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
    for (const w of this.#watches.values()) Atomics.store(w.flag, 0, WatchState.Closed);
    this.#watches.clear();
    this.#worker?.terminate();
    this.#worker = null;
    if (this.#url) URL.revokeObjectURL(this.#url);
    this.#url = null;
  }
}
