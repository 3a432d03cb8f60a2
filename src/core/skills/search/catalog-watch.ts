/**
 * @module skills/search/catalog-watch
 * `skills.watch(listener, {cwd})` (issue 16/17 interfaces item 2): the listener hears that a
 * skill, a root, a lockfile or a skills.json of the cwd's two scopes changed. A check resolves the
 * roots, asks the store for each scope's snapshot (the store's watch vouches for it, else its stat
 * check runs; a change rebuilds it, so the next findRelevant is free) and compares what it found
 * with the last check. Checks run when the watch worker reports an event and, as the fallback and
 * for the files outside the roots, every 250 ms; deliveries are at least 100 ms apart. While one
 * of the subscription's scopes is not watched (each poll is then a stat pass over its tree: many
 * projects beyond the store's watched scopes cost a core), unchanged polls back off, doubling up
 * to POLL_MAX_MS; a change or an event resets it.
 */
import type { LemonContext } from "../../context.ts";
import { resolvePaths } from "../../paths.ts";
import { resolveRoots } from "../roots.ts";
import { fingerprintOf, statOne } from "./stat-many.ts";
import type { SnapshotStore } from "./store.ts";
import { type ScopeWatch, WatchState } from "./watcher.ts";

export type WatchedScope = "project" | "global";
export interface CatalogChange {
  cwd: string;
  scopes: WatchedScope[];
}
export type CatalogListener = (change: CatalogChange) => void;

export const POLL_MS = 250;
export const POLL_MAX_MS = 2000;

/** The wait before the next poll: back to POLL_MS on a change or while every scope is watched. */
export function nextPoll(delay: number, changed: boolean, allWatched: boolean): number {
  return changed || allWatched ? POLL_MS : Math.min(delay * 2, POLL_MAX_MS);
}
export const COALESCE_MS = 100;
/** An event is checked this long after it arrives, so one burst is one check. */
const SETTLE_MS = 20;

const SCOPES: readonly WatchedScope[] = ["project", "global"];

function fileKey(path: string): string {
  const st = statOne(path);
  return st ? fingerprintOf(st) : "-";
}

/** One subscription; `close()` stops its timers and detaches it from the watches. */
export class CatalogSubscription {
  readonly #store: SnapshotStore;
  readonly #ctx: LemonContext;
  readonly #listener: CatalogListener;
  #sig: Record<WatchedScope, string> | null = null;
  #pending = new Set<WatchedScope>();
  #lastDelivery = Number.NEGATIVE_INFINITY;
  #poll: ReturnType<typeof setTimeout> | null = null;
  #delay = POLL_MS;
  /** True when the last check found every scope with skills armed (its check then costs no stat pass). */
  #allWatched = false;
  /** The listener's failures are logged once per subscription, not on every notification. */
  #warned = false;
  #soon: ReturnType<typeof setTimeout> | null = null;
  #delivery: ReturnType<typeof setTimeout> | null = null;
  #running = false;
  #again = false;
  #closed = false;
  readonly #watches = new Set<ScopeWatch>();
  readonly #onEvent = () => this.#schedule();

  constructor(store: SnapshotStore, ctx: LemonContext, listener: CatalogListener) {
    this.#store = store;
    this.#ctx = ctx;
    this.#listener = listener;
    void this.check();
  }

  #armPoll(): void {
    if (this.#closed) return;
    if (this.#poll) clearTimeout(this.#poll);
    this.#poll = setTimeout(() => {
      this.#poll = null;
      void this.check();
    }, this.#delay);
    this.#poll.unref?.();
  }

  #schedule(): void {
    if (this.#closed || this.#soon) return;
    this.#soon = setTimeout(() => {
      this.#soon = null;
      void this.check();
    }, SETTLE_MS);
    this.#soon.unref?.();
  }

  /** One comparison with the last check; resolves when done (tests await it). */
  async check(): Promise<void> {
    if (this.#closed) return;
    if (this.#running) {
      this.#again = true;
      return;
    }
    this.#running = true;
    let changed = false;
    try {
      const sig = await this.#signature();
      if (this.#closed) return;
      if (this.#sig)
        for (const s of SCOPES)
          if (sig[s] !== this.#sig[s]) {
            this.#pending.add(s);
            changed = true;
          }
      this.#sig = sig;
      this.#deliver();
    } catch (err) {
      this.#ctx.log({ level: "warn", message: `skills.watch: check failed: ${(err as Error).message}` });
    } finally {
      this.#running = false;
      this.#delay = nextPoll(this.#delay, changed || this.#again, this.#allWatched);
      this.#armPoll();
      if (this.#again && !this.#closed) {
        this.#again = false;
        this.#schedule();
      }
    }
  }

  async #signature(): Promise<Record<WatchedScope, string>> {
    const roots = resolveRoots(this.#ctx);
    const paths = resolvePaths(this.#ctx);
    const out = { project: "", global: "" };
    let allWatched = true;
    for (const s of SCOPES) {
      const req = { roots: roots[s], lockfile: paths[s].lockfile };
      const watch = await this.#store.watchScope(req);
      if (watch?.state !== WatchState.Armed && req.roots.some((r) => r.exists)) allWatched = false;
      if (watch && !this.#watches.has(watch)) {
        this.#watches.add(watch);
        watch.changed.add(this.#onEvent);
      }
      watch?.notifyNext();
      const snap = await this.#store.current({ ...req, refresh: false });
      const id = snap ? Buffer.from(snap.identity).toString("hex") : "none";
      out[s] = [this.#store.fileFor(req.roots), id, fileKey(req.lockfile), fileKey(paths[s].skillsJson)].join("\0");
    }
    this.#allWatched = allWatched;
    // Watches of scopes left behind (a root came or went) stop calling this subscription.
    for (const w of this.#watches)
      if (w.state > WatchState.Armed) {
        w.changed.delete(this.#onEvent);
        this.#watches.delete(w);
      }
    return out;
  }

  #deliver(): void {
    if (this.#pending.size === 0 || this.#delivery || this.#closed) return;
    const wait = this.#lastDelivery + COALESCE_MS - performance.now();
    const run = () => {
      this.#delivery = null;
      if (this.#closed || this.#pending.size === 0) return;
      const scopes = SCOPES.filter((s) => this.#pending.has(s));
      this.#pending.clear();
      this.#lastDelivery = performance.now();
      try {
        // An async listener's rejection is its failure too (else an unhandledRejection per change).
        const r: unknown = this.#listener({ cwd: this.#ctx.cwd, scopes });
        if (typeof (r as PromiseLike<unknown> | null)?.then === "function")
          (r as PromiseLike<unknown>).then(undefined, (err: unknown) => this.#listenerFailed("rejected", err));
      } catch (err) {
        this.#listenerFailed("threw", err);
      }
    };
    if (wait <= 0) {
      run();
      return;
    }
    this.#delivery = setTimeout(run, wait);
    this.#delivery.unref?.();
  }

  #listenerFailed(how: string, err: unknown): void {
    if (this.#warned) return;
    this.#warned = true;
    const message = err instanceof Error ? err.message : String(err);
    this.#ctx.log({
      level: "warn",
      message: `skills.watch listener ${how}: ${message} (further failures of this listener are not logged)`,
    });
  }

  close(): void {
    this.#closed = true;
    if (this.#poll) clearTimeout(this.#poll);
    if (this.#soon) clearTimeout(this.#soon);
    if (this.#delivery) clearTimeout(this.#delivery);
    for (const w of this.#watches) w.changed.delete(this.#onEvent);
    this.#watches.clear();
  }
}

/** Starts a subscription held by the store (so lemon.close() ends it); returns its unsubscribe. */
export function subscribe(store: SnapshotStore, ctx: LemonContext, listener: CatalogListener): () => void {
  const sub = new CatalogSubscription(store, ctx, listener);
  return store.watches.hold(() => sub.close());
}
