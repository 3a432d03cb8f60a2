/**
 * @module mcp
 * The `"./mcp"` entry. For now: MCP configuration — lemon's own files, imports from other tools
 * and the `mcp.config.*` editing API (mcp.md §1–§4). Never loads the MCP SDK.
 */
import { createContext, withCwd, type ContextOptions, type LemonContext } from "../context.ts";
import { conflict, invalidParams, notFound } from "../errors.ts";
import type { Diagnostic } from "../diagnostics.ts";
import { scopePathsFor, type Scope } from "../paths.ts";
import type { AddResult, RemoveResult, ToggleResult } from "./edit.ts";
import { effectiveServers, type EffectiveSet } from "./effective.ts";
import { readLemonFile, rawEntries } from "./lemon-sources.ts";
import { isValidServerName, NAME_MESSAGE } from "./names.ts";
import type { McpConfigOptions } from "./settings.ts";
import type { McpServerConfig, ServerView } from "./types.ts";
import { validateEntry } from "./validate.ts";
import { serverView } from "./view.ts";

export type { McpServerConfig, ServerView, Transport, Approval, SourcedServer } from "./types.ts";
export type { McpConfigOptions } from "./settings.ts";
export type { McpAppConfig } from "./app-config.ts";
export type { EffectiveSet, EffectiveServer } from "./effective.ts";
export type { AddResult, RemoveResult, ToggleResult } from "./edit.ts";
export type { ValidateResult } from "./validate.ts";
/** `validate(entries)`: every entry's first §3.4 problem, or the normalised entries (the one `mcp.validate`). */
export { validateEntries as validate } from "./validate.ts";
export { isValidServerName } from "./names.ts";
export { effectiveServers } from "./effective.ts";
export { IMPORTERS } from "./sources.ts";

export interface ScopeOptions {
  cwd?: string;
  global?: boolean;
}

// Mutations load their machinery (locks, atomic writes, TypeBox) on first use, off the list path.
const edit = () => import("./edit.ts");

/** The lemon file of a scope (`--global`: `A/mcp.json`, else `C/.lemon/mcp.json`). */
function targetFile(ctx: LemonContext, opts: { global?: boolean }): { scope: Scope; file: string } {
  const scope: Scope = opts.global ? "global" : "project";
  return { scope, file: scopePathsFor(ctx, scope).mcpJson };
}

/** `list` of one file (cli.md §3.2 without --all). */
export interface McpFileListing {
  scope: Scope;
  file: string;
  exists: boolean;
  enabled: boolean;
  enabled_servers: string[];
  disabled_servers: string[];
  servers: ServerView[];
  diagnostics: Diagnostic[];
}

export interface EffectiveView {
  name: string;
  source: string;
  type: string;
  enabled: boolean;
  disabled_by: string | null;
  approval: string;
  shadowed: { source: string }[];
  warnings: string[];
}

/** `list --all` (cli.md §3.2). */
export interface McpEffectiveListing {
  scope: Scope;
  disabled: boolean;
  enabled: boolean;
  effective: EffectiveView[];
  diagnostics: Diagnostic[];
}

export type McpConfigListing = McpFileListing | McpEffectiveListing;

export interface McpConfigApi {
  list(opts: ScopeOptions & { all: true }): Promise<McpEffectiveListing>;
  list(opts?: ScopeOptions & { all?: false }): Promise<McpFileListing>;
  list(opts?: ScopeOptions & { all?: boolean }): Promise<McpConfigListing>;
  add(entry: McpServerConfig, opts?: ScopeOptions & { replace?: boolean }): Promise<ServerView>;
  /** Same as `add`, with the action, scope and file the CLI prints. */
  addDetailed(entry: McpServerConfig, opts?: ScopeOptions & { replace?: boolean }): Promise<AddResult>;
  remove(name: string, opts?: ScopeOptions): Promise<RemoveResult>;
  enable(name: string, opts?: ScopeOptions & { force?: boolean }): Promise<ToggleResult>;
  disable(name: string, opts?: ScopeOptions & { force?: boolean }): Promise<ToggleResult>;
}

async function listFile(ctx: LemonContext, opts: ScopeOptions): Promise<McpFileListing> {
  const { scope, file } = targetFile(ctx, opts);
  const f = await readLemonFile(file, scope === "global" ? "lemon:global" : "lemon:project");
  const doc = f.doc;
  // Every valid entry of the file, unnamed legacy ones included; views carry the file index.
  const servers: ServerView[] = [];
  if (doc) {
    rawEntries(doc).forEach((raw, index) => {
      const v = validateEntry(raw);
      if (v.ok) servers.push(serverView(v.entry, v.transport, index));
    });
  }
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

export function effectiveView(set: EffectiveSet, scope: Scope): McpEffectiveListing {
  return {
    scope,
    disabled: set.disabled,
    enabled: set.enabled,
    effective: set.servers.map((s) => ({
      name: s.name,
      source: s.source,
      type: s.type,
      enabled: s.enabled,
      disabled_by: s.disabled_by,
      approval: s.approval,
      shadowed: s.shadowed,
      warnings: s.warnings,
    })),
    diagnostics: set.diagnostics,
  };
}

/** The `mcp.config` API over one context; `opts` carries the `[mcp]` module options. */
export function createMcpConfig(base: LemonContext, opts: McpConfigOptions = {}): McpConfigApi {
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
    return effectiveView(await effectiveServers(ctx, opts, scope), scope);
  }

  return {
    list: list as McpConfigApi["list"],
    add: async (entry, o = {}) => (await (await edit()).addServer(at(o), entry, o)).server,
    addDetailed: async (entry, o = {}) => (await edit()).addServer(at(o), entry, o),
    remove: async (name, o = {}) => (await edit()).removeServer(at(o), name, o),
    enable: (name, o) => toggle(name, true, o),
    disable: (name, o) => toggle(name, false, o),
  };
}

/** Convenience for embedders without a full `createLemon`: builds the context from options. */
export function mcpConfig(options: ContextOptions & McpConfigOptions = {}): McpConfigApi {
  const { config, readConfigFile, ...ctxOpts } = options;
  return createMcpConfig(createContext(ctxOpts), {
    ...(config !== undefined ? { config } : {}),
    ...(readConfigFile !== undefined ? { readConfigFile } : {}),
  });
}
