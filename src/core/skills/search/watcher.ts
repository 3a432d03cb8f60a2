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
 * `Failed` (logged once per instance); one whose own directory was removed or renamed is `Stale`.
 * Either way the store goes back to the stat check.
 */
import type { LogEntry } from "../../context.ts";

/** A watch's state, slot 0 of its shared counters. */
export const WatchState = { Arming: 0, Armed: 1, Failed: 2, Stale: 3, Closed: 4 } as const;
export type WatchState = (typeof WatchState)[keyof typeof WatchState];

/** Shared slots: 0 state, 1 event counter, 2 "tell me about the next event" (set by the main thread). */
const SLOTS = 3;

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

/**
 * The worker, as source: it has to exist as a file only for this module, so it is built from a
 * Blob and needs no entry of its own in the binary. Plain JS, no imports beyond node:fs and
 * node:path. The file-system work of a plan (following symlink chains, probing every SKILL.md for
 * links and hard links: ~150 ms at 11k) happens here, never on the agent's thread.
 */
const WORKER_SOURCE = `
const { watch, lstatSync, readlinkSync } = require("node:fs");
const { dirname, isAbsolute, join, resolve, sep } = require("node:path");
const ARMED = ${WatchState.Armed}, FAILED = ${WatchState.Failed}, STALE = ${WatchState.Stale}, CLOSED = ${WatchState.Closed};
const NO_THROW = { throwIfNoEntry: false };
const watches = new Map();
// Handles closed on purpose (a re-arm): their "close" event is not a failure.
const closing = new WeakSet();
const lstat = (p) => { try { return lstatSync(p, NO_THROW); } catch { return undefined; } };
// Resolves p one component at a time as the kernel does, adding the real directory holding every
// symlink met (any component, any hop) to out; the real path, or null (gone, a loop).
function chain(p, out) {
  const todo = resolve(p).split(sep).filter(Boolean).reverse();
  let cur = sep, hops = 0;
  while (todo.length > 0) {
    const name = todo.pop();
    if (name === ".") continue;
    if (name === "..") { cur = dirname(cur); continue; }
    const next = join(cur, name);
    const st = lstat(next);
    if (!st) return null;
    if (!st.isSymbolicLink()) { cur = next; continue; }
    if (++hops > 40) return null;
    out.add(cur);
    let t;
    try { t = readlinkSync(next); } catch { return null; }
    if (isAbsolute(t)) cur = sep;
    todo.push(...t.split(sep).filter(Boolean).reverse());
  }
  return cur;
}
// What a plan's chains and probes add: for a chain, its links' directories and its real target
// when a directory; for a SKILL.md, when a link, its links' directories and its real file's, and
// the file itself when it has other hard links (an edit through another name is an event on the
// inode only). Returns the paths and the inodes of the files among them.
function expand(m, out) {
  for (const p of m.chains) {
    const real = chain(p, out);
    if (real !== null && lstat(real)?.isDirectory()) out.add(real);
  }
  for (const p of m.links) chain(p, out);
  const inodes = [];
  for (const f of m.probe) {
    let st = lstat(f), file = f;
    if (st?.isSymbolicLink()) {
      file = chain(f, out);
      if (file === null) continue;
      out.add(dirname(file));
      st = lstat(file);
    }
    if (st?.isFile() && st.nlink > 1) { out.add(file); inodes.push(st.ino); }
  }
  return inodes.join(",");
}
function open(m) {
  const flag = m.flag;
  const w = { handles: [], quiet: false, paths: [], m, inodes: "" };
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
    let h;
    try {
      h = watch(dir, { recursive, persistent: false }, (_type, name) => {
        // No name: the event is about the watched directory itself (removed, renamed).
        if (name === null || name === undefined || name === "") stop(STALE, dir);
        else bump();
      });
    } catch (err) {
      // Gone since the plan was made: the first check after arming (which comes before any
      // vouching) sees the change and makes a new plan.
      if (err && (err.code === "ENOENT" || err.code === "ENOTDIR")) return;
      throw err;
    }
    h.on("error", (err) => stop(FAILED, String((err && err.message) || err)));
    h.on("close", () => { if (!w.quiet && !closing.has(h)) stop(FAILED, "watcher closed"); });
    w.handles.push(h);
  };
  const arm = () => {
    const out = new Set(m.single);
    w.inodes = expand(m, out);
    if (out.size + m.recursive.length > m.max) {
      stop(FAILED, "more than " + m.max + " directories and files to watch");
      return;
    }
    w.paths = [...m.recursive, ...out];
    for (const d of m.recursive) add(d, true);
    for (const d of out) add(d, false);
  };
  // The plan's paths did not change but files may have (a hard-linked SKILL.md replaced): probe
  // again, and when the result differs re-arm and count an event (a change in between is seen
  // by the next check).
  w.reprobe = () => {
    if (done()) return;
    const out = new Set(m.single);
    const inodes = expand(m, out);
    if (inodes === w.inodes && out.size + m.recursive.length === w.paths.length) return;
    for (const h of w.handles) { closing.add(h); try { h.close(); } catch {} }
    w.handles = [];
    try { arm(); } catch (err) { stop(FAILED, String((err && err.message) || err)); return; }
    bump();
  };
  try {
    arm();
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
  else if (m.type === "reprobe" && w) w.reprobe();
  else if (m.type === "paths") postMessage({ type: "paths", id: m.id, paths: w ? w.paths : [] });
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
    worker.postMessage({
      type: "watch",
      id: w.id,
      flag,
      recursive: plan.recursive,
      single: plan.single,
      chains: plan.chains ?? [],
      links: plan.links ?? [],
      probe: plan.probe ?? [],
      max: MAX_PLAN_WATCHES,
    });
    return w;
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
