/**
 * @module skills/curator/manager
 * The background curator of a long-lived embedding (skills.md §13.6): an unref'd hourly timer
 * whose check is exactly `lemon skill curator run --auto` for one scope. One pass at a time; a
 * pass that finds the state locked leaves it to the next check; nothing it meets ever throws
 * into the host: failures become `diagnostic` events and `log` entries. `close()` stops the
 * timer and waits for a pass in progress.
 */
import type { LemonContext } from "../../context.ts";
import { diagnostic, type Diagnostic } from "../../diagnostics.ts";
import type { Scope } from "../../paths.ts";
import type { CuratorSettings } from "../skills-config.ts";
import { curatorScope, type CuratorHost } from "./api.ts";
import { runCurator, type CuratorRunResult } from "./run.ts";

/** cli.md §7 `CuratorManagerOptions`: unset fields take the `[skills.curator]` values. */
export interface CuratorManagerOptions {
  enabled?: boolean;
  intervalHours?: number;
  minIdleHours?: number;
  staleAfterDays?: number;
  archiveAfterDays?: number;
  scope?: Scope;
  /** argv receiving the review prompt on stdin (install.md §13.4). */
  reviewCommand?: string[];
  /** The host's latest activity, for the idle gate. */
  lastActivityAt?: () => Date | null;
}

const HOUR_MS = 3_600_000;

export interface ManagerDeps {
  ctx: LemonContext;
  host: CuratorHost;
  diagnostic?: (d: Diagnostic) => void;
  /** Time between checks (an hour; tests shorten it). */
  everyMs?: number;
  reviewTimeoutMs?: number;
}

export class CuratorManager {
  readonly #deps: ManagerDeps;
  readonly #opts: CuratorManagerOptions;
  #timer: ReturnType<typeof setInterval> | null = null;
  #running: Promise<CuratorRunResult | null> | null = null;
  #closed = false;

  constructor(deps: ManagerDeps, opts: CuratorManagerOptions) {
    this.#deps = deps;
    this.#opts = opts;
  }

  /** Starts the hourly checks (the first one interval after now). Idempotent. */
  start(): void {
    if (this.#timer !== null || this.#closed) return;
    this.#timer = setInterval(() => void this.check(), this.#deps.everyMs ?? HOUR_MS);
    // Never the reason a host process stays alive.
    this.#timer.unref?.();
  }

  /** One check now; null when a pass is already running, the manager is closed or the check failed. */
  check(): Promise<CuratorRunResult | null> {
    if (this.#closed || this.#running !== null) return Promise.resolve(null);
    const p = this.#pass().finally(() => {
      this.#running = null;
    });
    this.#running = p;
    return p;
  }

  async #pass(): Promise<CuratorRunResult | null> {
    const o = this.#opts;
    const settings: Partial<CuratorSettings> = {};
    if (o.enabled !== undefined) settings.enabled = o.enabled;
    if (o.intervalHours !== undefined) settings.intervalHours = o.intervalHours;
    if (o.minIdleHours !== undefined) settings.minIdleHours = o.minIdleHours;
    try {
      const s = await curatorScope(this.#deps.ctx, o.scope ?? "global", this.#deps.host, {
        settings,
        ...(o.staleAfterDays !== undefined ? { staleAfterDays: o.staleAfterDays } : {}),
        ...(o.archiveAfterDays !== undefined ? { archiveAfterDays: o.archiveAfterDays } : {}),
        ...(o.reviewCommand !== undefined ? { reviewCommand: o.reviewCommand } : {}),
        ...(o.lastActivityAt !== undefined ? { lastActivityAt: o.lastActivityAt } : {}),
        ...(this.#deps.reviewTimeoutMs !== undefined ? { reviewTimeoutMs: this.#deps.reviewTimeoutMs } : {}),
      });
      const r = await runCurator(s, { auto: true, submitReview: o.reviewCommand !== undefined });
      for (const d of r.diagnostics) this.#report(d);
      return r;
    } catch (err) {
      const message = `background curator: ${err instanceof Error ? err.message : String(err)}`;
      this.#report(diagnostic("error", "curator_failed", message));
      return null;
    }
  }

  #report(d: Diagnostic): void {
    try {
      this.#deps.ctx.log({ level: d.level === "info" ? "info" : d.level, message: d.message });
      this.#deps.diagnostic?.(d);
    } catch {
      // A host's listener that throws must not stop the curator.
    }
  }

  /** Stops the timer and waits for a pass in progress. */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
    if (this.#running !== null) await this.#running;
  }
}
