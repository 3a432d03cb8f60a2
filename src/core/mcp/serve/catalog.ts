/**
 * @module mcp/serve/catalog
 * The skills `lemon mcp serve` may show (cli.md §3.8): the effective displayable ones of the
 * project and global scopes — never blocked, disabled, hidden, superseded or platform-incompatible
 * skills — or the global ones only. Every tool, resource and prompt asks this one place, so no
 * path serves a skill another refuses. It also tells the server when the served set changed.
 */
import type { Lemon } from "../../index.ts";
import { byKey, isDisplayable, type SkillEntry } from "../../skills/entry.ts";

/** `lemon.skills.watch` of the relevance issue (#16): called after a change of a watched scope. */
type WatchFn = (listener: (e: { cwd: string; scopes: string[] }) => void, opts?: { cwd?: string }) => () => void;

export interface ServedCatalog {
  /** The served entries, sorted by key. */
  entries(): Promise<SkillEntry[]>;
  /** The served entry of `key`, or null (absent, or not served). */
  entry(key: string): Promise<SkillEntry | null>;
  /** True when `e` is served (scope filter only; `entries` already applies displayability). */
  serves(e: SkillEntry): boolean;
  /** Calls `fn` after the served set changed (coalesced); returns the unsubscribe function. */
  onChange(fn: () => void): () => void;
  close(): void;
}

/** What the clients can observe of an entry: a change of any of these is a list change. */
function fingerprint(entries: readonly SkillEntry[]): string {
  let s = "";
  for (const e of entries) s += `${e.key}\0${e.content_hash}\0${e.activation_state}\0${e.scope}\n`;
  return String(Bun.hash(s));
}

export function servedCatalog(
  lemon: Lemon,
  opts: { cwd?: string; globalOnly?: boolean; pollMs?: number; log?: (line: string) => void },
): ServedCatalog {
  const cwdOpt = opts.cwd !== undefined ? { cwd: opts.cwd } : {};
  const serves = (e: SkillEntry) => isDisplayable(e) && (opts.globalOnly !== true || e.scope === "global");
  const entries = async (): Promise<SkillEntry[]> => {
    const { skills } = await lemon.skills.list(cwdOpt);
    return skills.filter(serves).sort(byKey);
  };
  const listeners = new Set<() => void>();
  let last: string | null = null;
  let checking = false;
  let again = false;
  let stop: (() => void) | null = null;

  // One check at a time; a notification during a check asks for one more afterwards.
  const check = async (): Promise<void> => {
    if (checking) {
      again = true;
      return;
    }
    checking = true;
    try {
      do {
        again = false;
        const now = fingerprint(await entries());
        if (last !== null && now !== last) for (const fn of listeners) fn();
        last = now;
      } while (again);
    } catch (err) {
      opts.log?.(`catalog check failed: ${err instanceof Error ? err.message : String(err)}`);
    } finally {
      checking = false;
    }
  };

  const start = (): void => {
    void check();
    const watch = (lemon.skills as { watch?: WatchFn }).watch;
    if (typeof watch === "function") {
      stop = watch.call(lemon.skills, () => void check(), cwdOpt);
      return;
    }
    // Until the instance can watch its roots: the listing's own identity check, polled.
    const timer = setInterval(() => void check(), opts.pollMs ?? 250);
    timer.unref?.();
    stop = () => clearInterval(timer);
  };

  return {
    entries,
    async entry(key) {
      const e = await lemon.skills.get(key, cwdOpt);
      return e !== null && serves(e) ? e : null;
    },
    serves,
    onChange(fn) {
      listeners.add(fn);
      if (stop === null) start();
      return () => listeners.delete(fn);
    },
    close() {
      stop?.();
      stop = null;
      listeners.clear();
    },
  };
}
