/**
 * @module skills/search/search
 * `skills.search` (skills.md §7.4, install.md §11): local results from `findRelevant` and online
 * discovery, run at the same time. The two halves never fail each other: an online source that
 * fails is a warning, a query too long for online sources is a warning, and `online: false`
 * skips the network entirely.
 */
import type { SkillEntry } from "../entry.ts";
import {
  MAX_DISCOVER_QUERY_CHARS,
  normaliseDiscoverMax,
  type DiscoveryResponse,
  type DiscoveryResult,
  type DiscoveryWarning,
} from "../online/discover.ts";
import { charCount, flattenLine } from "../../text.ts";

export interface SearchOptions {
  cwd?: string;
  /** Local results (default 5; same rules as findRelevant's maxResults). */
  maxLocal?: number;
  /** Online results (default 5; a positive integer, at most 100). */
  maxOnline?: number;
  /** Search online sources too (default true). */
  online?: boolean;
  tools?: readonly string[] | null;
}

export type SearchWarning = DiscoveryWarning;

export interface SearchResult {
  local: SkillEntry[];
  online: DiscoveryResult[];
  warnings: SearchWarning[];
}

export const DEFAULT_MAX_ONLINE = 5;

/** Both halves concurrently; a blank query has nothing to send online, so it stays local. */
export async function combinedSearch(
  query: string,
  opts: SearchOptions,
  halves: {
    local: (maxLocal: number) => Promise<SkillEntry[]>;
    online: (maxOnline: number) => Promise<DiscoveryResponse>;
  },
): Promise<SearchResult> {
  // Checked even when online is off: a bad argument is an error whatever else is asked.
  const maxOnline = normaliseDiscoverMax(opts.maxOnline ?? DEFAULT_MAX_ONLINE, "maxOnline");
  const q = flattenLine(query);
  // A local request may be a whole paragraph; online sources only take a short query.
  const tooLong = charCount(q) > MAX_DISCOVER_QUERY_CHARS;
  const goOnline = opts.online !== false && q !== "" && !tooLong;
  const [local, online] = await Promise.all([
    halves.local(opts.maxLocal ?? 5),
    goOnline ? halves.online(maxOnline) : null,
  ]);
  const warnings = online?.warnings ?? [];
  if (opts.online !== false && tooLong)
    warnings.push({
      source: "online",
      message: `query longer than ${MAX_DISCOVER_QUERY_CHARS} characters; online sources were not asked`,
    });
  return { local, online: online?.results ?? [], warnings };
}
