/**
 * @module mcp/settings
 * The master switches of mcp.md §1, resolved once per call: explicit module options win over
 * env, env wins over `config.toml`. Also decides where (if anywhere) user-level files of other
 * tools are read from.
 */
import { isAbsolute } from "node:path";
import type { LemonContext } from "../context.ts";
import { envValue, expandUserPath } from "../context.ts";
import { diagnostic, type Diagnostic } from "../diagnostics.ts";
import { resolvePaths } from "../paths.ts";
import { GLOBAL_ROOTS } from "../skills/roots.ts";
import { readMcpAppConfig, type McpAppConfig } from "./app-config.ts";
import { locationValue } from "./importers/common.ts";

export interface McpConfigOptions {
  /** Same keys as `[mcp]` of config.toml; each given key wins over env and the file. */
  config?: McpAppConfig;
  /** Read `A/config.toml` (default true). */
  readConfigFile?: boolean;
}

export interface McpSettings {
  disabled: boolean;
  externalDiscovery: boolean;
  /** Directory user-level imports are read from, or null when none may be read. */
  userHome: string | null;
  /** Whether user-level files beyond omp's (read by default) are read. */
  userDiscovery: boolean;
  /** `CLAUDE_CONFIG_DIR` when set (its files are read even without user discovery). */
  claudeConfigDir: string | null;
  /** The module's `mcp.servers` followed by the `[[mcp.servers]]` tables. */
  configServers: unknown[];
  /** `[mcp] cache_ttl_ms`, `refresh_interval_ms`, `max_result_chars` (mcp.md §6.3, §6.4). */
  cacheTtlMs: number;
  refreshIntervalMs: number;
  maxResultChars: number;
  diagnostics: Diagnostic[];
}

export const DEFAULT_CACHE_TTL_MS = 300_000;
export const DEFAULT_REFRESH_INTERVAL_MS = 60_000;
export const DEFAULT_MAX_RESULT_CHARS = 100_000;

const TRUE = /^(1|true|yes)$/i;
const FALSE = /^(0|false|no)$/i;

/**
 * An env switch either way (mcp.md §1: env wins over config.toml in both directions):
 * 1/true/yes → true, 0/false/no → false, unset, empty or anything else → undefined.
 */
function envBool(v: string | undefined): boolean | undefined {
  if (v === undefined) return undefined;
  const t = v.trim();
  if (TRUE.test(t)) return true;
  if (FALSE.test(t)) return false;
  return undefined;
}

/** A skill-root override (skills.md §2.1) moves the runtime away from the user's tools, like LEMON_HOME. */
function skillRootOverridden(ctx: LemonContext): boolean {
  if (Object.values(ctx.skillRoots).some((v) => v !== undefined)) return true;
  return GLOBAL_ROOTS.some((r) => ctx.env[r.env] !== undefined);
}

export async function resolveSettings(ctx: LemonContext, opts: McpConfigOptions = {}): Promise<McpSettings> {
  const file =
    opts.readConfigFile === false
      ? { config: {}, diagnostics: [] }
      : await readMcpAppConfig(resolvePaths(ctx).configToml);
  const fromFile: McpAppConfig = file.config;
  const explicit: McpAppConfig = opts.config ?? {};
  const env = ctx.env;

  const disabled = explicit.disabled ?? envBool(env.LEMON_MCP_DISABLED) ?? fromFile.disabled ?? false;
  const externalDiscovery =
    explicit.external_discovery ?? envBool(env.LEMON_MCP_EXTERNAL_DISCOVERY) ?? fromFile.external_discovery ?? true;
  const userDiscovery =
    explicit.external_user_discovery ??
    envBool(env.LEMON_MCP_EXTERNAL_USER_DISCOVERY) ??
    fromFile.external_user_discovery ??
    false;
  const diagnostics = [...file.diagnostics];
  // A relative home would resolve inside the project, whose files would then be the user's own.
  const absoluteHome = (v: string | undefined, label: string) => {
    if (v === undefined || isAbsolute(v) || v === "~" || v.startsWith("~/")) return v;
    diagnostics.push(diagnostic("warn", "relative_path", `${label} is not an absolute path; ignored`));
    return undefined;
  };
  const discoveryHome =
    absoluteHome(explicit.discovery_home, "discovery_home") ??
    absoluteHome(envValue(env, "LEMON_MCP_DISCOVERY_HOME"), "LEMON_MCP_DISCOVERY_HOME") ??
    absoluteHome(fromFile.discovery_home, "mcp.discovery_home");

  // An isolated runtime (LEMON_HOME / LEMON_AGENT_DIR / skill-root override) reads no user file
  // of any tool, omp's included, unless a discovery home says where to look.
  const isolated = ctx.isolated || skillRootOverridden(ctx);
  let userHome: string | null;
  if (discoveryHome !== undefined) userHome = expandUserPath(ctx, discoveryHome);
  else userHome = isolated ? null : ctx.homeDir;

  // Relative values are ignored here as by the importer (sources.ts warns).
  const claude = locationValue(env, "CLAUDE_CONFIG_DIR");
  const claudeConfigDir = userHome !== null && claude !== undefined ? claude : null;

  return {
    disabled,
    externalDiscovery,
    userHome,
    userDiscovery,
    claudeConfigDir,
    // Explicit options win, so their entries claim names before the file's.
    configServers: [...(explicit.servers ?? []), ...(fromFile.servers ?? [])],
    cacheTtlMs: explicit.cache_ttl_ms ?? fromFile.cache_ttl_ms ?? DEFAULT_CACHE_TTL_MS,
    refreshIntervalMs: explicit.refresh_interval_ms ?? fromFile.refresh_interval_ms ?? DEFAULT_REFRESH_INTERVAL_MS,
    maxResultChars: explicit.max_result_chars ?? fromFile.max_result_chars ?? DEFAULT_MAX_RESULT_CHARS,
    diagnostics,
  };
}
