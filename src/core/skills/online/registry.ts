/**
 * @module skills/online/registry
 * The skills registry source (install.md §4.4): search and entry lookups over the one bounded
 * HTTP client, or straight from a directory when the base is a `file:` URL. Everything a
 * registry answers is untrusted: hits that are not valid install sources are dropped, an entry
 * whose git fields break the §2 rules is `registry entry is invalid`, and trust comes from the
 * ref's namespace alone — the registry can say nothing that raises it.
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { LemonContext } from "../../context.ts";
import type { DeepPartialSkills } from "../skills-config.ts";
import { envValue } from "../../context.ts";
import { LemonError, notFound } from "../../errors.ts";
import { readRegularFile } from "../../fsx/regular-file.ts";
import { checkSchema } from "../../schema/check.ts";
import { RegistryEntry, RegistryHit, RegistrySearch } from "../../schema/registry.ts";
import { clampChars, flattenLine, redactUrl, stripAnsi } from "../../text.ts";
import { exceeds, getJson, JSON_CAP } from "../install/http.ts";
import { parseSource, type SourceSpec, validRef, validSubdir } from "../install/source.ts";

export const NO_REGISTRY = "no skills registry configured; set LEMON_SKILLS_REGISTRY_URL or [skills] registry_url";
const INVALID_ENTRY = "registry entry is invalid";
const REF_SEGMENT = /^[A-Za-z0-9_-]+$/;
const COMMIT = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/i;
const TEXT_MAX = 1024;

/** What the registry calls take from the HTTP client (no token: a registry never gets one). */
export interface RegistryHttpOptions {
  fetch?: typeof globalThis.fetch;
  timeoutMs?: number;
  signal?: AbortSignal;
  retryDelaysMs?: number[];
  /** Routes requests through HTTP(S)_PROXY / NO_PROXY of this environment. */
  env?: Readonly<Record<string, string | undefined>>;
}

/** A search hit (install.md §4.4; discovery maps it to a DiscoveryResult). */
export interface RegistryResult {
  ref: string;
  name: string;
  description: string;
}

/** A validated entry: what the clone of §4.2 needs. */
export interface RegistryClone extends RegistryResult {
  cloneUrl: string;
  gitRef: string | null;
  subdir: string | null;
  /** Lower-case 40/64-hex pin, or null. */
  commit: string | null;
}

/** A registry ref of install.md §2 row 8: at least three segments of `[A-Za-z0-9_-]+`. */
export function isRegistryRef(ref: string): boolean {
  const segs = ref.split("/");
  return segs.length >= 3 && segs.every((s) => REF_SEGMENT.test(s));
}

/** Trust by namespace only (install.md §1, §4.4). */
export function registryTrust(ref: string): "official" | "community" {
  return ref.split("/")[0] === "official" ? "official" : "community";
}

function isLoopbackHost(hostname: string): boolean {
  const h = hostname.toLowerCase();
  return h === "localhost" || h === "[::1]" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}

/** A registry on this machine: registry-provided `file://` clone URLs are allowed only then. */
export function isLocalRegistry(base: string): boolean {
  const u = new URL(base);
  return u.protocol === "file:" || isLoopbackHost(u.hostname);
}

/** The base URL as lemon uses it: http(s) or a local `file:` directory, no query, no trailing slash. */
export function normalizeRegistryBase(raw: string): string {
  const bad = () => new LemonError("INVALID_REQUEST", `invalid skills registry URL '${redactUrl(raw)}'`);
  let u: URL;
  try {
    u = new URL(raw.trim());
  } catch {
    throw bad();
  }
  if (u.protocol !== "https:" && u.protocol !== "http:" && u.protocol !== "file:") throw bad();
  if (u.protocol === "file:" && u.hostname !== "" && u.hostname !== "localhost") throw bad();
  if (u.search !== "" || u.hash !== "") throw bad();
  return u.href.replace(/\/+$/, "");
}

/**
 * install.md §4.4: the module option, else `LEMON_SKILLS_REGISTRY_URL`, else `[skills] registry_url`.
 * None: UNAVAILABLE with the exact message.
 */
export function registryBase(from: {
  option?: string | null;
  env: Record<string, string | undefined>;
  config?: string | null;
}): string {
  const raw = from.option ?? envValue(from.env, "LEMON_SKILLS_REGISTRY_URL") ?? from.config ?? null;
  if (raw === null || raw.trim() === "") throw new LemonError("UNAVAILABLE", NO_REGISTRY);
  return normalizeRegistryBase(raw);
}

/** Where an instance's registry settings come from: createLemon's `config.skills` and whether `A/config.toml` is read. */
export interface RegistryConfigSource {
  readConfigFile?: boolean;
  config?: DeepPartialSkills;
}

/** A resolved registry: its base URL and the per-request timeout of `[skills] http_timeout_ms`. */
export interface RegistryTarget {
  base: string;
  timeoutMs: number;
}

/**
 * The registry of an instance (install.md §4.4): `config.skills.registry_url` given to
 * createLemon, else `LEMON_SKILLS_REGISTRY_URL`, else `registry_url` of `A/config.toml` (unless
 * the instance does not read the file). None: UNAVAILABLE before anything is asked.
 */
export async function registryFor(ctx: LemonContext, from: RegistryConfigSource = {}): Promise<RegistryTarget> {
  const { loadSkillsSettings, settingsFrom } = await import("../skills-config.ts");
  const option = settingsFrom(from.config === undefined ? [] : [from.config]).registryUrl;
  const merged = await loadSkillsSettings(ctx, {
    readConfigFile: from.readConfigFile !== false,
    ...(from.config !== undefined ? { config: from.config } : {}),
  });
  const file = from.readConfigFile === false ? null : merged.registryUrl;
  return { base: registryBase({ option, env: ctx.env, config: file }), timeoutMs: merged.httpTimeoutMs };
}

/**
 * Sets a registry spec's base, and the `[skills] http_timeout_ms` of every HTTP source (registry,
 * hermes, well-known), from the instance: the one place install and update take them from.
 */
export async function resolveRegistrySpec(ctx: LemonContext, spec: SourceSpec, from: RegistryConfigSource = {}) {
  if (spec.kind === "registry") {
    const target = await registryFor(ctx, from);
    spec.registryBase = target.base;
    spec.httpTimeoutMs = target.timeoutMs;
  } else if (spec.kind === "hermes" || spec.kind === "well_known") {
    const { loadSkillsSettings } = await import("../skills-config.ts");
    const settings = await loadSkillsSettings(ctx, {
      readConfigFile: from.readConfigFile !== false,
      ...(from.config !== undefined ? { config: from.config } : {}),
    });
    spec.httpTimeoutMs = settings.httpTimeoutMs;
  }
}

/** One JSON document of the API; a `file:` base reads `<dir>/<rel>` (a query is ignored there). */
async function registryJson(base: string, rel: string, query: string, opts: RegistryHttpOptions): Promise<unknown> {
  if (!base.startsWith("file:")) return getJson(`${base}/${rel}${query}`, opts);
  const file = join(fileURLToPath(`${base}/`), ...rel.split("/").map(decodeURIComponent));
  const read = readRegularFile(file, JSON_CAP);
  if (!read.ok) {
    if (read.problem === "missing") throw notFound(`${base}/${rel} not found`);
    if (read.problem === "too_large") throw exceeds(JSON_CAP);
    throw new LemonError("OPERATION_FAILED", `cannot read ${base}/${rel}`);
  }
  try {
    return JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(read.bytes));
  } catch {
    throw new LemonError("OPERATION_FAILED", `${base}/${rel} did not return valid JSON`);
  }
}

/** A registry's text as a terminal and a prompt may show it: one line, no escapes, bounded. */
function shownText(v: unknown): string {
  return typeof v === "string" ? clampChars(flattenLine(stripAnsi(v)), TEXT_MAX) : "";
}

/**
 * `GET <base>/search?q=<q>&limit=<n>`: the hits in the registry's order, at most `limit`, each
 * a valid registry ref (an `id` stands for a missing `ref`); malformed hits and repeats dropped.
 */
export async function searchRegistry(
  base: string,
  q: string,
  limit: number,
  opts: RegistryHttpOptions = {},
): Promise<RegistryResult[]> {
  const query = `?q=${encodeURIComponent(q)}&limit=${limit}`;
  const doc = await registryJson(base, "search", query, opts);
  const bad = checkSchema(RegistrySearch, doc);
  if (bad) throw new LemonError("OPERATION_FAILED", `invalid registry search response from ${redactUrl(base)}: ${bad}`);
  const out: RegistryResult[] = [];
  const seen = new Set<string>();
  for (const hit of (doc as RegistrySearch).skills) {
    if (out.length >= limit) break;
    if (checkSchema(RegistryHit, hit) !== null) continue;
    const h = hit as RegistryHit;
    const ref = h.ref ?? h.id;
    if (ref === undefined || !isRegistryRef(ref) || seen.has(ref)) continue;
    seen.add(ref);
    out.push({ ref, name: shownText(h.name) || (ref.split("/").pop() ?? ref), description: shownText(h.description) });
  }
  return out;
}

function invalid(why: string): LemonError {
  return new LemonError("OPERATION_FAILED", INVALID_ENTRY, { details: { reason: why } });
}

/** A registry's clone URL through the git rules of install.md §2 (no `ext::`, no option hosts, no fragment). */
function checkCloneUrl(url: string, base: string): string {
  let spec: ReturnType<typeof parseSource>;
  try {
    spec = parseSource(`git+${url}`, { cwd: "/", homeDir: "/", env: {} });
  } catch {
    throw invalid("clone_url");
  }
  if (spec.kind !== "git" || spec.cloneUrl === null || spec.ref !== null || spec.subdir !== null)
    throw invalid("clone_url");
  if (/^file:/i.test(spec.cloneUrl) && !isLocalRegistry(base)) throw invalid("clone_url");
  return spec.cloneUrl;
}

/**
 * `GET <base>/skills/<ref>` validated (install.md §4.4): 404 → NOT_FOUND, no clone URL →
 * `registry entry has no clone_url`, a bad clone URL, ref, subdir or commit → `registry entry is invalid`.
 */
export async function fetchRegistryEntry(
  base: string,
  ref: string,
  opts: RegistryHttpOptions = {},
): Promise<RegistryClone> {
  if (!isRegistryRef(ref)) throw new LemonError("INVALID_PARAMS", `cannot resolve skill source '${ref}'`);
  let doc: unknown;
  try {
    doc = await registryJson(base, `skills/${ref.split("/").map(encodeURIComponent).join("/")}`, "", opts);
  } catch (err) {
    if (LemonError.is(err) && err.code === "NOT_FOUND") throw notFound(`registry skill '${ref}' not found`);
    throw err;
  }
  if (checkSchema(RegistryEntry, doc) !== null) throw invalid("schema");
  const e = doc as RegistryEntry;
  const named = e.ref ?? e.id;
  if (named !== undefined && named !== ref) throw invalid("ref");
  const url = e.clone_url ?? e.url;
  if (url === undefined || url.trim() === "")
    throw new LemonError("OPERATION_FAILED", "registry entry has no clone_url");
  const cloneUrl = checkCloneUrl(url.trim(), base);
  const gitRef = e.git_ref ?? null;
  if (gitRef !== null && !validRef(gitRef)) throw invalid("git_ref");
  const subdir = e.subdir ?? null;
  if (subdir !== null && !validSubdir(subdir)) throw invalid("subdir");
  const commit = e.commit ?? null;
  if (commit !== null && !COMMIT.test(commit)) throw invalid("commit");
  return {
    ref,
    name: shownText(e.name) || (ref.split("/").pop() ?? ref),
    description: shownText(e.description),
    cloneUrl,
    gitRef,
    subdir: subdir === null ? null : subdir.replace(/\/$/, ""),
    commit: commit === null ? null : commit.toLowerCase(),
  };
}

/** The git clone an entry asks for (install.md §4.2): a `commit` pins it, else its ref or HEAD. */
export function cloneRequestOf(entry: RegistryClone): { url: string; ref: string | null; pinned: boolean } {
  if (entry.commit !== null) return { url: entry.cloneUrl, ref: entry.commit, pinned: true };
  return { url: entry.cloneUrl, ref: entry.gitRef, pinned: false };
}
