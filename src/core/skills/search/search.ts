/**
 * @module skills/search/search
 * `skills.search` (skills.md §7.4): local results from `findRelevant`; the online part
 * (install.md §11) is not built yet, so `online` is empty and a warning says so unless the
 * caller turned online search off.
 */
import type { SkillEntry } from "../entry.ts";

export const ONLINE_SEARCH_UNAVAILABLE =
  "online skill search is not available in this version; showing local results only";

export interface SearchOptions {
  cwd?: string;
  /** Local results (default 5; same rules as findRelevant's maxResults). */
  maxLocal?: number;
  /** Online results (default 5); accepted, unused until online search exists. */
  maxOnline?: number;
  /** Search online sources too (default true). */
  online?: boolean;
  tools?: readonly string[] | null;
}

export interface SearchWarning {
  source: string;
  message: string;
}

export interface SearchResult {
  local: SkillEntry[];
  /** DiscoveryResult objects (install.md §11) once online search exists. */
  online: Record<string, unknown>[];
  warnings: SearchWarning[];
}
