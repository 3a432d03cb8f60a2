/**
 * @module lemon-skills
 * The embeddable lemon core: `createLemon(options)` returns an instance whose caches hang off
 * the object itself, so two instances share nothing. No CLI or terminal code is reachable here.
 */
import { createContext, type ContextOptions, type LemonContext } from "./context.ts";
import type { SkillEntry } from "./skills/entry.ts";
import { SkillRegistry } from "./skills/registry.ts";
import type { AuditReport } from "./skills/audit/engine.ts";
import type { SearchResult } from "./skills/search/search.ts";
import type { McpAppConfig, McpConfigApi } from "./mcp/index.ts";
import { validateEntries } from "./mcp/validate.ts";

export interface LemonOptions extends ContextOptions {
  /** The `config.toml` settings as options; a key given here wins over the file. */
  config?: { mcp?: McpAppConfig };
  /** Read `<agentDir>/config.toml` (default true). */
  readConfigFile?: boolean;
  /** Background curator; the CLI passes false. Accepted now, started once the curator exists. */
  curator?: false | Record<string, unknown>;
}

export interface SkillsApi {
  list: SkillRegistry["list"];
  get: SkillRegistry["get"];
  status: SkillRegistry["status"];
  refresh: SkillRegistry["refresh"];
  enable(key: string, opts?: { cwd?: string; global?: boolean }): Promise<void>;
  disable(key: string, opts?: { cwd?: string; global?: boolean }): Promise<void>;
  audit(target: string, opts?: { cwd?: string; force?: boolean }): Promise<AuditReport>;
  findRelevant(query: string, opts?: { cwd?: string; maxResults?: number; refresh?: boolean }): Promise<SkillEntry[]>;
  search(query: string, opts?: { cwd?: string; maxLocal?: number; maxOnline?: number; online?: boolean }): Promise<SearchResult>;
}

export interface McpApi {
  /** lemon's own `mcp.json` files plus the imports from other tools (mcp.md §1–§4). */
  readonly config: McpConfigApi;
  validate: McpConfigApi["validate"];
}

export interface Lemon extends AsyncDisposable {
  readonly mcp: McpApi;
  readonly context: LemonContext;
  readonly skills: SkillsApi;
  /** Lower-level registry used by the CLI (enable/disable report the file and whether it changed). */
  readonly registry: SkillRegistry;
  renderPrompt(opts?: { cwd?: string }): Promise<string>;
  renderRelevant(entries: SkillEntry[]): string;
  close(): Promise<void>;
}

export function createLemon(options: LemonOptions = {}): Lemon {
  const context = createContext(options);
  const registry = new SkillRegistry(context, options.readConfigFile !== undefined ? { readConfigFile: options.readConfigFile } : {});
  const skills: SkillsApi = {
    list: (o) => registry.list(o),
    get: (k, o) => registry.get(k, o),
    status: (k, o) => registry.status(k, o),
    refresh: (o) => registry.refresh(o),
    enable: async (k, o) => void (await registry.enable(k, o)),
    disable: async (k, o) => void (await registry.disable(k, o)),
    audit: (t, o) => registry.audit(t, o),
    findRelevant: (q, o) => registry.findRelevant(q, o),
    search: (q, o) => registry.search(q, o),
  };
  // The MCP configuration code loads on first use, so skill commands never pay for it.
  let mcpConfig: Promise<McpConfigApi> | null = null;
  const cfg = () =>
    (mcpConfig ??= import("./mcp/index.ts").then((m) =>
      m.createMcpConfig(context, {
        ...(options.config?.mcp !== undefined ? { config: options.config.mcp } : {}),
        ...(options.readConfigFile !== undefined ? { readConfigFile: options.readConfigFile } : {}),
      }),
    ));
  const config: McpConfigApi = {
    list: (async (o?: Parameters<McpConfigApi["list"]>[0]) => (await cfg()).list(o)) as McpConfigApi["list"],
    add: async (e, o) => (await cfg()).add(e, o),
    addDetailed: async (e, o) => (await cfg()).addDetailed(e, o),
    remove: async (n, o) => (await cfg()).remove(n, o),
    enable: async (n, o) => (await cfg()).enable(n, o),
    disable: async (n, o) => (await cfg()).disable(n, o),
    validate: (entries) => validateEntries(entries),
  };
  const mcp: McpApi = { config, validate: (entries) => validateEntries(entries) };
  const close = async () => {
    await registry.close();
  };
  return {
    context,
    mcp,
    skills,
    registry,
    renderPrompt: (o) => registry.renderPrompt(o),
    renderRelevant: (e) => registry.renderRelevant(e),
    close,
    [Symbol.asyncDispose]: close,
  };
}

export { LemonError, type ErrorCode } from "./errors.ts";
export type { Diagnostic } from "./diagnostics.ts";
export type { SkillEntry, SkillStatus, ActivationState } from "./skills/entry.ts";
export type { SkillList, ShadowedSkill, InvalidSkill } from "./skills/registry.ts";
export type { Scope } from "./paths.ts";
export type { AuditReport } from "./skills/audit/engine.ts";
export type { Finding, Verdict } from "./schema/finding.ts";
export type { McpServerConfig, ServerView, McpConfigApi, McpAppConfig } from "./mcp/index.ts";
export type { SearchResult, SearchWarning } from "./skills/search/search.ts";
