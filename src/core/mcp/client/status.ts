/**
 * @module mcp/client/status
 * `status()` of mcp.md §13 from a project view. Only fixed reasons, names, counts and versions
 * appear: never a command, argument, URL, header or env value, token or server stderr.
 */
import { diagnostic, type Diagnostic } from "../../diagnostics.ts";
import { cell } from "../../text.ts";
import { samplingWarning } from "./sampling.ts";
import type { AuthStatus, ProjectView } from "./host.ts";

export interface McpServerStatus {
  name: string;
  source: string;
  transport: string;
  enabled: boolean;
  state: string;
  connected: boolean;
  protocol_version: string | null;
  server_info: { name: string; version: string } | null;
  capabilities: { tools: boolean; resources: boolean; prompts: boolean };
  tool_count: number;
  resource_count: number;
  prompt_count: number;
  auth: { type: "none" | "headers" | "oauth"; state?: string; expires_at?: string | null };
  reconnect_attempts: number;
  crashes_30s: number;
  last_error: string | null;
  warnings: string[];
}

export interface McpStatus {
  disabled: boolean;
  enabled: boolean;
  cache_ttl_ms: number;
  cached_tools: number;
  servers: Record<string, McpServerStatus>;
  diagnostics: Diagnostic[];
}

const NO_CAPS = { tools: false, resources: false, prompts: false };

/** A status object without any server (MCP off, or before the first discovery). */
export function emptyStatus(disabled: boolean, cacheTtlMs: number): McpStatus {
  return { disabled, enabled: !disabled, cache_ttl_ms: cacheTtlMs, cached_tools: 0, servers: {}, diagnostics: [] };
}

/**
 * `oauth`: the OAuth state of each server that uses OAuth (host.authStates); such a server that
 * needs a flow it could not run is `needs_auth` rather than `error`.
 */
export function buildStatus(
  view: ProjectView,
  cacheTtlMs: number,
  samplingDelegate = false,
  oauth?: Map<string, AuthStatus & { warnings?: string[] }>,
): McpStatus {
  const servers: Record<string, McpServerStatus> = {};
  const truncated: Diagnostic[] = [];
  for (const { server: s, link, gate } of view.slots) {
    const entry = s.server.entry;
    const oauthState = oauth?.get(s.name);
    const auth: McpServerStatus["auth"] = oauthState
      ? { type: oauthState.type, state: oauthState.state, expires_at: oauthState.expires_at }
      : entry.oauth !== undefined
        ? { type: "oauth", state: "needs_auth", expires_at: null }
        : Object.keys(entry.headers ?? {}).length > 0
          ? { type: "headers" }
          : { type: "none" };
    const conn = link?.conn ?? null;
    const inv = link?.inventory ?? null;
    const warnings = [
      ...s.warnings,
      ...(oauthState?.warnings ?? []),
      ...(inv?.truncated ?? []).map((k) => `${k} listing truncated`),
    ];
    const noDelegate = samplingWarning(entry, samplingDelegate);
    if (noDelegate !== null) warnings.push(noDelegate);
    // §6.1: a listing cut at 50 pages / 1,000 items is a `truncated` diagnostic, not only a warning.
    for (const k of inv?.truncated ?? [])
      truncated.push(
        diagnostic("warn", "truncated", `server '${cell(s.name)}': ${k} listing truncated at 1000 items or 50 pages`, {
          source: s.source,
        }),
      );
    let state: string = gate ?? link?.state ?? "disconnected";
    let lastError = link?.lastError ?? null;
    if (gate === "needs_auth") lastError = "authorization required";
    if (gate === "disabled" || gate === "untrusted") lastError = null;
    if (link !== null && gate === null && link.state === "connected" && conn === null) state = "disconnected";
    if (auth.type === "oauth" && conn === null && lastError === "authorization required") state = "needs_auth";
    servers[s.name] = {
      name: s.name,
      source: s.source,
      transport: s.type,
      enabled: s.enabled,
      state,
      connected: conn !== null && link?.state === "connected",
      protocol_version: conn?.protocolVersion ?? null,
      server_info: conn?.serverInfo ?? null,
      capabilities: conn?.capabilities ?? NO_CAPS,
      tool_count: inv ? inv.byRaw.size : 0,
      resource_count: inv?.resources ?? 0,
      prompt_count: inv?.prompts ?? 0,
      auth,
      reconnect_attempts: link?.attempts ?? 0,
      crashes_30s: link?.crashes30s ?? 0,
      last_error: lastError,
      warnings,
    };
  }
  return {
    disabled: view.set.disabled,
    enabled: view.set.enabled,
    cache_ttl_ms: cacheTtlMs,
    cached_tools: view.names.size,
    servers,
    diagnostics: [...view.set.diagnostics.map(cleanDiagnostic), ...truncated],
  };
}

/**
 * Diagnostics quote names from foreign files (a key may hold ESC or bidi characters): JSON output
 * carries them as one clean line too, not only the human rendering.
 */
function cleanDiagnostic(d: Diagnostic): Diagnostic {
  const message = cell(d.message);
  const key = d.key === undefined ? undefined : cell(d.key);
  if (message === d.message && key === d.key) return d;
  return { ...d, message, ...(key !== undefined ? { key } : {}) };
}
