/**
 * @module mcp/edit
 * Mutations of lemon's own `mcp.json` (mcp.md §2.3): one `update()` transaction each (lock,
 * refuse an invalid file, detect a concurrent change, atomic 0600 write). Unrelated servers,
 * top-level fields, unknown entry fields and `${VAR}` placeholders survive; nothing is expanded.
 */
import type { LemonContext } from "../context.ts";
import { conflict, invalidParams, notFound } from "../errors.ts";
import { formatJson } from "../fsx/atomic.ts";
import { update, type Change, type Codec } from "../fsx/update.ts";
import type { Scope } from "../paths.ts";
import type { McpJson } from "../schema/mcp-json.ts";
import { shapeProblem, targetFile } from "./lemon-sources.ts";
import { isValidServerName, NAME_MESSAGE } from "./names.ts";
import { MAX_CONFIG_BYTES, parseJsonText } from "./read.ts";
import type { McpServerConfig, ServerView } from "./types.ts";
import { ENTRY_FIELDS, inferTransport, isObject, KNOWN_FIELDS, normalizeEntry, validateEntry } from "./validate.ts";
import { serverView } from "./view.ts";

/**
 * What a read of lemon's `mcp.json` accepts, a rewrite accepts: the same size cap, the strict
 * JSON reader (a duplicate key or `1e400` would be lost on the way back) and the schema. A parse
 * failure's message is the reason `update()` puts into `refusing to overwrite invalid <file>: …`.
 */
export const mcpJsonCodec: Codec<McpJson> = {
  empty: () => ({ servers: [] }),
  // update() refuses a bigger file before reading it, with the reason a read gives.
  maxBytes: MAX_CONFIG_BYTES,
  parse(text) {
    const parsed = parseJsonText(text);
    if (!parsed.ok) throw new Error(parsed.reason);
    const problem = shapeProblem("file", parsed.value);
    if (problem !== null) throw new Error(problem);
    return parsed.value as McpJson;
  },
  serialize: (v) => formatJson(v),
};
const codec = mcpJsonCodec;

/** Unknown (extension) fields of an old entry survive a replace. */
const isKnown = (k: string) => KNOWN_FIELDS.has(k) || KNOWN_FIELDS.has(k.replace(/-/g, "_"));

/** The schema's field order first, extension fields after, as written. */
function ordered(e: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of ENTRY_FIELDS) if (e[k] !== undefined) out[k] = e[k];
  for (const [k, v] of Object.entries(e)) if (!(k in out) && v !== undefined) out[k] = v;
  return out;
}

type Location = { where: "servers"; index: number } | { where: "mcpServers"; key: string };

function locate(doc: McpJson, name: string): Location[] {
  const out: Location[] = [];
  (doc.servers ?? []).forEach((raw, index) => {
    if (isObject(raw) && raw.name === name) out.push({ where: "servers", index });
  });
  if (doc.mcpServers && Object.hasOwn(doc.mcpServers, name)) out.push({ where: "mcpServers", key: name });
  return out;
}

function single(doc: McpJson, name: string, file: string): Location | null {
  const locs = locate(doc, name);
  if (locs.length > 1) throw conflict(`ambiguous server name '${name}' appears ${locs.length} times in ${file}`);
  return locs[0] ?? null;
}

/**
 * One transaction on the lemon file of the selected scope with the named entry already located
 * (null when absent; a name written twice is a CONFLICT).
 */
function editEntry<R>(
  ctx: LemonContext,
  opts: TargetOptions,
  name: string,
  command: string,
  change: (doc: McpJson, loc: Location | null, at: { scope: Scope; file: string }) => Change<McpJson, R>,
): Promise<R> {
  const at = targetFile(ctx, opts);
  return update(
    at.file,
    codec,
    (doc) => change(doc, single(doc, name, at.file), at),
    writeOpts(ctx, at.scope, command),
  );
}

function entryAt(doc: McpJson, loc: Location): Record<string, unknown> {
  const raw =
    loc.where === "servers" ? doc.servers?.[loc.index] : { ...(doc.mcpServers?.[loc.key] as object), name: loc.key };
  return isObject(raw) ? raw : {};
}

export interface TargetOptions {
  global?: boolean;
}

const writeOpts = (ctx: LemonContext, scope: Scope, command: string) => ({
  command,
  confineTo: scope === "project" ? ctx.cwd : null,
  now: () => ctx.now(),
});

/** The replaced entry of mcp.md §2.3: same transport keeps omitted credentials and merges maps. */
export function replaceEntry(oldRaw: Record<string, unknown>, next: McpServerConfig): McpServerConfig {
  const old = normalizeEntry(oldRaw) as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(oldRaw)) if (!isKnown(k)) out[k] = v;
  Object.assign(out, next);
  if (inferTransport(old) === inferTransport(next)) {
    for (const k of ["env", "headers", "tool_approvals"] as const) {
      const before = old[k];
      if (isObject(before)) out[k] = { ...before, ...((next[k] as object | undefined) ?? {}) };
    }
    if (next.oauth === undefined && old.oauth !== undefined) out.oauth = old.oauth;
  }
  return out as McpServerConfig;
}

export interface AddResult {
  action: "added" | "replaced";
  scope: Scope;
  file: string;
  server: ServerView;
}

export async function addServer(
  ctx: LemonContext,
  input: McpServerConfig,
  opts: TargetOptions & { replace?: boolean } = {},
): Promise<AddResult> {
  const v = validateEntry(input, { requireName: true });
  if (!v.ok) throw invalidParams(v.message);
  const name = v.entry.name as string;
  const entry = ordered({ ...v.entry, type: v.transport }) as McpServerConfig;
  return editEntry(ctx, opts, name, "mcp add", (doc, loc, { scope, file }) => {
    const next: McpJson = { ...doc };
    let written: McpServerConfig = entry;
    let index: number;
    if (loc === null) {
      next.servers = [...(doc.servers ?? []), entry];
      index = next.servers.length - 1;
    } else {
      if (!opts.replace) throw conflict(`MCP server '${name}' already exists in ${file}; use --replace`);
      written = ordered(replaceEntry(entryAt(doc, loc), entry)) as McpServerConfig;
      const check = validateEntry(written, { requireName: true });
      if (!check.ok) throw invalidParams(check.message);
      if (loc.where === "servers") {
        next.servers = [...(doc.servers ?? [])];
        next.servers[loc.index] = written;
        index = loc.index;
      } else {
        const { name: _drop, ...rest } = written;
        next.mcpServers = { ...doc.mcpServers, [loc.key]: rest };
        index = (doc.servers?.length ?? 0) + Object.keys(doc.mcpServers ?? {}).indexOf(loc.key);
      }
    }
    const action = loc === null ? ("added" as const) : ("replaced" as const);
    return { next, result: { action, scope, file, server: serverView(written, v.transport, index) } };
  });
}

export interface RemoveResult {
  name: string;
  scope: Scope;
  file: string;
  removed: true;
}

export async function removeServer(ctx: LemonContext, name: string, opts: TargetOptions = {}): Promise<RemoveResult> {
  if (!isValidServerName(name)) throw invalidParams(NAME_MESSAGE);
  return editEntry(ctx, opts, name, "mcp remove", (doc, loc, { scope, file }) => {
    if (loc === null) throw notFound(`MCP server '${name}' not found in ${file}`);
    const next: McpJson = { ...doc };
    if (loc.where === "servers") next.servers = (doc.servers ?? []).filter((_, i) => i !== loc.index);
    else {
      const { [loc.key]: _gone, ...rest } = doc.mcpServers ?? {};
      next.mcpServers = rest;
    }
    return { next, result: { name, scope, file, removed: true as const } };
  });
}

export interface ToggleResult {
  name: string;
  scope: Scope;
  file: string;
  enabled: boolean;
  changed: boolean;
}

/** Moves a name between `enabled_servers` and `disabled_servers`; no write when nothing changes. */
export async function setServerEnabled(
  ctx: LemonContext,
  name: string,
  enabled: boolean,
  opts: TargetOptions = {},
): Promise<ToggleResult> {
  return editEntry(ctx, opts, name, enabled ? "mcp enable" : "mcp disable", (doc, _loc, { scope, file }) => {
    const add = enabled ? "enabled_servers" : "disabled_servers";
    const drop = enabled ? "disabled_servers" : "enabled_servers";
    const had = doc[add]?.includes(name) ?? false;
    const inOther = doc[drop]?.includes(name) ?? false;
    const result = { name, scope, file, enabled, changed: !had || inOther };
    if (!result.changed) return { next: undefined, result };
    const next: McpJson = { ...doc };
    next[add] = had ? doc[add] : [...(doc[add] ?? []), name];
    if (doc[drop] !== undefined) next[drop] = (doc[drop] ?? []).filter((n) => n !== name);
    return { next, result };
  });
}
