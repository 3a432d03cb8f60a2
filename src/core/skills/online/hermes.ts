/**
 * @module skills/online/hermes
 * The official Hermes catalog (install.md §4.5): the `NousResearch/hermes-agent` tree at a
 * pinned commit through a GitHub-shaped API, or a local checkout named by `LEMON_HERMES_REPO`.
 * Everything the API answers is untrusted: ids come only from paths whose segments are safe, and
 * details (name, description) only from a SKILL.md whose bytes match the tree's blob sha.
 */
import { envValue } from "../../context.ts";
import { invalidParams, LemonError } from "../../errors.ts";
import { checkSchema } from "../../schema/check.ts";
import { GitHubCommit, GitHubTree, type GitHubTreeEntry, type HermesCache } from "../../schema/hermes.ts";
import { MAX_SKILL_FILE_BYTES } from "../frontmatter.ts";
import { parseSkillBytes } from "../skill-file.ts";
import { bounded } from "../install/bounded.ts";
import { getJson, httpGet, JSON_CAP, type HttpOptions } from "../install/http.ts";
import { validRef } from "../install/source.ts";
import { decodeUtf8, redactUrl } from "../../text.ts";
import { emptyCache, readCache, saveCache } from "./hermes-cache.ts";
import { localCatalog, localRepo } from "./hermes-local.ts";

export const HERMES_REPO = "NousResearch/hermes-agent";
export const TREE_CAP = 32 * 1024 * 1024;
const DETAILS_AT_ONCE = 8;
const SEGMENT = /^[A-Za-z0-9._-]+$/;
export const COLLECTION_DIRS = { bundled: "skills", optional: "optional-skills" } as const;
export type Collection = keyof typeof COLLECTION_DIRS;

/** One catalog entry (cli.md §2.11). `sha`/`tree_sha` are null only for a local checkout's trees. */
export interface HermesEntry {
  id: string;
  key: string;
  name: string;
  description: string;
  category: string;
  collection: Collection;
  path: string;
  sha: string | null;
  tree_sha: string | null;
}

export interface HermesCatalog {
  source: "github" | "local";
  commit: string | null;
  truncated: boolean;
  skills: HermesEntry[];
  warnings: string[];
}

export interface CatalogQuery {
  query?: string;
  category?: string;
  collection?: Collection | "all";
  details?: boolean;
}

/** What the catalog and the fetcher need from their caller. */
export interface HermesOptions {
  env: Readonly<Record<string, string | undefined>>;
  /** The agent dir whose cache keeps ETags, trees and details; null = no cache. */
  agentDir: string | null;
  fetch?: typeof globalThis.fetch;
  timeoutMs?: number;
  retryDelaysMs?: number[];
  signal?: AbortSignal;
  onProgress?: (line: string) => void;
  /** Every HTTP request sent (benchmarks count them). */
  onRequest?: (url: string) => void;
  now?: () => Date;
}

export const safeSegment = (s: string) => SEGMENT.test(s) && s !== "." && s !== "..";

/** The API and raw roots, the ref, and the HTTP options every request shares (token only to those two origins). */
export interface Remote {
  api: string;
  raw: string;
  ref: string;
  http: Omit<HttpOptions, "maxBytes">;
}

const trimSlash = (u: string) => u.replace(/\/+$/, "");
const origin = (u: string) => new URL(u).origin;

export type GitHubRootVar = "LEMON_GITHUB_API_URL" | "LEMON_GITHUB_RAW_URL";

/**
 * A GitHub root as `name` gave it: an http(s) URL, else INVALID_REQUEST (the arguments were
 * fine: the environment is not) with the value redacted. `skill hermes` fails with it and
 * `skill discover` warns with it, so both say the same thing.
 */
export function checkGitHubRoot(name: GitHubRootVar, value: string): string {
  let u: URL | null = null;
  try {
    u = new URL(value);
  } catch {
    // redactUrl names an unparsable value `<invalid url>`: its userinfo cannot be cut out safely.
  }
  if (u === null || (u.protocol !== "http:" && u.protocol !== "https:"))
    throw new LemonError("INVALID_REQUEST", `invalid URL in ${name}: ${redactUrl(value)}`);
  return value;
}
const encodePath = (p: string) => p.split("/").map(encodeURIComponent).join("/");

export function remoteOf(opts: HermesOptions): Remote {
  const root = (name: GitHubRootVar, fallback: string) =>
    checkGitHubRoot(name, trimSlash(envValue(opts.env, name)?.trim() || fallback));
  const api = root("LEMON_GITHUB_API_URL", "https://api.github.com");
  const raw = root("LEMON_GITHUB_RAW_URL", "https://raw.githubusercontent.com");
  const ref = envValue(opts.env, "LEMON_HERMES_REF") ?? "main";
  if (!validRef(ref)) throw new LemonError("INVALID_REQUEST", `invalid LEMON_HERMES_REF '${ref.slice(0, 80)}'`);
  const token = envValue(opts.env, "GITHUB_TOKEN");
  const http: Omit<HttpOptions, "maxBytes"> = {
    headers: { Accept: "application/vnd.github+json", "X-GitHub-Api-Version": "2022-11-28" },
    ...(token !== undefined ? { token: { value: token, origins: [origin(api), origin(raw)] } } : {}),
    ...(opts.fetch ? { fetch: opts.fetch } : {}),
    ...(opts.timeoutMs !== undefined ? { timeoutMs: opts.timeoutMs } : {}),
    ...(opts.retryDelaysMs ? { retryDelaysMs: opts.retryDelaysMs } : {}),
    ...(opts.signal ? { signal: opts.signal } : {}),
    ...(opts.onRequest ? { onRequest: opts.onRequest } : {}),
    env: opts.env,
  };
  return { api, raw, ref, http };
}

const invalidAnswer = (what: string) => new LemonError("OPERATION_FAILED", `invalid GitHub answer for ${what}`);

/** The ref's commit sha; with a cache, a conditional request whose 304 reuses the cached sha. */
export async function resolveCommit(r: Remote, cache: HermesCache | null, learnt: HermesCache | null): Promise<string> {
  const url = `${r.api}/repos/${HERMES_REPO}/commits/${encodePath(r.ref)}`;
  // Own keys only: a ref named like an Object.prototype member must not read or set one.
  const cached = cache && Object.hasOwn(cache.commits, r.ref) ? cache.commits[r.ref] : undefined;
  const usable = cached !== undefined && cached.url === url ? cached : undefined;
  const res = await httpGet(url, { ...r.http, maxBytes: JSON_CAP, ...(usable ? { etag: usable.etag } : {}) });
  if (res.status === 304 && usable) return usable.sha;
  let doc: unknown;
  try {
    doc = JSON.parse(decodeUtf8(res.body) ?? "");
  } catch {
    throw invalidAnswer(`commit '${r.ref}'`);
  }
  if (checkSchema(GitHubCommit, doc) !== null) throw invalidAnswer(`commit '${r.ref}'`);
  const sha = (doc as GitHubCommit).sha;
  const etag = res.headers.get("etag");
  if (learnt && etag !== null && etag.length <= 256 && r.ref !== "__proto__")
    learnt.commits[r.ref] = { url, etag, sha, at: new Date().toISOString() };
  return sha;
}

/** The recursive tree at `treeSha` (a commit or tree sha): its entries and whether GitHub cut it. */
export async function fetchTree(
  r: Remote,
  treeSha: string,
): Promise<{ entries: GitHubTreeEntry[]; truncated: boolean }> {
  const url = `${r.api}/repos/${HERMES_REPO}/git/trees/${treeSha}?recursive=1`;
  const doc = await getJson(url, { ...r.http, maxBytes: TREE_CAP, headers: r.http.headers ?? {} });
  if (checkSchema(GitHubTree, doc) !== null) throw invalidAnswer("the repository tree");
  const t = doc as GitHubTree;
  return { entries: t.tree, truncated: t.truncated === true };
}

/** The catalog entries a tree holds (install.md §4.5 skill rule), without details. */
export function entriesOf(tree: readonly GitHubTreeEntry[]): HermesEntry[] {
  const trees = new Map<string, string>();
  for (const e of tree) if (e.type === "tree") trees.set(e.path, e.sha);
  const out: HermesEntry[] = [];
  for (const e of tree) {
    if (e.type !== "blob" || e.mode === "120000" || !e.path.endsWith("/SKILL.md")) continue;
    const segs = e.path.split("/");
    const top = segs[0];
    const collection = top === "skills" ? "bundled" : top === "optional-skills" ? "optional" : null;
    const idSegs = segs.slice(1, -1);
    if (collection === null || idSegs.length === 0 || !idSegs.every(safeSegment)) continue;
    const path = segs.slice(0, -1).join("/");
    out.push(makeEntry(collection, idSegs, path, e.sha, trees.get(path) ?? null));
  }
  return out;
}

export function makeEntry(
  collection: Collection,
  segs: string[],
  path: string,
  sha: string | null,
  treeSha: string | null,
): HermesEntry {
  const key = segs[segs.length - 1] ?? "";
  const category = segs.length > 1 ? segs.slice(0, -1).join("/") : "other";
  const id = `hermes:${collection}/${segs.join("/")}`;
  return { id, key, name: key, description: "", category, collection, path, sha, tree_sha: treeSha };
}

/** git's blob id of `bytes` (sha1, or sha256 for a 64-hex id): what a tree entry's `sha` names. */
export function gitBlobId(bytes: Uint8Array, like: string): string {
  const hasher = new Bun.CryptoHasher(like.length === 64 ? "sha256" : "sha1");
  return hasher.update(`blob ${bytes.byteLength}\0`).update(bytes).digest("hex");
}

/** name/description through the one SKILL.md reader; a file it refuses leaves them empty. */
export async function detailsOf(bytes: Uint8Array): Promise<{ name: string; description: string }> {
  const read = await parseSkillBytes(bytes);
  if (!read.ok) return { name: "", description: "" };
  const str = (v: unknown) => (typeof v === "string" ? v.trim().replace(/\s+/g, " ").slice(0, 1024) : "");
  return { name: str(read.manifest.name), description: str(read.manifest.description) };
}

function filtered(entries: HermesEntry[], q: CatalogQuery, details: boolean): HermesEntry[] {
  const needle = q.query?.trim().toLowerCase() ?? "";
  return entries
    .filter((e) => q.category === undefined || e.category === q.category)
    .filter((e) => {
      if (needle === "") return true;
      const fields = details ? [e.name, e.key, e.category, e.description] : [e.key, e.category, e.path];
      return fields.some((f) => f.toLowerCase().includes(needle));
    })
    .sort(
      (a, b) =>
        a.collection.localeCompare(b.collection) ||
        a.category.localeCompare(b.category) ||
        a.name.localeCompare(b.name) ||
        a.id.localeCompare(b.id),
    );
}

function checkQuery(q: CatalogQuery): Collection | "all" {
  const c = q.collection ?? "all";
  if (c !== "all" && c !== "bundled" && c !== "optional")
    throw invalidParams(`unknown collection '${String(c).slice(0, 40)}': use bundled, optional or all`);
  return c;
}

/** The catalog (install.md §4.5), filtered and sorted; `details` fetches each SKILL.md (8 at a time). */
export async function hermesCatalog(q: CatalogQuery, opts: HermesOptions): Promise<HermesCatalog> {
  const collection = checkQuery(q);
  const details = q.details === true;
  const keep = (e: HermesEntry) => collection === "all" || e.collection === collection;
  const local = localRepo(opts.env);
  if (local !== null) {
    const cat = await localCatalog(local, details, keep);
    return { ...cat, skills: filtered(cat.skills, q, details) };
  }
  const r = remoteOf(opts);
  const cache = opts.agentDir !== null ? await readCache(opts.agentDir) : null;
  const learnt = opts.agentDir !== null ? emptyCache() : null;
  const commit = await resolveCommit(r, cache, learnt);
  let tree = cache && Object.hasOwn(cache.trees, commit) ? cache.trees[commit] : undefined;
  if (tree === undefined) {
    const t = await fetchTree(r, commit);
    const entries = t.entries.filter((e) => e.path.startsWith("skills/") || e.path.startsWith("optional-skills/"));
    tree = { truncated: t.truncated, entries, at: new Date().toISOString() };
    if (learnt) learnt.trees[commit] = tree;
  }
  const all = entriesOf(tree.entries).filter(keep);
  const pre = details ? all : filtered(all, q, false);
  if (details) await remoteDetails(r, commit, pre, cache, learnt, opts.onProgress);
  if (opts.agentDir !== null && learnt !== null) await saveCache(opts.agentDir, learnt);
  const warnings = tree.truncated ? ["catalog listing is truncated"] : [];
  return { source: "github", commit, truncated: tree.truncated, skills: filtered(pre, q, details), warnings };
}

async function remoteDetails(
  r: Remote,
  commit: string,
  entries: HermesEntry[],
  cache: HermesCache | null,
  learnt: HermesCache | null,
  onProgress?: (line: string) => void,
): Promise<void> {
  let done = 0;
  await bounded(entries, DETAILS_AT_ONCE, async (e) => {
    const sha = e.sha ?? "";
    const hit = cache && Object.hasOwn(cache.details, sha) ? cache.details[sha] : undefined;
    if (hit) {
      e.name = hit.name || e.key;
      e.description = hit.description;
    } else {
      try {
        const url = `${r.raw}/${HERMES_REPO}/${commit}/${encodePath(e.path)}/SKILL.md`;
        const res = await httpGet(url, { ...r.http, headers: {}, maxBytes: MAX_SKILL_FILE_BYTES });
        // Bytes that are not the tree's blob are not this skill's: its details stay empty.
        if (gitBlobId(res.body, sha) === sha) {
          const d = await detailsOf(res.body);
          e.name = d.name || e.key;
          e.description = d.description;
          if (learnt) learnt.details[sha] = d;
        }
      } catch {
        // install.md §4.5: a failed detail leaves name and description as they were.
      }
    }
    done++;
    if (onProgress && (done % 10 === 0 || done === entries.length))
      onProgress(`hermes: details ${done}/${entries.length}`);
  });
}
