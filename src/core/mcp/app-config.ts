/**
 * @module mcp/app-config
 * The `[mcp]` section and `[[mcp.servers]]` tables of `A/config.toml`. A missing file costs one
 * stat; smol-toml loads only when the file exists. A bad file is a diagnostic, never a throw.
 */
import { diagnostic, type Diagnostic } from "../diagnostics.ts";
import { parseText, readCapped } from "./read.ts";
import { isObject } from "./validate.ts";

/** The `[mcp]` keys this module reads; the module's `config.mcp` option has the same shape. */
export interface McpAppConfig {
  disabled?: boolean;
  external_discovery?: boolean;
  external_user_discovery?: boolean;
  discovery_home?: string;
  /** Inventory cache per server, ms (mcp.md §6.4; default 300,000; 0 = re-list on every discovery). */
  cache_ttl_ms?: number;
  /** Periodic refresh of stale inventories in long-lived hosts, ms (§6.4; default 60,000; 0 = none). */
  refresh_interval_ms?: number;
  /** Text characters per tool result before it is cut (§6.3; default 100,000). */
  max_result_chars?: number;
  servers?: unknown[];
}

const BOOL_KEYS = ["disabled", "external_discovery", "external_user_discovery"] as const;
/** Integer keys with their smallest accepted value: a result cut to nothing would be no result. */
const INT_KEYS = [
  ["cache_ttl_ms", 0],
  ["refresh_interval_ms", 0],
  ["max_result_chars", 1],
] as const;

/** Picks the known keys of an `[mcp]` table, reporting (not throwing on) wrong types. */
export function pickMcpConfig(raw: unknown, file: string, diagnostics: Diagnostic[]): McpAppConfig {
  const out: McpAppConfig = {};
  if (!isObject(raw)) return out;
  for (const k of BOOL_KEYS) {
    const v = raw[k];
    if (v === undefined) continue;
    if (typeof v === "boolean") out[k] = v;
    else
      diagnostics.push(
        diagnostic("warn", "invalid_config", `mcp.${k} must be a boolean`, { path: file, key: `mcp.${k}` }),
      );
  }
  for (const [k, min] of INT_KEYS) {
    const v = raw[k];
    if (v === undefined) continue;
    if (typeof v === "number" && Number.isSafeInteger(v) && v >= min) out[k] = v;
    else
      diagnostics.push(
        diagnostic("warn", "invalid_config", `mcp.${k} must be an integer >= ${min}`, { path: file, key: `mcp.${k}` }),
      );
  }
  if (raw.discovery_home !== undefined) {
    if (typeof raw.discovery_home === "string" && raw.discovery_home !== "") out.discovery_home = raw.discovery_home;
    else
      diagnostics.push(
        diagnostic("warn", "invalid_config", "mcp.discovery_home must be a string", {
          path: file,
          key: "mcp.discovery_home",
        }),
      );
  }
  if (raw.servers !== undefined) {
    if (Array.isArray(raw.servers)) out.servers = raw.servers as unknown[];
    else
      diagnostics.push(
        diagnostic("warn", "invalid_config", "mcp.servers must be an array of tables", {
          path: file,
          key: "mcp.servers",
        }),
      );
  }
  return out;
}

export async function readMcpAppConfig(file: string): Promise<{ config: McpAppConfig; diagnostics: Diagnostic[] }> {
  const diagnostics: Diagnostic[] = [];
  const r = await readCapped(file);
  if (r.kind === "missing") return { config: {}, diagnostics };
  if (r.kind === "error") {
    diagnostics.push(diagnostic("error", "read_error", r.reason, { path: file, source: "lemon:config" }));
    return { config: {}, diagnostics };
  }
  const parsed = await parseText(r.text, "toml");
  if (!parsed.ok) {
    diagnostics.push(diagnostic("error", "parse_error", parsed.reason, { path: file, source: "lemon:config" }));
    return { config: {}, diagnostics };
  }
  const root = isObject(parsed.value) ? parsed.value : {};
  return { config: pickMcpConfig(root.mcp, file, diagnostics), diagnostics };
}
