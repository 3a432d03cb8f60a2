/**
 * @module mcp/serve/catalog
 * The skills `lemon mcp serve` may show (cli.md §3.8): the effective displayable ones of the
 * project and global scopes — never blocked, disabled, hidden, superseded or platform-incompatible
 * skills — or the global ones only. Every tool, resource and prompt asks this one place, so no
 * path serves a skill another refuses. It also tells the server when the served set changed,
 * from `lemon.skills.watch` (issue #16): a fingerprint of what clients can see, compared after
 * each notification, so a change nobody can observe sends nothing.
 */
import type { Lemon } from "../../index.ts";
import { byKey, isDisplayable, type SkillEntry } from "../../skills/entry.ts";

/** Least time between two list-changed notifications, in ms (issue #17 F12). */
const NOTIFY_MS = 1000;

export interface ServedCatalog {
  /** The served entries, sorted by key. */
  entries(): Promise<SkillEntry[]>;
  /**
   * The served entry of `key` from a fresh lookup, or null (absent, or not served): a read is
   * never decided from the kept set, which may predate a hide, disable or new shadow.
   */
  entry(key: string): Promise<SkillEntry | null>;
  /** True when `e` is served (scope filter only; `entries` already applies displayability). */
  serves(e: SkillEntry): boolean;
  /** Forgets the kept served set (after this server's own write), so the next call lists afresh. */
  invalidate(): void;
  /** Calls `fn` after the served set changed (coalesced, at most once a second); returns the unsubscribe function. */
  onChange(fn: () => void): () => void;
  close(): void;
}

interface Served {
  list: SkillEntry[];
}

/** What the clients can observe of an entry: a change of any of these is a list change. */
function fingerprint(entries: readonly SkillEntry[]): string {
  let s = "";
  for (const e of entries) s += `${e.key}\0${e.content_hash}\0${e.activation_state}\0${e.scope}\n`;
  return String(Bun.hash(s));
}

export function servedCatalog(
  lemon: Lemon,
  opts: { cwd?: string; globalOnly?: boolean; log?: (line: string) => void },
): ServedCatalog {
  const cwdOpt = opts.cwd !== undefined ? { cwd: opts.cwd } : {};
  const serves = (e: SkillEntry) => isDisplayable(e) && (opts.globalOnly !== true || e.scope === "global");
  const listeners = new Set<() => void>();
  let last: string | null = null;
  let checking = false;
  let again = false;
  let stop: (() => void) | null = null;
  // While the watcher runs, the served set is kept between its notifications for the listings
  // (resources/list, skills_listing, suggestions): 11k skills listed per request would cost more
  // than the request. Reads never use it (entry() looks the key up afresh). Each notification drops it, and a
  // listing that began before the notification is never kept.
  let cached: Served | null = null;
  let generation = 0;

  const load = async (): Promise<Served> => {
    const gen = generation;
    const { skills } = await lemon.skills.list(cwdOpt);
    const list = skills.filter(serves).sort(byKey);
    const served = { list };
    if (stop !== null && gen === generation) cached = served;
    return served;
  };
  const current = async (): Promise<Served> => cached ?? load();

  // A file that keeps changing (an autosave, a sync tool) must not make every client re-list ten
  // times a second: at most one notification per NOTIFY_MS, the last change never lost.
  let lastSent = -Infinity;
  let trailing: ReturnType<typeof setTimeout> | null = null;
  const send = () => {
    trailing = null;
    lastSent = performance.now();
    for (const fn of listeners) fn();
  };
  const announce = () => {
    if (trailing !== null) return;
    const wait = lastSent + NOTIFY_MS - performance.now();
    if (wait <= 0) return send();
    trailing = setTimeout(send, wait);
    trailing.unref?.();
  };

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
        const now = fingerprint((await load()).list);
        if (last !== null && now !== last) announce();
        last = now;
      } while (again);
    } catch (err) {
      opts.log?.(`catalog check failed: ${err instanceof Error ? err.message : String(err)}`);
    } finally {
      checking = false;
    }
  };

  // The instance's watcher (fs notifications, else its own poll) says when to look again; one
  // more look a little later catches a change the listing's own check interval had not seen yet.
  let later: ReturnType<typeof setTimeout> | null = null;
  const changed = () => {
    generation++;
    cached = null;
    void check();
    if (later !== null) clearTimeout(later);
    later = setTimeout(() => {
      generation++;
      cached = null;
      void check();
    }, 300);
    later.unref?.();
  };
  const start = (): void => {
    const unwatch = lemon.skills.watch(changed, cwdOpt);
    stop = () => {
      unwatch();
      if (later !== null) clearTimeout(later);
      if (trailing !== null) clearTimeout(trailing);
      trailing = null;
    };
    void check();
  };

  return {
    entries: async () => (await current()).list,
    entry: async (key) => {
      const e = await lemon.skills.get(key, cwdOpt);
      return e !== null && serves(e) ? e : null;
    },
    serves,
    invalidate() {
      generation++;
      cached = null;
    },
    onChange(fn) {
      listeners.add(fn);
      if (stop === null) start();
      return () => listeners.delete(fn);
    },
    close() {
      stop?.();
      stop = null;
      cached = null;
      listeners.clear();
    },
  };
}
