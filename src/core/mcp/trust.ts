/**
 * @module mcp/trust
 * Project trust (mcp.md §4.4). A cloned repository's `.lemon/mcp.json`, `.mcp.json`, … would
 * run its own commands, so a project server starts (or its URL is contacted) only once the user
 * has recorded trust in `A/mcp-trust.json`: per real path of `C` and server name, the sha256 of
 * what would run. The store lives in the agent dir; nothing a project contains can vouch for it.
 *
 * The pinned fields are those of the entry as it would connect, after `${…}` expansion: a `.env`
 * or environment change that alters the command is a change too. Env values are pinned by a
 * second hash (`env_sha256`) beside the spec's: `NODE_OPTIONS` or `LD_PRELOAD` values run code,
 * and a header value changed from `${LANG}` to `${MY_API_TOKEN}` sends a secret to the repo's URL;
 * approval is pinned there too, so a repository cannot switch off per-call approval once trusted.
 */
import { realpathSync } from "node:fs";
import { join, relative, sep } from "node:path";
import type { LemonContext } from "../context.ts";
import { sha256Hex } from "../hash.ts";
import { readRegularFile } from "../fsx/regular-file.ts";
import type { Codec } from "../fsx/update.ts";
import { firstFailure } from "../schema/first-failure.ts";
import { isMcpTrustFile, McpTrustFileData } from "../schema/mcp-json.checks.js";
// Types only: the schema module loads TypeBox, which reading the store never needs.
import type { McpTrustFile, TrustRecord } from "../schema/mcp-trust.ts";
import { decodeUtf8 } from "../text.ts";
import { parseJsonText } from "./read.ts";
import { canonicalJson } from "./client/naming.ts";
import type { EffectiveServer } from "./effective.ts";
import { expandEntry, expandString, type ExpandVars } from "./expand.ts";
import { maskLiterals, referencedVars, reviewUrl } from "./trust-review.ts";
import type { McpServerConfig, SourcedServer, Transport } from "./types.ts";

/** `createLemon({ mcp: { trust } })`: ask the approval callback (default), vouch, or never start. */
export type TrustMode = "ask" | "trusted" | "none";
export type TrustState = "trusted" | "untrusted" | "not_project";
/** The `trust` field of listings: null for the user's own sources, which need no trust. */
export type TrustValue = "trusted" | "untrusted" | null;

/** What the approval callback of mode "ask" is shown: what would run; env/header values only as placeholders. */
export interface McpTrustRequest {
  kind: "mcp_trust";
  server: string;
  source: string;
  /** The project key: the real path of `C`. */
  project: string;
  /** The source file, absolute; null when the source is not a file. */
  file: string | null;
  transport: Transport;
  command: string | null;
  args: string[] | null;
  cwd: string | null;
  /**
   * Where it goes: scheme, host and path as they would connect; userinfo and query as written,
   * `${NAME}` placeholders kept and literal text `****`; no fragment.
   */
  url: string | null;
  envNames: string[];
  headerNames: string[];
  /** Each env / header value as written, placeholders kept and literal text `****`. */
  envValues: Record<string, string>;
  headerValues: Record<string, string>;
  /** The user's environment variables whose values the server would receive, sorted. */
  sentVariables: string[];
  approval: "always" | "never";
}

export const TRUST_FILE = "mcp-trust.json";
export const trustFile = (ctx: LemonContext) => join(ctx.agentDir, TRUST_FILE);

/** Project servers come from files inside `C`: lemon's and every imported project file. */
export const isProjectServer = (s: { source: string }) => s.source.endsWith(":project");

/** FORBIDDEN for `mcp test NAME` on an untrusted project server (mcp.md §4.4, exact). */
export const untrustedMessage = (name: string) =>
  `project MCP server '${name}' is not trusted; review it with 'lemon mcp list --all' and run 'lemon mcp trust ${name}'`;

/** The real path of `C`: two spellings of one directory (a symlink, `..`) are one project. */
export function projectKey(ctx: LemonContext): string {
  try {
    return realpathSync(ctx.cwd);
  } catch {
    return ctx.cwd;
  }
}

/**
 * The source file relative to `C`, lexically and with `/`: importers build their paths from the
 * same `C`, so a symlinked `.lemon` or `.mcp.json` keeps its in-project name wherever it points.
 */
export function sourcePath(ctx: LemonContext, file: string | undefined): string | null {
  if (file === undefined) return null;
  const rel = relative(ctx.cwd, file);
  return sep === "/" ? rel : rel.split(sep).join("/");
}

const vars = (ctx: LemonContext): ExpandVars => ({ env: ctx.env, cwd: ctx.cwd, homeDir: ctx.homeDir });

const sortedNames = (names: Iterable<string>) => [...new Set(names)].sort();

/** The entry as it would connect. */
function connecting(ctx: LemonContext, s: SourcedServer): McpServerConfig {
  return expandEntry(s.entry, s.vars, vars(ctx)).entry;
}

/** sha256 of the canonical JSON of §4.4's fields. */
export function trustHash(ctx: LemonContext, s: SourcedServer): string {
  const e = connecting(ctx, s);
  return sha256Hex(
    canonicalJson({
      type: s.transport,
      command: e.command ?? null,
      args: s.transport === "stdio" ? (e.args ?? []) : null,
      cwd: e.cwd ?? null,
      url: e.url ?? null,
      env: sortedNames([...Object.keys(e.env ?? {}), ...(e.env_vars ?? [])]),
      headers: sortedNames(Object.keys(e.headers ?? {})),
      file: sourcePath(ctx, s.file),
    }),
  );
}

/**
 * What decides which credential goes where, as written (a token rotation is no change): header
 * values and the URL before expansion, Codex's env-named headers, and anything that loosens
 * approval. Only what is present is listed, so a plain entry's pin stays the env values alone.
 */
function routing(s: SourcedServer): Record<string, unknown> {
  const e = s.entry;
  const out: Record<string, unknown> = {};
  // Codex resolves its env-named headers when importing (no expansion), so its resolved values are
  // left out and the names they came from are pinned instead.
  const headers = s.vars === "none" ? e.http_headers : e.headers;
  if (headers !== undefined && headers !== null) out.headers = headers;
  if (typeof e.url === "string" && e.url.includes("${")) out.url = e.url;
  for (const k of ["env_http_headers", "bearer_token_env_var"] as const) if (e[k] !== undefined) out[k] = e[k];
  if ((e.approval ?? "never") === "never") out.approval = "never";
  if (e.tool_approvals !== undefined && Object.keys(e.tool_approvals).length > 0) out.tool_approvals = e.tool_approvals;
  return out;
}

/**
 * The second pin: env values as the child would get them, plus `routing` (never stored, only
 * hashed). A change of either untrusts; tightening approval does too, which a re-review settles.
 */
export function envHash(ctx: LemonContext, s: SourcedServer): string {
  const env = connecting(ctx, s).env ?? {};
  const route = routing(s);
  // Env values are strings, so `{env, route}` never collides with an env map's own JSON.
  return sha256Hex(canonicalJson(Object.keys(route).length === 0 ? env : { env, route }));
}

/** A credential-looking variable name: its value is hashed but never shown in a review. */
const SECRET_NAME = /secret|token|passw|api_?key|apikey|auth|credential|private|session|cookie/i;

const strings = (o: unknown): [string, string][] =>
  o !== null && typeof o === "object"
    ? Object.entries(o).filter((kv): kv is [string, string] => typeof kv[1] === "string")
    : [];

/**
 * Env and header values as written, masked for a review. Without expansion (Codex) a `${…}` is
 * literal text; Codex's env-named headers show the variable they read.
 */
function writtenValues(s: SourcedServer): { envValues: Record<string, string>; headerValues: Record<string, string> } {
  const e = s.entry;
  const mask = s.vars === "none" ? () => "****" : maskLiterals;
  const envValues = Object.fromEntries([
    ...strings(e.env).map(([k, v]) => [k, mask(v)]),
    ...(e.env_vars ?? []).map((n) => [n, `\${${n}}`]),
  ]);
  if (s.vars !== "none")
    return { envValues, headerValues: Object.fromEntries(strings(e.headers).map(([k, v]) => [k, mask(v)])) };
  const headers = Object.fromEntries(strings(e.http_headers).map(([k, v]) => [k, mask(v)]));
  for (const [h, name] of strings(e.env_http_headers)) headers[h] = `\${${name}}`;
  if (typeof e.bearer_token_env_var === "string") headers.Authorization = `Bearer \${${e.bearer_token_env_var}}`;
  return { envValues, headerValues: headers };
}

/**
 * What a review shows: command and arguments (or URL) expanded as they would run, except that a
 * credential-named variable shows as its `${NAME}` placeholder; env and header values, URL
 * userinfo and query only as placeholders (literal text `****`), and the variables they send.
 */
export function trustRequest(ctx: LemonContext, s: EffectiveServer): McpTrustRequest {
  const shown: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(ctx.env)) shown[k] = v !== undefined && SECRET_NAME.test(k) ? `\${${k}}` : v;
  const shownVars = { ...vars(ctx), env: shown };
  const written = s.server.entry;
  const e = expandEntry(written, s.server.vars, shownVars).entry;
  const stdio = s.type === "stdio";
  const { envValues, headerValues } = writtenValues(s.server);
  const url =
    !stdio && typeof written.url === "string"
      ? reviewUrl(written.url, (x) => expandString(x, s.server.vars, shownVars, new Set()))
      : null;
  const texts = [
    written.command,
    ...(written.args ?? []),
    written.url,
    ...Object.values(envValues),
    ...Object.values(headerValues),
  ];
  const sentVariables = referencedVars(
    texts.filter((t): t is string => typeof t === "string"),
    s.server.vars === "editor",
  );
  return {
    kind: "mcp_trust",
    server: s.name,
    source: s.source,
    project: projectKey(ctx),
    file: s.server.file ?? null,
    transport: s.type,
    command: stdio ? (e.command ?? null) : null,
    args: stdio ? (e.args ?? []) : null,
    cwd: stdio ? (e.cwd ?? null) : null,
    url,
    envNames: sortedNames([...Object.keys(e.env ?? {}), ...(e.env_vars ?? [])]),
    headerNames: sortedNames(Object.keys(e.headers ?? {})),
    envValues,
    headerValues,
    sentVariables,
    approval: s.approval,
  };
}

/** Far beyond any real store; a bigger file is invalid and never rewritten. */
const MAX_STORE_BYTES = 4 << 20;

/**
 * The store's codec: the strict JSON reader (a duplicate key would be lost on rewrite) and the
 * schema's generated check, so reading it never loads TypeBox.
 */
const storeCodec: Codec<McpTrustFile> = {
  empty: () => ({ version: 1, projects: {} }),
  maxBytes: MAX_STORE_BYTES,
  parse(text) {
    const parsed = parseJsonText(text);
    if (!parsed.ok) throw new Error(parsed.reason);
    if (!isMcpTrustFile(parsed.value))
      throw new Error(firstFailure(McpTrustFileData, parsed.value, "invalid document") ?? "invalid document");
    return parsed.value as McpTrustFile;
  },
  // formatJson of fsx/atomic.ts, which a read should not load.
  serialize: (v) => `${JSON.stringify(v, null, 2)}\n`,
};

/** The trust records of this project; a missing, unreadable or invalid store trusts nothing. */
export async function projectRecords(ctx: LemonContext): Promise<Record<string, TrustRecord>> {
  const read = readRegularFile(trustFile(ctx), MAX_STORE_BYTES);
  if (!read.ok) return {};
  const text = decodeUtf8(read.bytes);
  if (text === null) return {};
  try {
    const doc = storeCodec.parse(text);
    const key = projectKey(ctx);
    return Object.hasOwn(doc.projects, key) ? (doc.projects[key] ?? {}) : {};
  } catch {
    return {};
  }
}

function matches(ctx: LemonContext, s: TrustSubject, r: TrustRecord | undefined): boolean {
  if (r === undefined || r.sha256 !== trustHash(ctx, s.server)) return false;
  return r.env_sha256 === undefined || r.env_sha256 === envHash(ctx, s.server);
}

/** What a trust check needs of a server: its (display) name, source label and entry. */
export type TrustSubject = Pick<EffectiveServer, "name" | "source" | "server">;

/** The trust state of each server (keyed by name); the store is read only when a project server is there. */
export async function trustStates(
  ctx: LemonContext,
  servers: readonly TrustSubject[],
): Promise<Map<string, TrustState>> {
  const out = new Map<string, TrustState>();
  const records = servers.some(isProjectServer) ? await projectRecords(ctx) : {};
  for (const s of servers) {
    // The first of two same-named servers decides, as first-claim-wins does.
    if (out.has(s.name)) continue;
    if (!isProjectServer(s)) out.set(s.name, "not_project");
    else {
      const r = Object.hasOwn(records, s.name) ? records[s.name] : undefined;
      out.set(s.name, matches(ctx, s, r) ? "trusted" : "untrusted");
    }
  }
  return out;
}

/** One server's trust state (see `trustStates`). */
export async function projectTrust(ctx: LemonContext, s: EffectiveServer): Promise<TrustState> {
  return (await trustStates(ctx, [s])).get(s.name) ?? "untrusted";
}

/** The listing value of a state. */
export const trustValue = (state: TrustState | undefined): TrustValue =>
  state === "trusted" ? "trusted" : state === "not_project" ? null : "untrusted";

async function writeStore<R>(
  ctx: LemonContext,
  change: (doc: McpTrustFile) => { next: McpTrustFile | undefined; result: R },
): Promise<R> {
  // Locks and atomic writes load only for a change.
  const { update } = await import("../fsx/update.ts");
  return update(trustFile(ctx), storeCodec, change, {
    command: "lemon mcp trust",
    confineTo: null,
    mode: 0o600,
    now: () => ctx.now(),
  });
}

/** Records trust in each server as it is now; `already` lists those whose record still matches. */
export function recordTrust(
  ctx: LemonContext,
  servers: readonly EffectiveServer[],
): Promise<{ trusted: string[]; already: string[] }> {
  const key = projectKey(ctx);
  return writeStore(ctx, (doc) => {
    const trusted: string[] = [];
    const already: string[] = [];
    const own = Object.hasOwn(doc.projects, key) ? doc.projects[key]! : {};
    const records: Record<string, TrustRecord> = { ...own };
    for (const s of servers) {
      if (!isProjectServer(s)) {
        already.push(s.name);
        continue;
      }
      const old = Object.hasOwn(records, s.name) ? records[s.name] : undefined;
      if (matches(ctx, s, old) && old?.env_sha256 !== undefined) {
        already.push(s.name);
        continue;
      }
      records[s.name] = {
        sha256: trustHash(ctx, s.server),
        trusted_at: ctx.now().toISOString(),
        env_sha256: envHash(ctx, s.server),
      };
      trusted.push(s.name);
    }
    const next = trusted.length > 0 ? { ...doc, projects: { ...doc.projects, [key]: records } } : undefined;
    return { next, result: { trusted, already } };
  });
}

/** Removes the records of `names` (or every record of the project); returns the names removed. */
export function removeTrust(ctx: LemonContext, names: readonly string[] | "all"): Promise<{ untrusted: string[] }> {
  const key = projectKey(ctx);
  return writeStore(ctx, (doc) => {
    const own = Object.hasOwn(doc.projects, key) ? doc.projects[key]! : {};
    const drop = names === "all" ? Object.keys(own) : names.filter((n) => Object.hasOwn(own, n));
    if (drop.length === 0) return { next: undefined, result: { untrusted: [] } };
    const records = Object.fromEntries(Object.entries(own).filter(([n]) => !drop.includes(n)));
    const projects = { ...doc.projects };
    if (Object.keys(records).length > 0) projects[key] = records;
    else delete projects[key];
    return { next: { ...doc, projects }, result: { untrusted: [...new Set(drop)] } };
  });
}

/**
 * The gate before any spawn or contact: the user's own sources pass; `trusted` vouches for the
 * project; `none` never starts a project server; `ask` passes a recorded, matching trust, else
 * asks `approve` (a yes is recorded, as `lemon mcp trust` would). Never throws for a denial.
 */
export async function ensureTrusted(
  ctx: LemonContext,
  s: EffectiveServer,
  opts: { mode?: TrustMode; approve?: (request: McpTrustRequest) => Promise<boolean> } = {},
): Promise<boolean> {
  if (!isProjectServer(s)) return true;
  const mode = opts.mode ?? "ask";
  if (mode === "trusted") return true;
  if (mode === "none") return false;
  if ((await projectTrust(ctx, s)) === "trusted") return true;
  if (opts.approve === undefined) return false;
  // Only a real `true` approves.
  if ((await opts.approve(trustRequest(ctx, s))) !== true) return false;
  await recordTrust(ctx, [s]);
  return true;
}
