/**
 * @module mcp/oauth/settings
 * An entry's `oauth` object (mcp.md §11.1) as the engine uses it. The entry was validated when
 * it was read; this only resolves defaults, aliases and the client secret (a literal, `${VAR}` /
 * `${VAR:-default}`, or `client_secret_env`) from the context's environment.
 */
import type { LemonContext } from "../../context.ts";

export type OAuthFlow = "client_credentials" | "authorization_code_pkce";
export type ClientAuthMethod = "client_secret_basic" | "client_secret_post" | "none";

export interface OAuthSettings {
  flow: OAuthFlow;
  clientId: string | null;
  /** Resolved; null when none is configured or its variable is unset. */
  clientSecret: string | null;
  /** True when a secret was configured (even if its variable is unset). */
  secretConfigured: boolean;
  /** Configured scopes (`scope` split, else `scopes`); empty when none. */
  scopes: string[];
  tokenAuthMethod: "client_secret_basic" | "client_secret_post" | null;
  redirectUri: string | null;
  authorizationTimeoutMs: number;
  /** As configured; the session honours `false` only from a privileged source. */
  authorizationApproval: boolean;
  allowPrivateNetwork: boolean;
  tokenSecret: string | null;
}

export const DEFAULT_AUTHORIZATION_TIMEOUT_MS = 300_000;

const get = (o: Record<string, unknown>, key: string): unknown => o[key] ?? o[key.replaceAll("_", "-")];
const text = (v: unknown): string | null => (typeof v === "string" && v !== "" ? v : null);

/** `${VAR}` and `${VAR:-default}` from `env`; an unset variable without default resolves to null. */
function expandSecret(value: string, env: LemonContext["env"]): string | null {
  let missing = false;
  const out = value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g, (_m, name: string, def?: string) => {
    const v = env[name];
    if (v !== undefined && v !== "") return v;
    if (def !== undefined) return def;
    missing = true;
    return "";
  });
  return missing || out === "" ? null : out;
}

/** The settings of an entry's `oauth` value (any object; unknown keys ignored). */
export function parseOAuthSettings(raw: unknown, env: LemonContext["env"]): OAuthSettings {
  const o = raw !== null && typeof raw === "object" && !Array.isArray(raw) ? (raw as Record<string, unknown>) : {};
  const literal = text(get(o, "client_secret"));
  const envName = text(get(o, "client_secret_env"));
  const secretConfigured = literal !== null || envName !== null;
  const clientSecret =
    literal !== null ? expandSecret(literal, env) : envName !== null ? text(env[envName] ?? null) : null;
  const flowRaw = get(o, "flow");
  const flow: OAuthFlow =
    flowRaw === "client_credentials"
      ? "client_credentials"
      : flowRaw === "authorization_code_pkce" || flowRaw === "pkce"
        ? "authorization_code_pkce"
        : secretConfigured
          ? "client_credentials"
          : "authorization_code_pkce";
  const scopeText = text(get(o, "scope"));
  const list = get(o, "scopes");
  const scopes =
    scopeText !== null
      ? scopeText.split(/\s+/).filter((s) => s !== "")
      : Array.isArray(list)
        ? list.filter((s): s is string => typeof s === "string" && s !== "")
        : [];
  const method = get(o, "token_auth_method");
  const timeout = get(o, "authorization_timeout_ms");
  return {
    flow,
    clientId: text(get(o, "client_id")),
    clientSecret,
    secretConfigured,
    scopes,
    tokenAuthMethod: method === "client_secret_basic" || method === "client_secret_post" ? method : null,
    redirectUri: text(get(o, "redirect_uri")),
    authorizationTimeoutMs:
      typeof timeout === "number" && Number.isInteger(timeout) && timeout > 0
        ? timeout
        : DEFAULT_AUTHORIZATION_TIMEOUT_MS,
    authorizationApproval: get(o, "authorization_approval") !== false,
    allowPrivateNetwork: get(o, "allow_private_network") === true,
    tokenSecret: text(get(o, "token_secret")),
  };
}
