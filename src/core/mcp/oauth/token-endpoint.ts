/**
 * @module mcp/oauth/token-endpoint
 * Token requests (RFC 6749 §3.2) with `client_secret_basic`, `client_secret_post` or a public
 * client's `client_id`, and their answers (mcp.md §11.5). Error messages are fixed: a server's
 * `error_description` is free text from the network and never reaches a message, a log or a
 * file; only a registered `error` code is kept, in `details`.
 */
import { LemonError } from "../../errors.ts";
import { isoSeconds } from "../../fsx/atomic.ts";
import { type OAuthNet, oauthRequest, readJsonObject, str } from "./net.ts";
import type { ClientAuthMethod } from "./settings.ts";

export interface ClientCredentials {
  clientId: string;
  clientSecret: string | null;
  method: ClientAuthMethod;
}

export interface TokenResult {
  access_token: string;
  token_type: string;
  /** Seconds, or null when the server did not say. */
  expires_in: number | null;
  refresh_token: string | null;
  scope: string | null;
}

/** RFC 6749 §5.2 and RFC 8707 codes; anything else a server says is reported as "other". */
const KNOWN_ERRORS = new Set([
  "invalid_request",
  "invalid_client",
  "invalid_grant",
  "unauthorized_client",
  "unsupported_grant_type",
  "invalid_scope",
  "invalid_target",
  "invalid_redirect_uri",
  "temporarily_unavailable",
  "server_error",
]);

/** A token endpoint's refusal; `oauthError` is its (registered) `error` code. */
export class TokenEndpointError extends LemonError {
  constructor(
    message: string,
    readonly oauthError: string | null,
    /** The refusal names the redirect URI: register again with a fresh one. */
    readonly redirectRejected: boolean,
  ) {
    super("UNAUTHORIZED", message, oauthError ? { details: { oauth_error: oauthError } } : {});
  }
}

export const isTokenEndpointError = (e: unknown): e is TokenEndpointError =>
  LemonError.is(e) && e instanceof TokenEndpointError;

/**
 * The method to authenticate with: configured, else what the registration agreed, else the first
 * of basic/post the server lists, else `none` when that is all it lists, else post; a client
 * without a secret is public (`none`).
 */
export function chooseAuthMethod(
  hasSecret: boolean,
  configured: "client_secret_basic" | "client_secret_post" | null,
  registered: string | null,
  supported: string[] | null,
): ClientAuthMethod {
  if (!hasSecret) return "none";
  if (configured !== null) return configured;
  if (registered === "client_secret_basic" || registered === "client_secret_post") return registered;
  const listed = (supported ?? []).find((m) => m === "client_secret_basic" || m === "client_secret_post");
  if (listed === "client_secret_basic" || listed === "client_secret_post") return listed;
  // A server that lists only `none` does not want the secret (some issue one anyway on DCR).
  return supported?.includes("none") ? "none" : "client_secret_post";
}

const formPart = (s: string) => encodeURIComponent(s).replace(/%20/g, "+");

/** RFC 6749 VSCHAR without the space: what a Bearer header value can carry unchanged. */
const ACCESS_TOKEN = /^[\x21-\x7e]+$/;
const MAX_LIFETIME_S = 10 * 365.25 * 86_400;

/**
 * `expires_in` in seconds: null (unknown) unless 0 < n ≤ 10 years, so no date computed from it can
 * be invalid; a negative value is 0, expired now, rather than never expiring.
 */
export function lifetime(exp: unknown): number | null {
  const n = typeof exp === "number" ? exp : typeof exp === "string" && /^-?\d+$/.test(exp) ? Number(exp) : null;
  if (n === null || !Number.isFinite(n)) return null;
  if (n < 0) return 0;
  return n > 0 && n <= MAX_LIFETIME_S ? n : null;
}

/** Never throws: a grant already spent must still have its result (a rotated refresh token) stored. */
export function expiry(now: Date, seconds: number | null): string | null {
  if (seconds === null) return null;
  const at = new Date(now.getTime() + seconds * 1000);
  return Number.isNaN(at.getTime()) ? null : isoSeconds(at);
}

/** Describes a refusal without its free text (the redirect decision reads it, nothing keeps it). */
export function refusal(doc: Record<string, unknown> | null, status: number): TokenEndpointError {
  const raw = str(doc, "error");
  const code = raw !== null && KNOWN_ERRORS.has(raw) ? raw : null;
  const names = /redirect_uri/i.test(str(doc, "error_description") ?? "");
  const redirect =
    code === "invalid_redirect_uri" || ((code === "invalid_request" || code === "invalid_grant") && names);
  if (code === "invalid_grant") return new TokenEndpointError("token endpoint rejected the grant", code, redirect);
  // Only the server's own `invalid_client` deletes tokens and registration: a bare 401 may come
  // from a proxy or gateway and must not cost the user a refresh token.
  if (code === "invalid_client") return new TokenEndpointError("token endpoint rejected the client", code, false);
  if (code === null && status === 401) return new TokenEndpointError("token endpoint rejected the client", null, false);
  return new TokenEndpointError("token endpoint error", code, redirect);
}

/** POSTs `params` (plus client authentication) to the token endpoint and checks the answer. */
export async function tokenRequest(
  net: OAuthNet,
  endpoint: string,
  client: ClientCredentials,
  params: Record<string, string>,
): Promise<TokenResult> {
  const body = new URLSearchParams(params);
  const headers: Record<string, string> = { "content-type": "application/x-www-form-urlencoded" };
  if (client.method === "client_secret_basic" && client.clientSecret !== null) {
    const pair = `${formPart(client.clientId)}:${formPart(client.clientSecret)}`;
    headers.authorization = `Basic ${Buffer.from(pair).toString("base64")}`;
  } else {
    body.set("client_id", client.clientId);
    if (client.method === "client_secret_post" && client.clientSecret !== null)
      body.set("client_secret", client.clientSecret);
  }
  const res = await oauthRequest(net, "token endpoint", endpoint, { method: "POST", headers, body: body.toString() });
  const doc = await readJsonObject(res);
  if (res.status !== 200) throw refusal(doc, res.status);
  const access = str(doc, "access_token");
  if (access === null) throw new TokenEndpointError("token response without access_token", null, false);
  // It becomes a header value: a CR/LF or other control character would fail every request (or split it).
  if (!ACCESS_TOKEN.test(access))
    throw new TokenEndpointError("token response with an invalid access_token", null, false);
  const type = str(doc, "token_type") ?? "Bearer";
  if (type.toLowerCase() !== "bearer")
    throw new TokenEndpointError("token response is not a Bearer token", null, false);
  return {
    access_token: access,
    token_type: "Bearer",
    expires_in: lifetime(doc?.expires_in),
    refresh_token: str(doc, "refresh_token"),
    scope: typeof doc?.scope === "string" ? doc.scope : null,
  };
}
