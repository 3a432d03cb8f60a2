/**
 * What the conformance client configures per scenario (each auth scenario's servers are in
 * node_modules/@modelcontextprotocol/conformance/dist). Every auth scenario's entry carries an `oauth` object:
 * several challenge without `resource_metadata`, which only a configured entry treats as OAuth.
 */
import type { McpServerConfig } from "../../src/core/index.ts";

/** The Client ID Metadata Document URL the `auth/basic-cimd` authorization server expects. */
export const CIMD_CLIENT_ID = "https://conformance-test.local/client-metadata.json";

/** `MCP_CONFORMANCE_CONTEXT` (pre-registered credentials), or null when absent or not JSON. */
export function parseContext(text: string | undefined): { client_id?: string; client_secret?: string } | null {
  if (text === undefined || text === "") return null;
  try {
    const v: unknown = JSON.parse(text);
    if (typeof v !== "object" || v === null) return null;
    const o = v as Record<string, unknown>;
    return {
      ...(typeof o.client_id === "string" ? { client_id: o.client_id } : {}),
      ...(typeof o.client_secret === "string" ? { client_secret: o.client_secret } : {}),
    };
  } catch {
    return null;
  }
}

/** The server entry for one scenario: a Streamable HTTP server with the scenario's oauth settings. */
export function scenarioEntry(
  scenario: string,
  url: string,
  contextText: string | undefined,
): McpServerConfig & { name: string } {
  const ctx = parseContext(contextText);
  const oauth: Record<string, unknown> = { authorization_timeout_ms: 20_000 };
  if (ctx?.client_id !== undefined) {
    // Pre-registered credentials: auth/client-credentials-* expect the client_credentials grant,
    // auth/pre-registration the authorization code flow with its secret.
    oauth.flow = scenario.startsWith("auth/client-credentials") ? "client_credentials" : "authorization_code_pkce";
    oauth.client_id = ctx.client_id;
    if (ctx.client_secret !== undefined) oauth.client_secret = ctx.client_secret;
  } else if (scenario === "auth/basic-cimd") {
    // A URL client_id is a Client ID Metadata Document: a public client, no registration needed.
    oauth.client_id = CIMD_CLIENT_ID;
  }
  return {
    name: "conformance",
    type: "http",
    url,
    ...(scenario.startsWith("auth/") ? { oauth: oauth as McpServerConfig["oauth"] } : {}),
    timeout_ms: 20_000,
    ready_timeout_ms: 25_000,
  };
}
