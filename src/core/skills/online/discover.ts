/**
 * @module skills/online/discover
 * Online discovery (install.md §11): GitHub topic search, the registry's `/search` and the
 * configured well-known indexes, queried concurrently through the one HTTP client. Every answer
 * is untrusted: an item that fails its schema or whose id would not be a valid install source is
 * dropped, text is flattened and clamped, and a source that fails only adds a warning. Only the
 * GitHub request may carry GITHUB_TOKEN; registries and well-known hosts never see it.
 */
import { envValue } from "../../context.ts";
import { LemonError, invalidParams, toLemonError } from "../../errors.ts";
import { checkSchema, isValid } from "../../schema/check.ts";
import { GitHubRepoItem, GitHubRepoSearch } from "../../schema/discovery.ts";
import { WellKnownIndex, WellKnownSkill } from "../../schema/well-known.ts";
import { charCount, clampChars, flattenLine, redactUrl, sanitizeMessage, stripAnsi } from "../../text.ts";
import { getJson, type HttpOptions } from "../install/http.ts";
import { parseSource, type SourceKind } from "../install/source.ts";
import { badWellKnownPath } from "../install/fetch.ts";
import { LIMITS } from "../bundle.ts";
import { normalizeRegistryBase, searchRegistry } from "./registry.ts";
import { checkGitHubRoot } from "./hermes.ts";

export type DiscoverySource = "github" | "registry" | "well_known";

/** One online hit (install.md §11); `id` is always a valid install source. */
export interface DiscoveryResult {
  source: DiscoverySource;
  id: string;
  name: string;
  description: string;
  url: string;
  score: number;
  validated: boolean;
}

export interface DiscoveryWarning {
  source: string;
  message: string;
}

export interface DiscoveryResponse {
  results: DiscoveryResult[];
  warnings: DiscoveryWarning[];
}

/** Where discovery looks; built from the env and `[skills]` by `discoverConfig`. */
export interface DiscoverConfig {
  registryUrl: string | null;
  wellKnown: readonly string[];
  githubApi: string;
  githubRaw: string;
  githubToken: string | null;
  timeoutMs: number;
  /** The context's environment, so HTTP(S)_PROXY / NO_PROXY route every discovery request. */
  env?: Readonly<Record<string, string | undefined>>;
  fetch?: typeof globalThis.fetch;
  /** Waits between retries (tests shorten them). */
  retryDelaysMs?: number[];
}

export const DEFAULT_DISCOVER_MAX = 10;
/** Longer queries are refused: GitHub's search caps `q` at 256 characters, and no hit needs more. */
export const MAX_DISCOVER_QUERY_CHARS = 200;
/** No source answers more than this many usable hits in one request; a larger max only costs. */
export const MAX_DISCOVER_RESULTS = 100;
const GITHUB_API = "https://api.github.com";
const GITHUB_RAW = "https://raw.githubusercontent.com";
const WELL_KNOWN_SCORE = 60;
const NAME_CHARS = 128;
const DESCRIPTION_CHARS = 1024;

const trimSlash = (s: string) => s.replace(/\/+$/, "");

/** The sources of a context: the registry base, GitHub origins and token from the env and `[skills]`. */
export function discoverConfig(
  env: Readonly<Record<string, string | undefined>>,
  settings: { registryUrl: string | null; wellKnown: readonly string[]; httpTimeoutMs: number },
  registryOption?: string,
): DiscoverConfig {
  const token = env.GITHUB_TOKEN?.trim();
  return {
    // install.md §4.4: the module option (createLemon's config.skills.registry_url), else the env,
    // else `[skills] registry_url` of the file.
    registryUrl: registryOption?.trim() || envValue(env, "LEMON_SKILLS_REGISTRY_URL") || settings.registryUrl,
    wellKnown: settings.wellKnown,
    githubApi: trimSlash(env.LEMON_GITHUB_API_URL?.trim() || GITHUB_API),
    githubRaw: trimSlash(env.LEMON_GITHUB_RAW_URL?.trim() || GITHUB_RAW),
    githubToken: token ? token : null,
    timeoutMs: settings.httpTimeoutMs,
    env,
  };
}

/** `max` as discovery takes it: default 10, a positive integer, at most 100. */
export function normaliseDiscoverMax(max: number | undefined, what = "max"): number {
  if (max === undefined) return DEFAULT_DISCOVER_MAX;
  if (!Number.isSafeInteger(max) || max < 1) throw invalidParams(`${what} must be a positive integer`);
  return Math.min(max, MAX_DISCOVER_RESULTS);
}

const line = (s: unknown, max: number): string =>
  typeof s === "string" ? clampChars(flattenLine(stripAnsi(s)), max) : "";

/** True when `id` parses as an install source of `kind` (never local: no path is resolved). */
function installable(id: string, kind: SourceKind): boolean {
  try {
    return parseSource(id, { cwd: "/", homeDir: "/", env: {} }).kind === kind;
  } catch {
    return false;
  }
}

const LOOPBACK = /^(?:localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i;

/** A well-known origin from the config: https, or http on loopback; nothing but the origin. */
export function checkWellKnownOrigin(raw: string): string {
  let u: URL;
  try {
    u = new URL(raw.trim());
  } catch {
    throw new LemonError("INVALID_REQUEST", "well-known origin is not a URL");
  }
  const shown = redactUrl(u.href);
  if (u.protocol !== "https:" && !(u.protocol === "http:" && LOOPBACK.test(u.hostname)))
    throw new LemonError("INVALID_REQUEST", `${shown} is not an https origin (http only on loopback)`);
  if (
    u.username !== "" ||
    u.password !== "" ||
    u.search !== "" ||
    u.hash !== "" ||
    (u.pathname !== "/" && u.pathname !== "")
  )
    throw new LemonError("INVALID_REQUEST", `${shown} must be an origin only (no path, query or credentials)`);
  return u.origin;
}

function httpOpts(cfg: DiscoverConfig, more: Partial<HttpOptions> = {}): Omit<HttpOptions, "maxBytes"> {
  return {
    timeoutMs: cfg.timeoutMs,
    ...(cfg.env ? { env: cfg.env } : {}),
    ...(cfg.fetch ? { fetch: cfg.fetch } : {}),
    ...(cfg.retryDelaysMs ? { retryDelaysMs: cfg.retryDelaysMs } : {}),
    ...more,
  };
}

const originOf = (u: string): string | null => {
  try {
    return new URL(u).origin;
  } catch {
    return null;
  }
};

async function searchGitHub(query: string, cfg: DiscoverConfig): Promise<DiscoveryResult[]> {
  checkGitHubRoot("LEMON_GITHUB_API_URL", cfg.githubApi);
  checkGitHubRoot("LEMON_GITHUB_RAW_URL", cfg.githubRaw);
  const q = `topic:lemon-skill ${query} in:name,description,readme`;
  const params = new URLSearchParams({ q, sort: "stars", order: "desc", per_page: "10" });
  const origins = [originOf(cfg.githubApi), originOf(cfg.githubRaw)].filter((o): o is string => o !== null);
  // A rate limit that resets later than a retry may wait fails at once, naming the reset (http.ts).
  const doc = await getJson(
    `${cfg.githubApi}/search/repositories?${params}`,
    httpOpts(cfg, {
      headers: { Accept: "application/vnd.github+json", "X-GitHub-Api-Version": "2022-11-28" },
      ...(cfg.githubToken ? { token: { value: cfg.githubToken, origins } } : {}),
    }),
  );
  const bad = checkSchema(GitHubRepoSearch, doc);
  if (bad) throw new LemonError("OPERATION_FAILED", `invalid GitHub search response: ${bad}`);
  const needle = query.toLowerCase();
  const out: DiscoveryResult[] = [];
  for (const item of (doc as GitHubRepoSearch).items) {
    if (!isValid(GitHubRepoItem, item)) continue;
    const repo = item as GitHubRepoItem;
    const id = `gh:${repo.full_name}`;
    if (!installable(id, "github")) continue;
    const description = line(repo.description ?? "", DESCRIPTION_CHARS);
    const stars = Number.isFinite(repo.stargazers_count) ? Math.max(0, Math.floor(repo.stargazers_count ?? 0)) : 0;
    const score =
      Math.min(stars, 100) +
      (repo.full_name.toLowerCase().includes(needle) ? 50 : 0) +
      (description.toLowerCase().includes(needle) ? 20 : 0);
    const html = /^https?:\/\//i.test(repo.html_url)
      ? redactUrl(repo.html_url)
      : `https://github.com/${repo.full_name}`;
    out.push({
      source: "github",
      id,
      name: line(repo.name, NAME_CHARS) || repo.full_name,
      description,
      url: html,
      score,
      validated: false,
    });
  }
  return out;
}

const refUrl = (base: string, ref: string) => `${base}/skills/${ref.split("/").map(encodeURIComponent).join("/")}`;

async function registryHits(query: string, max: number, cfg: DiscoverConfig): Promise<DiscoveryResult[]> {
  const base = normalizeRegistryBase(cfg.registryUrl ?? "");
  // No token option: a registry never receives a credential from lemon (install.md §3).
  const hits = await searchRegistry(base, query, max, httpOpts(cfg));
  return hits
    .filter((h) => installable(h.ref, "registry"))
    .map((h, rank) => ({
      source: "registry",
      id: h.ref,
      name: line(h.name, NAME_CHARS),
      description: line(h.description, DESCRIPTION_CHARS),
      url: refUrl(base, h.ref),
      score: 100 - rank,
      validated: true,
    }));
}

/** The index entries of one origin that would install: name, SKILL.md listed, every path safe. */
function wellKnownHits(origin: string, doc: unknown, needle: string): DiscoveryResult[] {
  const bad = checkSchema(WellKnownIndex, doc);
  if (bad) throw new LemonError("OPERATION_FAILED", `invalid well-known index: ${bad}`);
  const out: DiscoveryResult[] = [];
  for (const item of (doc as WellKnownIndex).skills) {
    if (!isValid(WellKnownSkill, item)) continue;
    const s = item as WellKnownSkill;
    const files = s.files;
    if (files.length > LIMITS.maxFiles || !files.includes("SKILL.md") || files.some((f) => badWellKnownPath(f)))
      continue;
    const id = `${origin}/.well-known/skills/${s.name}`;
    if (!installable(id, "well_known")) continue;
    const description = line(s.description ?? "", DESCRIPTION_CHARS);
    if (!s.name.toLowerCase().includes(needle) && !description.toLowerCase().includes(needle)) continue;
    out.push({
      source: "well_known",
      id,
      name: s.name,
      description,
      url: id,
      score: WELL_KNOWN_SCORE,
      validated: false,
    });
  }
  return out;
}

async function searchWellKnown(origin: string, needle: string, cfg: DiscoverConfig): Promise<DiscoveryResult[]> {
  const doc = await getJson(`${origin}/.well-known/skills/index.json`, httpOpts(cfg));
  return wellKnownHits(origin, doc, needle);
}

/** Merges hits: one per id (the higher score), score descending then id, at most `max`. */
export function mergeResults(lists: readonly DiscoveryResult[][], max: number): DiscoveryResult[] {
  const best = new Map<string, DiscoveryResult>();
  for (const list of lists)
    for (const r of list) {
      const seen = best.get(r.id);
      if (seen === undefined || r.score > seen.score) best.set(r.id, r);
    }
  return [...best.values()].sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)).slice(0, max);
}

const warning = (source: string, e: unknown): DiscoveryWarning => ({
  source,
  message: sanitizeMessage(toLemonError(e).message),
});

/**
 * Queries every configured source at once (install.md §11). Fails only on invalid arguments
 * (an empty query, a bad max); a failing source adds a warning and contributes nothing.
 */
export async function discover(
  query: string,
  max: number | undefined,
  cfg: DiscoverConfig,
): Promise<DiscoveryResponse> {
  const q = flattenLine(query);
  if (q === "") throw invalidParams("query must not be empty");
  if (charCount(q) > MAX_DISCOVER_QUERY_CHARS)
    throw invalidParams(`query must be at most ${MAX_DISCOVER_QUERY_CHARS} characters`);
  const limit = normaliseDiscoverMax(max);
  const warnings: DiscoveryWarning[] = [];
  const jobs: { source: string; run: () => Promise<DiscoveryResult[]> }[] = [
    { source: "github", run: () => searchGitHub(q, cfg) },
  ];
  if (cfg.registryUrl !== null) jobs.push({ source: "registry", run: () => registryHits(q, limit, cfg) });
  const needle = q.toLowerCase();
  for (const raw of cfg.wellKnown) {
    let origin: string;
    try {
      origin = checkWellKnownOrigin(raw);
    } catch (e) {
      warnings.push(warning("well_known", e));
      continue;
    }
    jobs.push({
      source: "well_known",
      run: async () => {
        try {
          return await searchWellKnown(origin, needle, cfg);
        } catch (e) {
          // Several origins share one source label: the message names which one failed.
          throw new LemonError("OPERATION_FAILED", `${origin}: ${toLemonError(e).message}`);
        }
      },
    });
  }
  const settled = await Promise.allSettled(jobs.map((j) => j.run()));
  const lists: DiscoveryResult[][] = [];
  settled.forEach((s, i) => {
    if (s.status === "fulfilled") lists.push(s.value);
    else warnings.push(warning(jobs[i]?.source ?? "online", s.reason));
  });
  return { results: mergeResults(lists, limit), warnings };
}
