/**
 * @module skills/online/hermes-cache
 * The Hermes catalog's cache in the agent dir (`A/cache/hermes-catalog.json`): the ref's commit
 * lookup with its ETag (revalidated each listing), trees by commit sha and SKILL.md details by
 * blob sha (both immutable, so they are reused without a request). A cache that does not read or
 * does not match its schema is treated as empty and rewritten; writing it is best-effort, never
 * the reason a listing fails.
 */
import { join } from "node:path";
import { checkSchema } from "../../schema/check.ts";
import { HermesCache } from "../../schema/hermes.ts";
import { readDocument, update, type Codec } from "../../fsx/update.ts";
import { formatJson } from "../../fsx/atomic.ts";

const CACHE_MAX_BYTES = 16 * 1024 * 1024;
/** Trees of this many commits are kept (a ref moving often must not grow the file without bound). */
const KEEP_TREES = 3;
const KEEP_DETAILS = 20_000;

export const emptyCache = (): HermesCache => ({ version: 1, commits: {}, trees: {}, details: {} });

const codec: Codec<HermesCache> = {
  empty: emptyCache,
  parse(text) {
    try {
      const raw: unknown = JSON.parse(text);
      return checkSchema(HermesCache, raw) === null ? (raw as HermesCache) : emptyCache();
    } catch {
      return emptyCache();
    }
  },
  serialize: (v) => formatJson(v),
  maxBytes: CACHE_MAX_BYTES,
};

export const cacheFile = (agentDir: string) => join(agentDir, "cache", "hermes-catalog.json");

export async function readCache(agentDir: string): Promise<HermesCache> {
  try {
    return await readDocument(cacheFile(agentDir), codec);
  } catch {
    return emptyCache();
  }
}

/** Merges what this listing learnt into the file, under its lock, then prunes old trees and details. */
export async function saveCache(agentDir: string, learnt: HermesCache): Promise<void> {
  try {
    await update(
      cacheFile(agentDir),
      codec,
      (cur) => {
        const next: HermesCache = {
          version: 1,
          commits: { ...cur.commits, ...learnt.commits },
          trees: { ...cur.trees, ...learnt.trees },
          details: { ...cur.details, ...learnt.details },
        };
        const trees = Object.entries(next.trees).sort((a, b) => b[1].at.localeCompare(a[1].at));
        next.trees = Object.fromEntries(trees.slice(0, KEEP_TREES));
        const details = Object.entries(next.details);
        if (details.length > KEEP_DETAILS) next.details = Object.fromEntries(details.slice(-KEEP_DETAILS));
        return { next, result: undefined };
      },
      { confineTo: null, command: "lemon skill hermes", mode: 0o600 },
    );
  } catch {
    // A cache that cannot be written only costs the next listing its shortcut.
  }
}
