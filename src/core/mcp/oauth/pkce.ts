/**
 * @module mcp/oauth/pkce
 * Authorization code + PKCE pieces (mcp.md §11.4, RFC 7636): a 64-character verifier from the
 * unreserved set and its S256 challenge, the single-use `state`, the authorization URL, and the
 * `--headless-auth` follower that plays the browser for test harnesses: it GETs the URL, follows
 * at most 5 redirects while they stay on the authorization server's origin, and delivers the
 * redirect to the loopback URI to the listener itself.
 */
import { fail, type OAuthNet, oauthRequest, readJsonObject, str } from "./net.ts";
import { checkOAuthUrl } from "./url-safety.ts";

const UNRESERVED = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~";

export function newVerifier(): string {
  // 66 symbols: rejection sampling keeps every character equally likely.
  const out: string[] = [];
  while (out.length < 64) {
    for (const b of crypto.getRandomValues(new Uint8Array(96))) {
      if (b < 198 && out.length < 64) out.push(UNRESERVED[b % 66]!);
    }
  }
  return out.join("");
}

export const challengeOf = (verifier: string) =>
  Buffer.from(new Bun.CryptoHasher("sha256").update(verifier).digest()).toString("base64url");

export const newState = () => Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url");

export interface AuthorizeParams {
  endpoint: string;
  clientId: string;
  redirectUri: string;
  challenge: string;
  state: string;
  scopes: string[];
  resource: string;
}

export function authorizationUrl(p: AuthorizeParams): string {
  const u = new URL(p.endpoint);
  const q = u.searchParams;
  q.set("response_type", "code");
  q.set("client_id", p.clientId);
  q.set("redirect_uri", p.redirectUri);
  q.set("code_challenge", p.challenge);
  q.set("code_challenge_method", "S256");
  q.set("state", p.state);
  if (p.scopes.length > 0) q.set("scope", p.scopes.join(" "));
  q.set("resource", p.resource);
  return u.href;
}

/** The authorization server refused the redirect URI at the authorization endpoint. */
export class AuthorizeRedirectRejected extends Error {}

/** The authorization endpoint answered an error page (4xx, no redirect): e.g. a client it forgot. */
export class AuthorizeRefused extends Error {}

const LOOPBACK_NAMES = new Set(["127.0.0.1", "localhost", "[::1]"]);

function isRedirectTarget(to: URL, redirectUri: URL): boolean {
  return (
    LOOPBACK_NAMES.has(to.hostname) &&
    LOOPBACK_NAMES.has(redirectUri.hostname) &&
    to.port === redirectUri.port &&
    to.pathname === redirectUri.pathname
  );
}

/** Plays the browser for `--headless-auth`; resolves once the callback was delivered. */
export async function followHeadless(net: OAuthNet, authUrl: string, redirectUri: string): Promise<void> {
  const asOrigin = new URL(authUrl).origin;
  const target = new URL(redirectUri);
  let url = new URL(authUrl);
  for (let hop = 0; hop <= 5; hop++) {
    const res = await oauthRequest(net, "authorization endpoint", url, { redirects: false });
    const location = res.headers.get("location");
    if (res.status < 300 || res.status >= 400 || location === null) {
      const doc = await readJsonObject(res);
      const err = str(doc, "error");
      if (
        (err === "invalid_request" || err === "invalid_redirect_uri") &&
        /redirect_uri/i.test(str(doc, "error_description") ?? "")
      )
        throw new AuthorizeRedirectRejected();
      if (res.status >= 400 && res.status < 500) throw new AuthorizeRefused();
      throw fail("headless authorization did not reach the redirect URI");
    }
    await res.body?.cancel().catch(() => {});
    const next = new URL(location, url);
    if (isRedirectTarget(next, target)) {
      // The listener binds 127.0.0.1 whatever name the redirect URI uses.
      const deliver = new URL(next.href);
      deliver.hostname = "127.0.0.1";
      const r = await net
        .fetch(deliver, { redirect: "manual", signal: AbortSignal.timeout(net.timeoutMs) })
        .catch(() => null);
      await r?.body?.cancel().catch(() => {});
      return;
    }
    if (next.origin !== asOrigin) throw fail("headless authorization left the authorization server");
    url = await checkOAuthUrl(next, net.policy);
  }
  throw fail("headless authorization did not reach the redirect URI");
}
