/**
 * @module skills/install/source
 * The source router of install.md §2: one input string (plus --ref/--path) to a SourceSpec.
 * Everything a later git or HTTP call receives is validated here, so option injection
 * (`--upload-pack=…`), transport helpers (`ext::`) and ssh option hosts never get that far.
 */
import { realpathSync } from "node:fs";
import { isAbsolute, resolve, win32 } from "node:path";
import { pathToFileURL } from "node:url";
import { envValue } from "../../context.ts";
import { LemonError, invalidParams, notFound } from "../../errors.ts";

export type SourceKind = "local" | "git" | "github" | "registry" | "hermes" | "well_known";
export type TrustLevel = "builtin" | "official" | "trusted" | "community";

export interface SourceSpec {
  kind: SourceKind;
  /** install.md §2 canonical source_id (never userinfo or query). */
  sourceId: string;
  /** Redacted human form for messages/approvals, e.g. "gh:owner/repo@v1", "https://h/r.git#v1:skills/x". */
  display: string;
  trust: TrustLevel;
  /** git/github: the clone URL (github: LEMON_GITHUB_GIT_URL or https://github.com + /owner/repo.git). */
  cloneUrl: string | null;
  /** local: absolute real path. */
  localPath: string | null;
  /** requested ref (fragment, @ref, --ref), or null = remote HEAD. */
  ref: string | null;
  /** true when ref is a 40/64-hex commit pin. */
  pinned: boolean;
  /** subdir inside the source (gh: subdir, fragment, --path), validated, or null. */
  subdir: string | null;
  /** key known up front from the reference itself (hermes/registry last segment, well-known name), else null. */
  key: string | null;
  wellKnown?: { origin: string; name: string };
  hermes?: { collection: "bundled" | "optional"; segments: string[] };
  registryRef?: string;
  /** registry: the resolved base URL (install.md §4.4), set by the caller before fetching; else the env is read. */
  registryBase?: string;
  /**
   * registry, hermes, well_known: `[skills] http_timeout_ms` for each HTTP request, set by the
   * caller from the instance (resolveRegistrySpec); unset = the HTTP client's default.
   */
  httpTimeoutMs?: number;
}

export interface ParseSourceOptions {
  cwd: string;
  homeDir: string;
  env: Record<string, string | undefined>;
  ref?: string;
  path?: string;
}

const GIT_REF = /^[A-Za-z0-9._/-]{1,255}$/;
const COMMIT_PIN = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/i;
const SEGMENT = /^[A-Za-z0-9._-]+$/;
const GH_OWNER = /^[A-Za-z0-9-]{1,39}$/;
const GH_REPO = /^[A-Za-z0-9._-]{1,100}$/;
const REGISTRY_SEGMENT = /^[A-Za-z0-9_-]+$/;
const WELL_KNOWN_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
const CONTROL = /[\u0000-\u001f\u007f]/;
const DRIVE_PATH = /^[A-Za-z]:[\\/]/;
const SCP_LIKE = /^git@([A-Za-z0-9][A-Za-z0-9.-]*|\[[0-9A-Fa-f:.]+\]):([^\s#]+)(?:#(.*))?$/;
const MAX_INPUT = 4096;

/** The input as an error message may show it: no URL userinfo, no query string. */
function shown(input: string): string {
  // Up to the first `/` or `?`: a password may hold an unencoded `#`, and its tail must go too.
  return input.replace(/^([A-Za-z][A-Za-z0-9+.-]*:\/\/)[^/?]*@/, "$1").replace(/\?[^#]*/, "");
}

function unresolvable(input: string): LemonError {
  return invalidParams(`cannot resolve skill source '${shown(input)}'`);
}

/** install.md §2 git ref rule; a 40/64-hex value is a commit pin. */
export function validRef(ref: string): boolean {
  return GIT_REF.test(ref) && !ref.startsWith("-") && !ref.includes("..") && !ref.includes("//");
}

function checkRef(ref: string): string {
  if (!validRef(ref)) throw invalidParams(`invalid git ref '${ref}'`);
  return ref;
}

/** Subdir segments like gh: subdirs (§2); a trailing slash is tolerated, nothing else. */
export function validSubdir(subdir: string): boolean {
  const segs = subdir.replace(/\/$/, "").split("/");
  return subdir.length <= 512 && segs.every((s) => SEGMENT.test(s) && s !== "." && s !== "..");
}

function checkSubdir(subdir: string): string {
  if (!validSubdir(subdir)) throw invalidParams(`invalid subdir '${subdir}'`);
  return subdir.replace(/\/$/, "");
}

/** Merges a ref/subdir carried by the source with --ref/--path; the same value twice is exit 2. */
function withFlags(
  fromSource: { ref: string | null; subdir: string | null },
  opts: ParseSourceOptions,
): { ref: string | null; subdir: string | null; pinned: boolean } {
  if (opts.ref !== undefined && fromSource.ref !== null)
    throw invalidParams("--ref conflicts with the ref given in the source");
  if (opts.path !== undefined && fromSource.subdir !== null)
    throw invalidParams("--path conflicts with the subdir given in the source");
  const ref = opts.ref !== undefined ? checkRef(opts.ref) : fromSource.ref;
  const subdir = opts.path !== undefined ? checkSubdir(opts.path) : fromSource.subdir;
  return { ref, subdir, pinned: ref !== null && COMMIT_PIN.test(ref) };
}

function noGitFlags(kind: string, opts: ParseSourceOptions, allowPath = false): void {
  if (opts.ref !== undefined) throw invalidParams(`--ref applies only to git sources, not ${kind}`);
  if (opts.path !== undefined && !allowPath) throw invalidParams(`--path does not apply to ${kind} sources`);
}

function base(
  kind: SourceKind,
  sourceId: string,
  display: string,
  trust: TrustLevel,
  more: Partial<SourceSpec> = {},
): SourceSpec {
  const none = { cloneUrl: null, localPath: null, ref: null, pinned: false, subdir: null, key: null };
  return { kind, sourceId, display, trust, ...none, ...more };
}

function refDisplay(ref: string | null, subdir: string | null): string {
  if (ref === null && subdir === null) return "";
  return subdir === null ? `#${ref}` : `#${ref ?? ""}:${subdir}`;
}

/** Throws LemonError INVALID_PARAMS with the exact §2 messages (exit 2). */
export function parseSource(input: string, opts: ParseSourceOptions): SourceSpec {
  const s = input.trim();
  if (s === "" || s.length > MAX_INPUT) throw unresolvable(s.slice(0, 64));
  if (CONTROL.test(s)) throw invalidParams("skill source contains control characters");
  if (s === "builtin" || s.startsWith("builtin:")) throw invalidParams("built-in skills are not installable");
  if (isLocalForm(s)) return localSource(s, opts);
  if (s.startsWith("hermes:")) {
    const h = hermesSource(s);
    if (h) {
      noGitFlags("hermes", opts);
      return h;
    }
  }
  if (s.startsWith("gh:") || s.startsWith("github:")) return ghSource(s, opts);
  if (/^https?:\/\//i.test(s)) {
    const tree = githubTreeSource(s, opts);
    if (tree) return tree;
    const wk = wellKnownSource(s);
    if (wk) {
      noGitFlags("well_known", opts);
      return wk;
    }
  }
  const g = gitSource(s, opts);
  if (g) return g;
  const segs = s.split("/");
  if (segs.length >= 3 && segs.every((x) => REGISTRY_SEGMENT.test(x))) {
    noGitFlags("registry", opts);
    const key = segs[segs.length - 1] ?? null;
    return base("registry", s, s, segs[0] === "official" ? "official" : "community", { key, registryRef: s });
  }
  throw unresolvable(s);
}

function isLocalForm(s: string): boolean {
  return (
    s === "." || s === ".." || s.startsWith("/") || /^\.\.?[\\/]/.test(s) || /^~[\\/]/.test(s) || DRIVE_PATH.test(s)
  );
}

function localSource(s: string, opts: ParseSourceOptions): SourceSpec {
  noGitFlags("local", opts, true);
  let abs: string;
  if (/^~[\\/]/.test(s)) abs = resolve(opts.homeDir, s.slice(2));
  else if (DRIVE_PATH.test(s)) abs = win32.resolve(s);
  else abs = isAbsolute(s) ? resolve(s) : resolve(opts.cwd, s);
  let real: string;
  try {
    real = realpathSync(abs);
  } catch {
    throw notFound(`skill source not found: ${abs}`);
  }
  const spec = base("local", real, real, "trusted");
  spec.localPath = real;
  if (opts.path !== undefined) spec.subdir = checkSubdir(opts.path);
  return spec;
}

function hermesSource(s: string): SourceSpec | null {
  const m = /^hermes:(bundled|optional)\/(.+)$/.exec(s);
  if (!m) return null;
  const collection = m[1] as "bundled" | "optional";
  const segments = (m[2] ?? "").split("/");
  if (!segments.every((x) => SEGMENT.test(x) && x !== "." && x !== "..")) return null;
  const id = `hermes:${collection}/${segments.join("/")}`;
  return base("hermes", id, id, "official", {
    key: segments[segments.length - 1] ?? null,
    hermes: { collection, segments },
  });
}

function githubCloneUrl(owner: string, repo: string, env: ParseSourceOptions["env"]): string {
  const root = (envValue(env, "LEMON_GITHUB_GIT_URL") ?? "https://github.com").replace(/\/+$/, "");
  // git ignores --depth for a plain path; as a file:// URL the clone stays shallow.
  const url = isAbsolute(root) ? pathToFileURL(root).href : root;
  return `${url}/${owner}/${repo}.git`;
}

function githubSpec(
  owner: string,
  repoIn: string,
  fromSource: { ref: string | null; subdir: string | null },
  opts: ParseSourceOptions,
): SourceSpec {
  const repo = repoIn.replace(/\.git$/, "");
  if (!GH_OWNER.test(owner) || !GH_REPO.test(repo) || repo === "." || repo === "..")
    throw invalidParams(`invalid GitHub repository '${owner}/${repoIn}'`);
  const f = withFlags(fromSource, opts);
  const id = `${owner}/${repo}`;
  const display = `gh:${id}${f.subdir ? `/${f.subdir}` : ""}${f.ref ? `@${f.ref}` : ""}`;
  return base("github", id, display, "community", { cloneUrl: githubCloneUrl(owner, repo, opts.env), ...f });
}

function ghSource(s: string, opts: ParseSourceOptions): SourceSpec {
  const rest = s.slice(s.indexOf(":") + 1);
  const at = rest.indexOf("@");
  const path = at < 0 ? rest : rest.slice(0, at);
  const ref = at < 0 ? null : checkRef(rest.slice(at + 1));
  const segs = path.split("/");
  if (segs.length < 2) throw unresolvable(s);
  const [owner = "", repo = "", ...sub] = segs;
  const subdir = sub.length > 0 ? checkSubdir(sub.join("/")) : null;
  return githubSpec(owner, repo, { ref, subdir }, opts);
}

/** Percent-decoding of a URL part; malformed escapes make the whole input unresolvable. */
function decoded(part: string, input: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    throw unresolvable(input);
  }
}

function parseUrl(s: string): URL | null {
  try {
    return new URL(s);
  } catch {
    return null;
  }
}

function githubTreeSource(s: string, opts: ParseSourceOptions): SourceSpec | null {
  const u = parseUrl(s);
  if (u?.protocol !== "https:" || u.hostname.toLowerCase() !== "github.com" || u.port !== "") return null;
  const m = /^\/([^/]+)\/([^/]+)\/tree\/([^/]+)(?:\/(.+?))?\/?$/.exec(u.pathname);
  if (!m) return null;
  if (u.hash !== "") throw invalidParams("a GitHub tree URL cannot carry a #fragment");
  const ref = checkRef(decoded(m[3] ?? "", s));
  const subdir = m[4] ? checkSubdir(decoded(m[4], s)) : null;
  return githubSpec(m[1] ?? "", m[2] ?? "", { ref, subdir }, opts);
}

/** An http(s) URL's path segments as typed, before WHATWG reads `\` as `/` and drops dot segments. */
function typedSegments(s: string): string[] {
  return s
    .replace(/^https?:\/\/[^/\\?#]*/i, "")
    .replace(/[?#].*$/s, "")
    .split(/[/\\]/);
}
const DOT_SEGMENT = /^(?:\.|%2e){1,2}$/i;

function wellKnownSource(s: string): SourceSpec | null {
  const u = parseUrl(s);
  if (!u || u.hostname === "") return null;
  // `/.well-known/skills/..` normalises to `/.well-known/`, which would fall through to git (row 7).
  const typed = typedSegments(s);
  if (typed.includes(".well-known") && typed.some((seg) => DOT_SEGMENT.test(seg))) throw unresolvable(s);
  const m = /\/\.well-known\/skills\/([^/]+)\/?$/.exec(u.pathname);
  if (!m) {
    if (u.pathname.includes("/.well-known/skills/")) throw unresolvable(s);
    return null;
  }
  const name = decoded(m[1] ?? "", s);
  if (!WELL_KNOWN_NAME.test(name) || name === "index.json") throw unresolvable(s);
  const id = `${u.origin}/.well-known/skills/${name}`;
  return base("well_known", id, id, "community", { key: name, wellKnown: { origin: u.origin, name } });
}

/** Splits `url#ref[:subdir]`, validating both parts. */
function splitFragment(s: string): { url: string; ref: string | null; subdir: string | null } {
  const hash = s.indexOf("#");
  if (hash < 0) return { url: s, ref: null, subdir: null };
  const frag = s.slice(hash + 1);
  const colon = frag.indexOf(":");
  const refPart = colon < 0 ? frag : frag.slice(0, colon);
  const subPart = colon < 0 ? null : frag.slice(colon + 1);
  if (refPart === "" && (subPart === null || subPart === "")) throw invalidParams("empty #fragment in git source");
  return {
    url: s.slice(0, hash),
    ref: refPart === "" ? null : checkRef(refPart),
    subdir: subPart === null || subPart === "" ? null : checkSubdir(subPart),
  };
}

function gitSource(s: string, opts: ParseSourceOptions): SourceSpec | null {
  const raw = s.startsWith("git+") ? s.slice(4) : s;
  if (/^[A-Za-z][A-Za-z0-9+.-]*::/.test(raw)) throw invalidParams("git transport helpers like ext:: are not allowed");
  const scp = SCP_LIKE.exec(raw);
  if (raw.startsWith("git@")) {
    if (!scp || scp[2]?.startsWith("-")) throw invalidParams(`refusing git host in '${shown(s)}'`);
    const { url, ref, subdir } = splitFragment(raw);
    return gitSpec(url, url, { ref, subdir }, opts);
  }
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(raw)?.[1]?.toLowerCase();
  const allowed = s.startsWith("git+") ? ["https", "http", "ssh", "file", "git"] : ["https", "http", "ssh", "file"];
  if (scheme === undefined || !allowed.includes(scheme)) {
    if (s.startsWith("git+")) throw unresolvable(s);
    return null;
  }
  // A `#` inside the authority is a malformed password, not a fragment: splitting there would
  // echo the password's tail as a "ref" (cli.md §1.2).
  if (/^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?]*#[^/?]*@/.test(raw)) throw unresolvable(s);
  const { url, ref, subdir } = splitFragment(raw);
  const u = parseUrl(url);
  if (!u) throw unresolvable(s);
  if (scheme !== "file") {
    if (u.hostname === "" || u.hostname.startsWith("-") || decoded(u.username, s).startsWith("-"))
      throw invalidParams(`refusing git host in '${shown(s)}'`);
  } else if (u.hostname !== "" && u.hostname !== "localhost") {
    throw invalidParams(`file:// git sources must be local paths: '${shown(s)}'`);
  }
  // ssh keeps its user (it names the account, not a secret); every other scheme loses userinfo.
  const id = new URL(url);
  if (scheme !== "ssh") id.username = "";
  id.password = "";
  id.search = "";
  return gitSpec(url, id.href, { ref, subdir }, opts);
}

function gitSpec(
  cloneUrl: string,
  id: string,
  fromSource: { ref: string | null; subdir: string | null },
  opts: ParseSourceOptions,
): SourceSpec {
  const f = withFlags(fromSource, opts);
  return base("git", id, `${id}${refDisplay(f.ref, f.subdir)}`, "community", { cloneUrl, ...f });
}

export interface SourceRecord {
  key?: string;
  source_kind: string | null;
  source_id: string | null;
  source_ref: string | null;
  subdir: string | null;
  trust_level: string | null;
}

/**
 * Rebuild a spec from a lock record (for update): kind, source_id, source_ref, subdir. The record
 * passes the same validation as typed input (a hand-edited lock must not smuggle a hostile ref),
 * and trust is derived from the kind again, never read from the file. `opts.ref` (update --ref)
 * replaces the recorded ref.
 */
export function specFromRecord(rec: SourceRecord, opts: ParseSourceOptions): SourceSpec {
  const id = rec.source_id;
  const kind = rec.source_kind;
  const cannot = () => new LemonError("INVALID_REQUEST", `Skill '${rec.key ?? "?"}' cannot be updated from its source`);
  if (id === null || id === "") throw cannot();
  const ref = opts.ref ?? rec.source_ref ?? undefined;
  const path = rec.subdir ?? undefined;
  const again = { cwd: opts.cwd, homeDir: opts.homeDir, env: opts.env };
  // update --ref follows install's rule (§2): only git-like sources have refs to move to.
  if (opts.ref !== undefined && kind !== "git" && kind !== "github")
    throw invalidParams(`--ref applies only to git sources, not ${kind ?? "this source"}`);
  switch (kind) {
    case "local": {
      if (!isAbsolute(id) && !DRIVE_PATH.test(id)) throw cannot();
      const spec = base("local", id, id, "trusted");
      spec.localPath = id;
      if (path !== undefined) spec.subdir = checkSubdir(path);
      return spec;
    }
    case "github": {
      const [owner = "", repo = "", ...more] = id.split("/");
      if (more.length > 0) throw cannot();
      return githubSpec(owner, repo, { ref: null, subdir: null }, { ...again, ref, path });
    }
    case "git": {
      if (id.includes("#")) throw cannot();
      const spec = gitSource(id, { ...again, ref, path });
      if (!spec) throw cannot();
      return spec;
    }
    case "registry":
    case "hermes":
    case "well_known": {
      const spec = parseSource(id, again);
      if (spec.kind !== kind) throw cannot();
      return spec;
    }
    default:
      throw cannot();
  }
}
