/**
 * @module mcp/oauth/session
 * One server entry's OAuth state (mcp.md §11.2): the bearer for the next request (a stored
 * token, refreshed proactively under the refresh lock), and what happens on a 401 (discovery,
 * then refresh → client credentials → PKCE) or a 403 `insufficient_scope` (a bounded step-up).
 * lemon's own code runs every flow; the SDK's auth helpers are never used.
 */
import type { LemonContext } from "../../context.ts";
import { LemonError } from "../../errors.ts";
import { isoSeconds } from "../../fsx/atomic.ts";
import { canonicalServerUrl, type Discovery, discover, sameIssuer } from "./discovery.ts";
import { notApproved, runPkce } from "./flows.ts";
import { DEFAULT_TIMEOUT_MS, fail, type OAuthNet } from "./net.ts";
import type { OAuthSettings } from "./settings.ts";
import { type ClientStore, clientStore, type OAuthTokenFile, type TokenStore, tokenStore } from "./store.ts";
import { chooseAuthMethod, expiry, isTokenEndpointError, type TokenResult, tokenRequest } from "./token-endpoint.ts";
import { checkOAuthUrl, systemResolver, urlPolicy } from "./url-safety.ts";
import { bearerChallenge, type Challenge, challengeScopes } from "./www-authenticate.ts";

export { isOAuthChallenge } from "./www-authenticate.ts";

export interface OAuthTarget {
  server: string;
  serverUrl: string;
  settings: OAuthSettings | null;
  privileged: boolean;
  persist: boolean;
  tokenSecret: string | null;
}

/** What the engine asks before an authorization URL is shown or opened (mcp.md §11.4). */
export interface OAuthApprovalAsk {
  kind: "mcp_oauth";
  server: string;
  authorization_server: string;
  /** Where the browser is sent, when known (it may differ from the issuer's origin). */
  authorization_endpoint?: string;
  scopes: string[];
  redirect: "loopback";
}

export interface OAuthHooks {
  approve(req: OAuthApprovalAsk): Promise<boolean>;
  openUrl(url: string): Promise<void>;
  headless: boolean;
  interactive: boolean;
  fetch?: typeof fetch;
  signal?: AbortSignal;
  /** Bound of each OAuth HTTP request (default 10 s); tests shorten it. */
  timeoutMs?: number;
}

export interface OAuthState {
  type: "oauth";
  state: "valid" | "expired" | "needs_auth";
  expires_at: string | null;
  warnings: string[];
}

/** Refresh when the token expires within this margin (mcp.md §11.2.2). */
const REFRESH_MARGIN_MS = 60_000;
const MAX_STEP_UPS = 2;

const union = (a: string[], b: string[]) => [...new Set([...a, ...b])];

export class OAuthSession {
  readonly #ctx: LemonContext;
  readonly #t: OAuthTarget;
  readonly #hooks: OAuthHooks;
  readonly #url: string;
  readonly #tokens: TokenStore;
  readonly #clients: ClientStore;
  #net: OAuthNet | null = null;
  #disc: { key: string; d: Discovery } | null = null;
  #lastSent: string | null = null;
  #scopes: string[] = [];
  #stepUps = 0;
  #inflight: Promise<OAuthTokenFile> | null = null;

  constructor(ctx: LemonContext, target: OAuthTarget, hooks: OAuthHooks) {
    this.#ctx = ctx;
    this.#t = target;
    this.#hooks = hooks;
    try {
      this.#url = canonicalServerUrl(target.serverUrl);
    } catch {
      this.#url = "";
    }
    const tokenSecret = target.tokenSecret ?? target.settings?.tokenSecret ?? null;
    this.#tokens = tokenStore(ctx, {
      serverUrl: this.#url,
      clientId: target.settings?.clientId ?? null,
      tokenSecret,
      persist: target.persist,
    });
    this.#clients = clientStore(ctx, target.persist);
  }

  async #network(): Promise<OAuthNet> {
    if (this.#url === "") throw fail("oauth URL refused: invalid URL");
    if (this.#net !== null) return this.#net;
    const allow = this.#t.privileged && this.#t.settings?.allowPrivateNetwork === true;
    this.#net = {
      policy: await urlPolicy(new URL(this.#url), allow, systemResolver),
      fetch: this.#hooks.fetch ?? fetch,
      timeoutMs: this.#hooks.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      ...(this.#hooks.signal ? { signal: this.#hooks.signal } : {}),
    };
    return this.#net;
  }

  async #discovery(ch: Challenge | null, answered401 = true): Promise<Discovery> {
    const key = ch?.params.resource_metadata ?? "";
    if (this.#disc !== null && (key === "" || this.#disc.key === key)) return this.#disc.d;
    const d = await discover(await this.#network(), this.#url, ch, answered401);
    this.#disc = { key, d };
    return d;
  }

  #expiresSoon(t: OAuthTokenFile): boolean {
    if (t.expires_at === null) return false;
    return Date.parse(t.expires_at) - REFRESH_MARGIN_MS <= this.#ctx.now().getTime();
  }

  #expired(t: OAuthTokenFile): boolean {
    return t.expires_at !== null && Date.parse(t.expires_at) <= this.#ctx.now().getTime();
  }

  #record(r: TokenResult, d: Discovery, clientId: string, prev: OAuthTokenFile | null, scopes: string[]) {
    const now = this.#ctx.now();
    const rec: OAuthTokenFile = {
      version: 1,
      server_url: this.#url,
      resource: d.resource,
      issuer: d.issuer,
      client_id: clientId,
      token_type: "Bearer",
      access_token: r.access_token,
      expires_at: expiry(now, r.expires_in),
      // A server that does not rotate keeps the old refresh token valid (RFC 6749 §6).
      refresh_token: r.refresh_token ?? prev?.refresh_token ?? null,
      scope: r.scope ?? (scopes.length > 0 ? scopes.join(" ") : (prev?.scope ?? null)),
      obtained_at: prev?.obtained_at ?? isoSeconds(now),
      updated_at: isoSeconds(now),
    };
    return rec;
  }

  /** The secret and method of the client a stored token belongs to. */
  async #credentials(clientId: string, d: Discovery) {
    const s = this.#t.settings;
    if (s?.clientId === clientId) {
      const method = chooseAuthMethod(
        s.clientSecret !== null,
        s.tokenAuthMethod,
        null,
        d.as.token_endpoint_auth_methods_supported,
      );
      return { dynamic: false, creds: { clientId, clientSecret: s.clientSecret, method } };
    }
    const reg = await this.#clients.forIssuer(d.issuer).read();
    const secret = reg?.client_id === clientId ? (reg.client_secret ?? null) : null;
    const registered = reg?.client_id === clientId ? (reg.token_endpoint_auth_method ?? null) : null;
    const method = chooseAuthMethod(secret !== null, null, registered, d.as.token_endpoint_auth_methods_supported);
    return { dynamic: true, creds: { clientId, clientSecret: secret, method } };
  }

  /** Refresh grant for `cur` (lock held). Null when the grant is gone (tokens deleted). */
  async #refresh(cur: OAuthTokenFile, d: Discovery): Promise<OAuthTokenFile | null> {
    if (cur.refresh_token === null || d.as.token_endpoint === null) return null;
    // A token is refreshed only by the authorization server that issued it.
    if (!sameIssuer(cur.issuer, d.issuer)) return null;
    const { dynamic, creds } = await this.#credentials(cur.client_id, d);
    try {
      const r = await tokenRequest(await this.#network(), d.as.token_endpoint, creds, {
        grant_type: "refresh_token",
        refresh_token: cur.refresh_token,
        resource: d.resource,
      });
      const next = this.#record(r, d, cur.client_id, cur, []);
      await this.#tokens.write(next);
      return next;
    } catch (err) {
      if (!isTokenEndpointError(err)) throw err;
      if (err.oauthError === "invalid_grant" || err.oauthError === "invalid_client") await this.#tokens.remove();
      if (err.oauthError === "invalid_client" && dynamic) await this.#clients.forIssuer(d.issuer).remove();
      if (err.oauthError === "invalid_grant" || err.oauthError === "invalid_client") return null;
      throw err;
    }
  }

  async #clientCredentials(d: Discovery, scopes: string[], prev: OAuthTokenFile | null) {
    const s = this.#t.settings!;
    if (s.clientId === null) throw fail("oauth.client_id must be a non-empty string");
    if (s.clientSecret === null) throw fail("oauth.client_secret must be a non-empty string");
    if (d.as.token_endpoint === null) throw fail("authorization server metadata incomplete");
    const method = chooseAuthMethod(true, s.tokenAuthMethod, null, d.as.token_endpoint_auth_methods_supported);
    const params: Record<string, string> = { grant_type: "client_credentials", resource: d.resource };
    if (scopes.length > 0) params.scope = scopes.join(" ");
    const r = await tokenRequest(
      await this.#network(),
      d.as.token_endpoint,
      {
        clientId: s.clientId,
        clientSecret: s.clientSecret,
        method,
      },
      params,
    );
    const next = this.#record(r, d, s.clientId, prev?.client_id === s.clientId ? prev : null, scopes);
    await this.#tokens.write(next);
    return next;
  }

  #scopesFor(ch: Challenge | null, d: Discovery): string[] {
    const fromChallenge = challengeScopes(ch);
    if (fromChallenge !== null) return fromChallenge;
    const configured = this.#t.settings?.scopes ?? [];
    if (configured.length > 0) return configured;
    return d.scopesSupported ?? [];
  }

  async authorization(): Promise<string | null> {
    if (this.#url === "") return null;
    let t = await this.#tokens.read();
    if (t === null) return null;
    if (this.#expiresSoon(t)) {
      if (t.refresh_token !== null) {
        const stale = t;
        try {
          t = await this.#tokens.withLock(async () => {
            const cur = await this.#tokens.read();
            if (cur === null || (cur.access_token !== stale.access_token && !this.#expiresSoon(cur))) return cur;
            return this.#refresh(cur, await this.#discovery(null));
          });
        } catch (err) {
          // Still valid for a moment: use it; the next request tries again.
          if (this.#expired(stale)) throw err;
          t = stale;
        }
        if (t === null) return null;
      } else if (this.#expired(t)) return null;
    }
    this.#lastSent = t.access_token;
    return `Bearer ${t.access_token}`;
  }

  /** Refresh, then client credentials, under the lock; null when only an interactive flow is left. */
  async #acquireQuietly(d: Discovery, scopes: string[], force: boolean): Promise<OAuthTokenFile | null> {
    const rejected = this.#lastSent;
    return this.#tokens.withLock(async () => {
      const cur = await this.#tokens.read();
      // Another process (or request) already replaced the token the server refused.
      if (!force && cur !== null && cur.access_token !== rejected && !this.#expired(cur)) return cur;
      if (!force && cur !== null && cur.refresh_token !== null) {
        const next = await this.#refresh(cur, d);
        if (next !== null) return next;
      }
      if (this.#t.settings?.flow === "client_credentials") return this.#clientCredentials(d, scopes, cur);
      // The server refused it and nothing can renew it: status must say needs_auth, not valid.
      if (!force && cur !== null && cur.access_token === rejected) await this.#tokens.remove();
      return null;
    });
  }

  async #interactive(d: Discovery, scopes: string[]): Promise<OAuthTokenFile> {
    if (!this.#hooks.interactive) throw fail("authorization required");
    const s = this.#t.settings;
    const skipApproval = this.#t.privileged && s?.authorizationApproval === false;
    // The browser is sent there: the same URL rules as every other OAuth URL, checked before the
    // user is asked (a file:, smb: or custom-scheme URL must never reach the platform opener).
    const endpoint =
      d.as.authorization_endpoint === null
        ? null
        : await checkOAuthUrl(d.as.authorization_endpoint, (await this.#network()).policy);
    if (!skipApproval) {
      const ok = await this.#hooks.approve({
        kind: "mcp_oauth",
        server: this.#t.server,
        authorization_server: new URL(d.issuer).origin,
        ...(endpoint !== null ? { authorization_endpoint: endpoint.origin } : {}),
        scopes,
        redirect: "loopback",
      });
      if (!ok) throw notApproved();
    }
    const out = await runPkce(
      {
        server: this.#t.server,
        net: await this.#network(),
        settings: s,
        clients: this.#clients,
        headless: this.#hooks.headless,
        openUrl: (u) => this.#hooks.openUrl(u),
        now: () => this.#ctx.now(),
      },
      d,
      scopes,
    );
    return this.#tokens.withLock(async () => {
      const next = this.#record(out.result, d, out.clientId, null, scopes);
      await this.#tokens.write(next);
      return next;
    });
  }

  async #acquire(ch: Challenge | null, extraScopes: string[] | null, force: boolean): Promise<OAuthTokenFile> {
    const d = await this.#discovery(ch);
    const scopes = extraScopes === null ? this.#scopesFor(ch, d) : union(this.#scopes, extraScopes);
    this.#scopes = scopes;
    const quiet = await this.#acquireQuietly(d, scopes, force);
    return quiet ?? this.#interactive(d, scopes);
  }

  async onUnauthorized(wwwAuthenticate: string | null): Promise<void> {
    // Concurrent 401s of one connection share one acquisition (one approval, one browser tab).
    this.#inflight ??= this.#guard(() => this.#acquire(bearerChallenge(wwwAuthenticate), null, false)).finally(() => {
      this.#inflight = null;
    });
    await this.#inflight;
  }

  async onInsufficientScope(wwwAuthenticate: string): Promise<void> {
    if (++this.#stepUps > MAX_STEP_UPS) throw fail("authorization failed");
    const ch = bearerChallenge(wwwAuthenticate);
    const wanted = challengeScopes(ch) ?? [];
    const cur = await this.#tokens.read();
    const have = cur?.scope ? cur.scope.split(" ").filter((x) => x !== "") : [];
    this.#scopes = union(this.#scopes, have);
    await this.#guard(() => this.#acquire(ch, wanted, true));
  }

  async login(): Promise<{ expires_at: string | null; scopes: string[] }> {
    const t = await this.#guard(async () => {
      const probe = await this.#probe();
      const ch = bearerChallenge(probe.header);
      const d = await this.#discovery(ch, probe.status === 401);
      const scopes = this.#scopesFor(ch, d);
      this.#scopes = scopes;
      if (this.#t.settings?.flow === "client_credentials")
        return this.#tokens.withLock(async () => this.#clientCredentials(d, scopes, await this.#tokens.read()));
      return this.#interactive(d, scopes);
    });
    return { expires_at: t.expires_at, scopes: t.scope ? t.scope.split(" ").filter((x) => x !== "") : [] };
  }

  /** One unauthenticated request to the server for its challenge (login without a prior 401). */
  async #probe(): Promise<{ status: number; header: string | null }> {
    const net = await this.#network();
    try {
      const res = await net.fetch(this.#url, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 0,
          method: "initialize",
          params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "lemon", version: "0" } },
        }),
        redirect: "manual",
        signal: AbortSignal.timeout(net.timeoutMs),
      });
      await res.body?.cancel().catch(() => {});
      return { status: res.status, header: res.status === 401 ? res.headers.get("www-authenticate") : null };
    } catch {
      return { status: 0, header: null };
    }
  }

  /** What was deleted: the tokens, and (asked for) the issuer's dynamic registration. */
  async logout(registration: boolean): Promise<{ tokens: boolean; registration: boolean }> {
    const cur = await this.#tokens.read();
    const tokens = await this.#tokens.remove();
    if (!registration) return { tokens, registration: false };
    const known = cur?.issuer ?? this.#disc?.d.issuer ?? null;
    const issuer = known ?? (await this.#discovery(null, false).catch(() => null))?.issuer ?? null;
    return { tokens, registration: issuer !== null && (await this.#clients.forIssuer(issuer).remove()) };
  }

  /** `warnings`: what the store met (a corrupt file set aside, §11.6 "diagnostic"), for status. */
  async state(): Promise<OAuthState> {
    const t = this.#url === "" ? null : await this.#tokens.read();
    const warnings = [...this.#tokens.warnings];
    if (t === null) return { type: "oauth", state: "needs_auth", expires_at: null, warnings };
    return { type: "oauth", state: this.#expired(t) ? "expired" : "valid", expires_at: t.expires_at, warnings };
  }

  /** Any failure is a LemonError with a fixed message; nothing a server said is kept. */
  async #guard<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if (LemonError.is(err)) throw err;
      throw fail("authorization failed");
    }
  }
}
