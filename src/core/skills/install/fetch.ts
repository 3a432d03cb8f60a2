/**
 * @module skills/install/fetch
 * Brings a parsed source onto disk (install.md §4.1–§4.3, §4.6) inside the private fetch dir and
 * applies the subdir. The caller (install §5 step 4) selects the skill and copies regular files
 * into staging; nothing here is trusted yet.
 */
import { lstat, mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { LemonError, invalidRequest, notFound } from "../../errors.ts";
import { checkSchema } from "../../schema/check.ts";
import { WellKnownIndex, WellKnownSkill } from "../../schema/well-known.ts";
import { LIMITS } from "../bundle.ts";
import { bounded } from "./bounded.ts";
import { cloneRequestOf, fetchRegistryEntry, registryBase, type RegistryHttpOptions } from "../online/registry.ts";
import { cloneRepo } from "./git.ts";
import { fetchHermes } from "../online/hermes-fetch.ts";
import type { HermesOptions } from "../online/hermes.ts";
import { FILE_CAP, getJson, httpGet } from "./http.ts";
import type { SourceSpec } from "./source.ts";

export interface FetchOptions {
  env: Record<string, string | undefined>;
  /** progress lines for slow clones (cli shows them on a TTY / with --verbose) */
  onProgress?: (line: string) => void;
  signal?: AbortSignal;
  /** git: 120_000 */
  timeoutMs?: number;
  /** well_known HTTP */
  fetch?: typeof globalThis.fetch;
  /** Override of the 256 MiB checkout bound (tests). */
  maxCheckoutBytes?: number;
  /** HTTP retry waits (tests shorten them); default 500 ms, 1,500 ms. */
  retryDelaysMs?: number[];
  /** Called after each git process with its subcommand and wall time (benchmarks: lemon's own overhead). */
  onGitCommand?: (subcommand: string, ms: number) => void;
}

export interface FetchedSource {
  /** Directory holding the source after the subdir is applied (inside `into`, or the local path itself). */
  root: string;
  resolvedCommit: string | null;
  /** git/github: the commit; local/well_known: null here (install computes the bundle hash). */
  upstreamHash: string | null;
}

/** Fetch into the private dir `into` (already created, 0700). hermes -> UNAVAILABLE with a clear message. */
export async function fetchSource(spec: SourceSpec, into: string, opts: FetchOptions): Promise<FetchedSource> {
  switch (spec.kind) {
    case "local": {
      const base = spec.localPath ?? spec.sourceId;
      const st = await lstat(base).catch(() => null);
      if (!st) throw notFound(`skill source not found: ${base}`);
      if (!st.isDirectory()) throw invalidRequest(`skill source is not a directory: ${base}`);
      return { root: await applySubdir(base, spec.subdir, spec.display), resolvedCommit: null, upstreamHash: null };
    }
    case "git":
    case "github": {
      if (!spec.cloneUrl) throw new LemonError("OPERATION_FAILED", `no clone URL for ${spec.display}`);
      const { dir, commit } = await cloneRepo(
        { url: spec.cloneUrl, ref: spec.ref, pinned: spec.pinned, subdir: spec.subdir, display: spec.display },
        into,
        opts,
      );
      return { root: await applySubdir(dir, spec.subdir, spec.display), resolvedCommit: commit, upstreamHash: commit };
    }
    case "well_known":
      return { root: await fetchWellKnown(spec, into, opts), resolvedCommit: null, upstreamHash: null };
    case "registry":
      return fetchRegistry(spec, into, opts);
    case "hermes":
      return fetchHermes(spec, into, hermesOptions(spec, opts));
  }
}

/** install.md §4.4: look the entry up, then clone it as §4.2 with its ref, subdir and commit pin. */
async function fetchRegistry(spec: SourceSpec, into: string, opts: FetchOptions): Promise<FetchedSource> {
  const base = spec.registryBase ?? registryBase({ env: opts.env });
  const entry = await fetchRegistryEntry(base, spec.registryRef ?? spec.sourceId, httpOf(spec, opts));
  const { dir, commit } = await cloneRepo(
    { ...cloneRequestOf(entry), subdir: entry.subdir, display: spec.display },
    into,
    opts,
  );
  return { root: await applySubdir(dir, entry.subdir, spec.display), resolvedCommit: commit, upstreamHash: commit };
}

/**
 * The HTTP client options every registry, well-known and hermes request of `spec` shares: the
 * context's env (HTTP(S)_PROXY, NO_PROXY) and `[skills] http_timeout_ms`. No token: only GitHub
 * origins ever get one (hermes adds it).
 */
export function httpOf(spec: SourceSpec, opts: FetchOptions): RegistryHttpOptions {
  return {
    env: opts.env,
    ...(spec.httpTimeoutMs !== undefined ? { timeoutMs: spec.httpTimeoutMs } : {}),
    ...(opts.fetch ? { fetch: opts.fetch } : {}),
    ...(opts.signal ? { signal: opts.signal } : {}),
    ...(opts.retryDelaysMs ? { retryDelaysMs: opts.retryDelaysMs } : {}),
  };
}

/**
 * The subdir must exist as a real directory: neither it nor any directory on the way to it may be
 * a symlink (install.md §4.7), so a repository cannot point an install outside itself.
 */
async function applySubdir(base: string, subdir: string | null, display: string): Promise<string> {
  if (subdir === null) return base;
  let at = base;
  const walked: string[] = [];
  for (const seg of subdir.split("/")) {
    at = join(at, seg);
    walked.push(seg);
    const st = await lstat(at).catch(() => null);
    if (!st) throw notFound(`subdir '${subdir}' not found in ${display}`);
    if (st.isSymbolicLink())
      throw invalidRequest(`symlink_not_allowed: ${walked.join("/")}`, {
        details: { reasons: [`symlink_not_allowed: ${walked.join("/")}`] },
      });
    if (!st.isDirectory()) throw notFound(`subdir '${subdir}' is not a directory in ${display}`);
  }
  return at;
}

/** install.md §4.6 file path rule; returns why a path is refused, or null. */
export function badWellKnownPath(p: string): string | null {
  if (p === "" || Buffer.byteLength(p, "utf8") > LIMITS.maxRelPathBytes) return "empty or too long";
  if (p.startsWith("/") || /^[A-Za-z]:/.test(p)) return "absolute";
  if (p.includes("\\") || p.includes("\0")) return "backslash or NUL";
  if (/[\u0000-\u001f\u007f]/.test(p)) return "control character";
  const segs = p.split("/");
  if (segs.some((s) => s === "" || s === "." || s === "..")) return "empty, '.' or '..' segment";
  return null;
}

const DOWNLOADS_AT_ONCE = 8;

async function fetchWellKnown(spec: SourceSpec, into: string, opts: FetchOptions): Promise<string> {
  const wk = spec.wellKnown;
  if (!wk) throw new LemonError("OPERATION_FAILED", `no well-known origin for ${spec.display}`);
  const http = httpOf(spec, opts);
  const base = `${wk.origin}/.well-known/skills`;
  const index = await getJson(`${base}/index.json`, http);
  const invalid = (why: string) => new LemonError("OPERATION_FAILED", `invalid well-known index at ${base}: ${why}`);
  const bad = checkSchema(WellKnownIndex, index);
  if (bad) throw invalid(bad);
  const entry = (index as WellKnownIndex).skills.find(
    (s): s is WellKnownSkill => checkSchema(WellKnownSkill, s) === null && (s as WellKnownSkill).name === wk.name,
  );
  if (!entry) throw notFound(`well-known skill '${wk.name}' not found at ${base}`);
  const files = entry.files;
  if (files.length > LIMITS.maxFiles) throw invalid(`more than ${LIMITS.maxFiles} files`);
  if (!files.includes("SKILL.md")) throw invalid(`skill '${wk.name}' does not list SKILL.md`);
  const seen = new Set<string>();
  for (const f of files) {
    const why = badWellKnownPath(f);
    if (why) throw invalid(`file path ${JSON.stringify(f.slice(0, 80))} is ${why}`);
    if (seen.has(f)) throw invalid(`file ${f} is listed twice`);
    seen.add(f);
  }
  // A path that is both a file and a directory of another (`a` and `a/b`) cannot be written.
  for (const f of files) {
    const segs = f.split("/");
    for (let i = 1; i < segs.length; i++)
      if (seen.has(segs.slice(0, i).join("/"))) throw invalid(`file ${segs.slice(0, i).join("/")} is also a directory`);
  }
  const root = join(into, "well-known");
  await mkdir(root, { recursive: true, mode: 0o700 });
  let total = 0;
  // bounded() lets every started download settle before it throws: none writes after the caller
  // has removed the fetch dir.
  await bounded(files, DOWNLOADS_AT_ONCE, async (f) => {
    const url = `${base}/${encodeURIComponent(wk.name)}/${f.split("/").map(encodeURIComponent).join("/")}`;
    const res = await httpGet(url, { ...http, maxBytes: FILE_CAP });
    total += res.body.byteLength;
    if (total > LIMITS.maxTotalBytes)
      throw invalidRequest("bundle_limits_exceeded: total size", {
        details: { reasons: ["bundle_limits_exceeded: total size"] },
      });
    const file = join(root, f);
    await mkdir(join(file, ".."), { recursive: true, mode: 0o700 });
    // `wx`: every path is new in a directory only this process writes; never through a link.
    await writeFile(file, res.body, { flag: "wx", mode: 0o600 });
  });
  return root;
}

/** What a Hermes download takes from a fetch: no cache (an install always asks for the tree anew). */
export function hermesOptions(spec: SourceSpec, opts: FetchOptions): HermesOptions {
  const progress = opts.onProgress ? { onProgress: opts.onProgress } : {};
  return { ...httpOf(spec, opts), env: opts.env, agentDir: null, ...progress };
}
