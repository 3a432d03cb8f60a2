/**
 * @module mcp
 * The `"./mcp"` entry. For now: MCP configuration — lemon's own files, imports from other tools
 * and the `mcp.config.*` editing API (mcp.md §1–§4). Never loads the MCP SDK.
 */
import { createContext, withCwd, type ContextOptions, type LemonContext } from "../context.ts";
import { conflict, invalidParams, notFound } from "../errors.ts";
import type { Diagnostic } from "../diagnostics.ts";
import type { Scope } from "../paths.ts";
import type { AddResult, RemoveResult, ToggleResult } from "./edit.ts";
import { effectiveServers, serverSummary, type EffectiveSet } from "./effective.ts";
import { readLemonFile, rawEntries, targetFile } from "./lemon-sources.ts";
import type { McpServerDetails } from "./details.ts";
import { isValidServerName, NAME_MESSAGE, unnamedSlug } from "./names.ts";
import type { McpConfigOptions } from "./settings.ts";
import { trustStates, trustValue, type TrustState, type TrustValue } from "./trust.ts";
import type { TrustOptions, TrustResult } from "./trust-ops.ts";
import type { McpServerConfig, ServerView } from "./types.ts";
import { validateEntry } from "./validate.ts";
import { serverView } from "./view.ts";

export type { McpServerConfig, ServerView, Transport, Approval, SourcedServer } from "./types.ts";
export type { McpConfigOptions } from "./settings.ts";
export type { McpAppConfig } from "./app-config.ts";
export type { EffectiveSet, EffectiveServer } from "./effective.ts";
export type { AddResult, RemoveResult, ToggleResult } from "./edit.ts";
export type { McpServerDetails } from "./details.ts";
export type { ValidateResult } from "./validate.ts";
/** `validate(entries)`: every entry's first §3.4 problem, or the normalised entries (the one `mcp.validate`). */
export { validateEntries as validate } from "./validate.ts";
/** Whether a string is a server name of mcp.md §3.3 (1-64 of `A-Z a-z 0-9 _ . -`, letter or digit first). */
export { isValidServerName } from "./names.ts";
/** The effective server set of a scope (mcp.md §2): every source, precedence, enable/disable decisions. */
export { effectiveServers } from "./effective.ts";
/** Project trust (mcp.md §4.4): the gate before any connection, the states, the store's records. */
export {
  ensureTrusted,
  isProjectServer,
  projectTrust,
  trustStates,
  trustRequest,
  untrustedMessage,
} from "./trust.ts";
export type { McpTrustRequest, TrustMode, TrustState, TrustValue } from "./trust.ts";
export type { TrustOptions, TrustResult } from "./trust-ops.ts";
/** The import providers of mcp.md §4.1, in order, as data. */
export { IMPORTERS } from "./sources.ts";

/** Where a call works. */
export interface ScopeOptions {
  /** Project directory `C` (default: the context's cwd). */
  cwd?: string;
  /** The global file `A/mcp.json` instead of the project's `C/.lemon/mcp.json` (default false). */
  global?: boolean;
}

// Mutations load their machinery (locks, atomic writes) on first use, off the list path; so do
// `get` and `add-json`.
const edit = () => import("./edit.ts");
const details = () => import("./details.ts");
const addJson = () => import("./add-json.ts");
const trustOps = () => import("./trust-ops.ts");

/** `list` of one file (cli.md §3.2 without --all). */
export interface McpFileListing {
  scope: Scope;
  file: string;
  exists: boolean;
  enabled: boolean;
  enabled_servers: string[];
  disabled_servers: string[];
  /** `trust`: mcp.md §4.4 for the project file's entries, null in the global file. */
  servers: (ServerView & { trust: TrustValue })[];
  diagnostics: Diagnostic[];
}

/** One server of `list --all` (cli.md §3.2). */
export interface EffectiveView {
  name: string;
  source: string;
  type: string;
  enabled: boolean;
  disabled_by: string | null;
  approval: string;
  shadowed: { source: string }[];
  warnings: string[];
  /** mcp.md §4.4: `untrusted` project servers are never started; null for the user's own sources. */
  trust: TrustValue;
}

/** `list --all` (cli.md §3.2). */
export interface McpEffectiveListing {
  scope: Scope;
  disabled: boolean;
  enabled: boolean;
  effective: EffectiveView[];
  diagnostics: Diagnostic[];
}

/** What `list` returns: one file's entries, or with `all: true` the effective set. */
export type McpConfigListing = McpFileListing | McpEffectiveListing;

/** `lemon.mcp.config` (cli.md §7): lemon's own files, and the effective set with `list --all`. */
export interface McpConfigApi {
  /** One file's entries (default), or with `all: true` the effective set with its sources and notes. */
  list(opts: ScopeOptions & { all: true }): Promise<McpEffectiveListing>;
  list(opts?: ScopeOptions & { all?: false }): Promise<McpFileListing>;
  list(opts?: ScopeOptions & { all?: boolean }): Promise<McpConfigListing>;
  /** Adds a validated entry (`replace`, default false: replace a same-named one, mcp.md §2.3). */
  add(entry: McpServerConfig, opts?: ScopeOptions & { replace?: boolean }): Promise<ServerView>;
  /** Same as `add`, with the action, scope and file the CLI prints. */
  addDetailed(entry: McpServerConfig, opts?: ScopeOptions & { replace?: boolean }): Promise<AddResult>;
  /** Removes the named entry from the scope's file; NOT_FOUND when it has none. */
  remove(name: string, opts?: ScopeOptions): Promise<RemoveResult>;
  /** Lists the name in `enabled_servers` (`force`, default false: even when no source defines it). */
  enable(name: string, opts?: ScopeOptions & { force?: boolean }): Promise<ToggleResult>;
  /** Lists the name in `disabled_servers` (`force`, default false: even when no source defines it). */
  disable(name: string, opts?: ScopeOptions & { force?: boolean }): Promise<ToggleResult>;
}

/** The configuration API the CLI's `lemon mcp` commands use: `McpConfigApi` plus `get` and `addJson`. */
export interface McpConfigCommands extends McpConfigApi {
  /**
   * `mcp get NAME`: one effective server of any source (default scope: project), as `list --all`
   * shows it, plus command and args or URL, env/header names, trust and approval. NOT_FOUND when
   * no effective server has that name (a configured name or an unnamed entry's `<slug>#<n>`).
   */
  get(name: string, opts?: ScopeOptions): Promise<McpServerDetails>;
  /**
   * `mcp add-json NAME '<json>'`: adds the entry given as a JSON object text in lemon's or Claude
   * Code's shape, validated and written as `add` (approval `always` unless the JSON says otherwise).
   */
  addJson(name: string, json: string, opts?: ScopeOptions & { replace?: boolean }): Promise<AddResult>;
  /**
   * `mcp trust [NAME …] [--all]` (mcp.md §4.4): records trust in the named (and with `all`, every
   * enabled) untrusted project server of `C`, after `confirm` when given.
   */
  trust(names: string[], opts?: TrustOptions): Promise<TrustResult>;
  /** `mcp untrust [NAME …] [--all]`: removes this project's records; returns the names removed. */
  untrust(names: string[], opts?: { cwd?: string; all?: boolean }): Promise<{ untrusted: string[] }>;
}

async function listFile(ctx: LemonContext, opts: ScopeOptions): Promise<McpFileListing> {
  const { scope, file } = targetFile(ctx, opts);
  const f = await readLemonFile(file, scope === "global" ? "lemon:global" : "lemon:project");
  const doc = f.doc;
  // Every valid entry of the file, unnamed legacy ones included; views carry the file index.
  const servers: McpFileListing["servers"] = [];
  // The project file's entries as the trust check sees them (source lemon:project, display names).
  const sourced: Parameters<typeof trustStates>[1][number][] = [];
  const slugs = new Map<string, number>();
  if (doc) {
    rawEntries(doc).forEach((raw, index) => {
      const v = validateEntry(raw);
      if (!v.ok) return;
      let name = v.entry.name;
      if (name === undefined) {
        const slug = unnamedSlug(v.entry);
        const n = (slugs.get(slug) ?? 0) + 1;
        slugs.set(slug, n);
        name = `${slug}#${n}`;
      }
      const source = scope === "global" ? "lemon:global" : "lemon:project";
      const server = {
        name: v.entry.name,
        source,
        file,
        index,
        entry: v.entry,
        transport: v.transport,
        vars: "lemon" as const,
        imported: false,
      };
      sourced.push({ name, source, server });
      servers.push({ ...serverView(v.entry, v.transport, index), trust: null });
    });
  }
  // A name written twice is judged by its first entry, as the effective set does.
  const states = await trustStates(ctx, sourced);
  servers.forEach((v, i) => {
    v.trust = trustValue(states.get(sourced[i]!.name));
  });
  return {
    scope,
    file,
    exists: f.exists,
    enabled: doc?.enabled ?? true,
    enabled_servers: doc?.enabled_servers ?? [],
    disabled_servers: doc?.disabled_servers ?? [],
    servers,
    diagnostics: f.diagnostics,
  };
}

/** The `list --all` view of an effective set (cli.md §3.2 plus `trust`, mcp.md §4.4). */
export function effectiveView(set: EffectiveSet, scope: Scope, trust: Map<string, TrustState>): McpEffectiveListing {
  return {
    scope,
    disabled: set.disabled,
    enabled: set.enabled,
    effective: set.servers.map((s) => serverSummary(s, trustValue(trust.get(s.name)))),
    diagnostics: set.diagnostics,
  };
}

/** Unnamed entries are addressed by their display name `<slug>#<n>` (mcp.md §2.1). */
const DISPLAY_NAME = /^[a-z0-9_]+#[1-9][0-9]*$/;

/** The `mcp.config` API over one context; `opts` carries the `[mcp]` module options. */
export function createMcpConfig(base: LemonContext, opts: McpConfigOptions = {}): McpConfigCommands {
  const at = (o?: { cwd?: string }) => withCwd(base, o?.cwd);

  async function toggle(name: string, enabled: boolean, o: ScopeOptions & { force?: boolean } = {}) {
    if (!isValidServerName(name)) throw invalidParams(NAME_MESSAGE);
    const ctx = at(o);
    if (!o.force) {
      const set = await effectiveServers(ctx, opts, "project");
      // An invalid target file is the real problem: say so before "not found" (its entries are unread).
      const target = o.global ? set.global : set.project;
      if (target?.invalid) throw conflict(`refusing to overwrite invalid ${target.file}: ${target.invalid}`);
      if (!set.servers.some((s) => s.named && s.name === name)) throw notFound(`MCP server '${name}' not found`);
    }
    return (await edit()).setServerEnabled(ctx, name, enabled, o);
  }

  async function list(o: ScopeOptions & { all?: boolean } = {}): Promise<McpConfigListing> {
    const ctx = at(o);
    if (!o.all) return listFile(ctx, o);
    const scope: Scope = o.global ? "global" : "project";
    const set = await effectiveServers(ctx, opts, scope);
    return effectiveView(set, scope, await trustStates(ctx, set.servers));
  }

  return {
    list: list as McpConfigApi["list"],
    add: async (entry, o = {}) => (await (await edit()).addServer(at(o), entry, o)).server,
    addDetailed: async (entry, o = {}) => (await edit()).addServer(at(o), entry, o),
    remove: async (name, o = {}) => (await edit()).removeServer(at(o), name, o),
    enable: (name, o) => toggle(name, true, o),
    disable: (name, o) => toggle(name, false, o),
    get: async (name, o = {}) => {
      if (!isValidServerName(name) && !(typeof name === "string" && DISPLAY_NAME.test(name)))
        throw invalidParams(NAME_MESSAGE);
      return (await details()).getServer(at(o), opts, name, o.global ? "global" : "project");
    },
    addJson: async (name, json, o = {}) => {
      if (typeof json !== "string") throw invalidParams("the JSON entry must be a string of JSON text");
      return (await addJson()).addServerJson(at(o), name, json, o);
    },
    trust: async (names, o = {}) => (await trustOps()).trustServers(at(o), opts, names, o),
    untrust: async (names, o = {}) => (await trustOps()).untrustServers(at(o), names, o),
  };
}

/** Convenience for embedders without a full `createLemon`: builds the context from options. */
export function mcpConfig(options: ContextOptions & McpConfigOptions = {}): McpConfigCommands {
  const { config, readConfigFile, ...ctxOpts } = options;
  return createMcpConfig(createContext(ctxOpts), {
    ...(config !== undefined ? { config } : {}),
    ...(readConfigFile !== undefined ? { readConfigFile } : {}),
  });
}

export type { McpClient, McpClientEvents } from "./client/api.ts";
export type { McpStatus, McpServerStatus } from "./client/status.ts";
export type { McpTestReport } from "./client/test.ts";
export type { McpCallDetails, McpToolApprovalRequest, ToolCallInfo, ToolPolicyDecision } from "./client/call.ts";
export type { PublishedTool } from "./client/inventory.ts";
export type { ToolRegistry, ToolSources, Shadowed } from "./client/registry.ts";
export type { McpSession } from "./client/session.ts";

/** What the MCP client needs beyond a context: approvals, the runtime policy, the trust mode, events. */
export interface McpClientOptions extends McpConfigOptions {
  approve?: (request: import("./client/call.ts").McpToolApprovalRequest) => Promise<boolean>;
  toolPolicy?: import("./client/call.ts").CallPolicy["toolPolicy"];
  /** Project trust mode (mcp.md §4.4, default "ask": only recorded trust or a yes from `approveTrust`). */
  trust?: import("./trust.ts").TrustMode;
  approveTrust?: (request: import("./trust.ts").McpTrustRequest) => Promise<boolean>;
  events?: Partial<import("./client/api.ts").McpClientEvents>;
  /**
   * Periodic refresh of stale inventories, ms; 0 = none (the CLI). Default `[mcp]
   * refresh_interval_ms` (60,000): a host that lives on refreshes.
   */
  refreshIntervalMs?: number;
  /** The embedder's sampling delegate and approver (mcp.md §10); absent = sampling never offered. */
  sampling?: import("./client/sampling.ts").SamplingHost;
  /** OAuth approvals and the URL opener (mcp.md §11.4); absent = no interactive flow starts. */
  oauth?: import("./client/connect.ts").OAuthCallbacks;
}

/**
 * The host's `[mcp]` numbers (mcp.md §6.3, §6.4: `cache_ttl_ms`, `refresh_interval_ms`,
 * `max_result_chars`), module options over config.toml, read once when a client opens.
 */
async function hostTuning(ctx: LemonContext, config: McpConfigOptions) {
  const { resolveSettings } = await import("./settings.ts");
  const s = await resolveSettings(ctx, config);
  return { cacheTtlMs: s.cacheTtlMs, refreshIntervalMs: s.refreshIntervalMs, maxResultChars: s.maxResultChars };
}

/**
 * The MCP client (host) over one context: discovery, calls, status (mcp.md §6–§9, §13). Loads the
 * host on first use; the SDK loads only when a server is first contacted.
 */
export async function openMcpClient(
  ctx: LemonContext,
  opts: McpClientOptions = {},
): Promise<import("./client/api.ts").McpClient> {
  const [{ createMcpClient }, { ensureTrusted }] = await Promise.all([import("./client/api.ts"), import("./trust.ts")]);
  const { approve, toolPolicy, trust, approveTrust, events, refreshIntervalMs, config, readConfigFile, sampling } =
    opts;
  const oauth = opts.oauth;
  const cfg: McpConfigOptions = {
    ...(config !== undefined ? { config } : {}),
    ...(readConfigFile !== undefined ? { readConfigFile } : {}),
  };
  const tuning = await hostTuning(ctx, cfg);
  return createMcpClient({
    ctx,
    config: cfg,
    cacheTtlMs: tuning.cacheTtlMs,
    maxResultChars: tuning.maxResultChars,
    trusted: (c, s) =>
      ensureTrusted(c, s, {
        ...(trust !== undefined ? { mode: trust } : {}),
        ...(approveTrust !== undefined ? { approve: approveTrust } : {}),
      }),
    ...(approve !== undefined ? { approve } : {}),
    ...(toolPolicy !== undefined ? { toolPolicy } : {}),
    ...(events !== undefined ? { events } : {}),
    ...(sampling !== undefined ? { sampling } : {}),
    ...(oauth !== undefined ? { oauth } : {}),
    refreshIntervalMs: refreshIntervalMs ?? tuning.refreshIntervalMs,
  });
}

/** `mcp test NAME` / `--url` (cli.md §3.5): an isolated connection, handshake and listings, no tool call. */
export async function testMcpServer(
  ctx: LemonContext,
  name: string,
  opts: import("./client/test.ts").TestOptions & McpConfigOptions = {},
): Promise<import("./client/test.ts").McpTestReport> {
  const { testServer } = await import("./client/test.ts");
  const { config, readConfigFile, ...rest } = opts;
  return testServer(
    ctx,
    { ...(config !== undefined ? { config } : {}), ...(readConfigFile !== undefined ? { readConfigFile } : {}) },
    name,
    rest,
  );
}

/** The ToolRegistry of mcp.md §12 over any `getTools` of MCP tools. */
export async function toolRegistry(
  sources: import("./client/registry.ts").ToolSources,
  mcpTools: Parameters<typeof import("./client/registry.ts").createToolRegistry>[1],
): Promise<import("./client/registry.ts").ToolRegistry> {
  return (await import("./client/registry.ts")).createToolRegistry(sources, mcpTools);
}

/** `openMcpClient` for embedders and the CLI without a full `createLemon`: builds the context from options. */
export function mcpClient(
  options: ContextOptions & McpClientOptions = {},
): Promise<import("./client/api.ts").McpClient> {
  const {
    config,
    readConfigFile,
    approve,
    toolPolicy,
    trust,
    approveTrust,
    events,
    refreshIntervalMs,
    oauth,
    ...ctxOpts
  } = options;
  return openMcpClient(createContext(ctxOpts), {
    ...(config !== undefined ? { config } : {}),
    ...(readConfigFile !== undefined ? { readConfigFile } : {}),
    ...(approve !== undefined ? { approve } : {}),
    ...(toolPolicy !== undefined ? { toolPolicy } : {}),
    ...(trust !== undefined ? { trust } : {}),
    ...(approveTrust !== undefined ? { approveTrust } : {}),
    ...(events !== undefined ? { events } : {}),
    ...(refreshIntervalMs !== undefined ? { refreshIntervalMs } : {}),
    ...(oauth !== undefined ? { oauth } : {}),
  });
}

/** `testMcpServer` over context options (the CLI's `mcp test`). */
export function mcpTest(
  name: string,
  options: ContextOptions & import("./client/test.ts").TestOptions & McpConfigOptions = {},
): Promise<import("./client/test.ts").McpTestReport> {
  const { cwd, home, agentDir, homeDir, env, now, log, skillRoots, ...rest } = options as ContextOptions &
    import("./client/test.ts").TestOptions &
    McpConfigOptions;
  const ctxOpts = Object.fromEntries(
    Object.entries({ cwd, home, agentDir, homeDir, env, now, log, skillRoots }).filter(([, v]) => v !== undefined),
  ) as ContextOptions;
  return testMcpServer(createContext(ctxOpts), name, rest);
}

/** `mcp.openSession(servers)`: session-owned servers, in memory only, `approval: always` by default. */
export async function openMcpSession(
  ctx: LemonContext,
  servers: unknown[],
  opts: Omit<McpClientOptions, "trust" | "approveTrust" | "refreshIntervalMs"> = {},
): Promise<import("./client/session.ts").McpSession> {
  const { openSession } = await import("./client/session.ts");
  const { approve, toolPolicy, events, config, readConfigFile, sampling } = opts;
  const cfg: McpConfigOptions = {
    ...(config !== undefined ? { config } : {}),
    ...(readConfigFile !== undefined ? { readConfigFile } : {}),
  };
  return openSession(ctx, servers, {
    config: cfg,
    ...(await hostTuning(ctx, cfg)),
    ...(approve !== undefined ? { approve } : {}),
    ...(toolPolicy !== undefined ? { toolPolicy } : {}),
    ...(events !== undefined ? { events } : {}),
    ...(sampling !== undefined ? { sampling } : {}),
    ...(opts.oauth !== undefined ? { oauth: opts.oauth } : {}),
  });
}

/** `mcp login NAME` (cli.md §3.6): the OAuth flow of one entry of the selected lemon file, tokens stored. */
export async function loginMcpServer(
  ctx: LemonContext,
  name: string,
  opts: import("./client/login.ts").LoginOptions & McpConfigOptions = {},
): Promise<import("./client/login.ts").LoginResult> {
  const { loginServer } = await import("./client/login.ts");
  const { config, readConfigFile, ...rest } = opts;
  const cfg = {
    ...(config !== undefined ? { config } : {}),
    ...(readConfigFile !== undefined ? { readConfigFile } : {}),
  };
  return loginServer(ctx, cfg, name, rest);
}

/** `mcp logout NAME` (cli.md §3.6): deletes the stored tokens (and with `registration` the client registration). */
export async function logoutMcpServer(
  ctx: LemonContext,
  name: string,
  opts: { global?: boolean; registration?: boolean } & McpConfigOptions = {},
): Promise<import("./client/login.ts").LogoutResult> {
  const { logoutServer } = await import("./client/login.ts");
  const { config, readConfigFile, ...rest } = opts;
  const cfg = {
    ...(config !== undefined ? { config } : {}),
    ...(readConfigFile !== undefined ? { readConfigFile } : {}),
  };
  return logoutServer(ctx, cfg, name, rest);
}

/** The context options of a CLI call, apart from the command's own. */
function splitContext<T extends object>(options: ContextOptions & T): { ctx: LemonContext; rest: T } {
  const { cwd, home, agentDir, homeDir, env, now, log, skillRoots, ...rest } = options;
  const ctxOpts = Object.fromEntries(
    Object.entries({ cwd, home, agentDir, homeDir, env, now, log, skillRoots }).filter(([, v]) => v !== undefined),
  ) as ContextOptions;
  return { ctx: createContext(ctxOpts), rest: rest as T };
}

/** `loginMcpServer` over context options (the CLI's `mcp login`). */
export function mcpLogin(
  name: string,
  options: ContextOptions & import("./client/login.ts").LoginOptions = {},
): Promise<import("./client/login.ts").LoginResult> {
  const { ctx, rest } = splitContext(options);
  return loginMcpServer(ctx, name, rest);
}

/** `logoutMcpServer` over context options (the CLI's `mcp logout`). */
export function mcpLogout(
  name: string,
  options: ContextOptions & { global?: boolean; registration?: boolean } = {},
): Promise<import("./client/login.ts").LogoutResult> {
  const { ctx, rest } = splitContext(options);
  return logoutMcpServer(ctx, name, rest);
}

export type { OAuthCallbacks } from "./client/connect.ts";
export { oauthApproval } from "../skills/install/approval.ts";
export type { LoginResult, LogoutResult } from "./client/login.ts";

export type {
  ServeOptions,
  StdioServeOptions,
  HttpServeOptions,
  SkillServer,
} from "./serve/types.ts";

/**
 * `lemon mcp serve` (cli.md §3.8): serves `lemon`'s skills to MCP clients over stdio or
 * Streamable HTTP until the client goes away or `close()`. The SDK loads here, on first call.
 */
export async function serveSkills(
  lemon: import("../index.ts").Lemon,
  opts: import("./serve/types.ts").ServeOptions,
): Promise<import("./serve/types.ts").SkillServer> {
  return (await import("./serve/serve.ts")).serveSkills(lemon, opts);
}
