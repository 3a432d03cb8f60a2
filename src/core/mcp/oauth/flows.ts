/**
 * @module mcp/oauth/flows
 * The authorization code + PKCE flow (mcp.md §11.4) with the client it runs as: a configured
 * client_id, else the issuer's stored dynamic registration, else a new one. The listener binds
 * the registration's recorded port when it is free; when that port is busy, or the server
 * rejects the redirect URI (at the authorization or the token endpoint), lemon registers again
 * and replaces the stored registration (issue 14 item 3). So does a server that forgot the
 * client (`invalid_client`). One such retry per flow.
 */
import { LemonError } from "../../errors.ts";
import type { OAuthClientFile } from "../../schema/oauth-files.ts";
import type { Discovery } from "./discovery.ts";
import { type Listener, PortBusy, startListener } from "./loopback.ts";
import { fail, type OAuthNet } from "./net.ts";
import {
  AuthorizeRedirectRejected,
  AuthorizeRefused,
  authorizationUrl,
  challengeOf,
  followHeadless,
  newState,
  newVerifier,
} from "./pkce.ts";
import { registerClient } from "./registration.ts";
import type { OAuthSettings } from "./settings.ts";
import type { ClientStore } from "./store.ts";
import { chooseAuthMethod, isTokenEndpointError, type TokenResult, tokenRequest } from "./token-endpoint.ts";

export interface PkceEnv {
  /** The entry's name, for the hints. */
  server: string;
  net: OAuthNet;
  settings: OAuthSettings | null;
  clients: ClientStore;
  headless: boolean;
  openUrl(url: string): Promise<void>;
  now(): Date;
}

export interface PkceOutcome {
  result: TokenResult;
  clientId: string;
}

interface FlowClient {
  clientId: string;
  secret: string | null;
  registeredMethod: string | null;
  dynamic: boolean;
  /** A registration read from the store (the server may have forgotten it), not made in this flow. */
  stored: boolean;
  listener: Listener;
}

function listen(uri: string | null): Listener | null {
  try {
    return startListener(uri);
  } catch (err) {
    if (err instanceof PortBusy) return null;
    throw err;
  }
}

/** The client and a bound listener; registers (again) when needed. */
async function flowClient(env: PkceEnv, d: Discovery, scopes: string[], fresh: boolean): Promise<FlowClient> {
  const s = env.settings;
  if (s?.clientId) {
    const listener = listen(s.redirectUri);
    if (listener === null) throw fail("oauth redirect port is busy");
    return {
      clientId: s.clientId,
      secret: s.clientSecret,
      registeredMethod: null,
      dynamic: false,
      stored: false,
      listener,
    };
  }
  const slot = env.clients.forIssuer(d.issuer);
  let reg: OAuthClientFile | null = fresh ? null : await slot.read();
  let listener: Listener | null = null;
  if (reg !== null) {
    const recorded = reg.redirect_uris[0] ?? null;
    listener = recorded !== null && new URL(recorded).port !== "" ? listen(recorded) : null;
    if (listener === null) reg = null;
  }
  const stored = reg !== null;
  if (reg === null) {
    if (d.as.registration_endpoint === null)
      throw fail("oauth.client_id is required (authorization server does not support dynamic registration)");
    listener = listen(s?.redirectUri ?? null) ?? listen(null);
    if (listener === null) throw fail("oauth redirect port is busy");
    try {
      reg = await registerClient(
        env.net,
        d.as.registration_endpoint,
        d.issuer,
        listener.redirectUri,
        scopes,
        env.now(),
      );
      await slot.write(reg);
    } catch (err) {
      listener.close();
      throw err;
    }
  }
  return {
    clientId: reg.client_id,
    secret: reg.client_secret ?? null,
    registeredMethod: reg.token_endpoint_auth_method ?? null,
    dynamic: true,
    stored,
    listener: listener!,
  };
}

/** Runs the flow once approval was given; the registration is replaced at most once. */
export async function runPkce(env: PkceEnv, d: Discovery, scopes: string[]): Promise<PkceOutcome> {
  const methods = d.as.code_challenge_methods_supported;
  if (methods === null || !methods.includes("S256")) throw fail("authorization server does not support PKCE S256");
  if (d.as.authorization_endpoint === null || d.as.token_endpoint === null)
    throw fail("authorization server metadata incomplete");
  const timeoutMs = env.settings?.authorizationTimeoutMs ?? 300_000;
  for (let attempt = 0; ; attempt++) {
    const client = await flowClient(env, d, scopes, attempt > 0);
    const { listener } = client;
    const retry = async () => {
      if (!client.dynamic || attempt > 0) return false;
      await env.clients.forIssuer(d.issuer).remove();
      return true;
    };
    try {
      const verifier = newVerifier();
      const state = newState();
      const url = authorizationUrl({
        endpoint: d.as.authorization_endpoint,
        clientId: client.clientId,
        redirectUri: listener.redirectUri,
        challenge: challengeOf(verifier),
        state,
        scopes,
        resource: d.resource,
      });
      const waiting = listener.wait({
        state,
        issuer: d.issuer,
        requireIss: d.as.authorization_response_iss_parameter_supported,
        timeoutMs,
        ...(env.net.signal ? { signal: env.net.signal } : {}),
      });
      waiting.catch(() => {});
      try {
        if (env.headless) await followHeadless(env.net, url, listener.redirectUri);
        else await env.openUrl(url);
      } catch (err) {
        if (err instanceof AuthorizeRedirectRejected) {
          if (await retry()) continue;
          throw fail("authorization server rejected the redirect URI");
        }
        // An error page for a stored registration: the server forgot the client (a restart).
        if (err instanceof AuthorizeRefused) {
          if (client.stored && (await retry())) continue;
          throw fail("authorization server refused the authorization request");
        }
        throw err;
      }
      let code: string;
      try {
        code = await waiting;
      } catch (err) {
        // A browser shown the server's error page for a forgotten client leaves lemon waiting:
        // the only way out is a new registration, so say how.
        if (
          client.stored &&
          !env.headless &&
          LemonError.is(err) &&
          err.code === "UNAUTHORIZED" &&
          !/cancel/.test(err.message)
        )
          throw new LemonError(err.code, err.message, {
            ...(err.details ? { details: err.details } : {}),
            hint: `run 'lemon mcp logout ${env.server} --registration' and log in again`,
          });
        throw err;
      }
      const method = chooseAuthMethod(
        client.secret !== null,
        client.dynamic ? null : (env.settings?.tokenAuthMethod ?? null),
        client.registeredMethod,
        d.as.token_endpoint_auth_methods_supported,
      );
      try {
        const result = await tokenRequest(
          env.net,
          d.as.token_endpoint,
          { clientId: client.clientId, clientSecret: client.secret, method },
          {
            grant_type: "authorization_code",
            code,
            redirect_uri: listener.redirectUri,
            code_verifier: verifier,
            resource: d.resource,
          },
        );
        return { result, clientId: client.clientId };
      } catch (err) {
        if (isTokenEndpointError(err) && (err.redirectRejected || err.oauthError === "invalid_client")) {
          if (await retry()) continue;
          if (client.dynamic && err.oauthError === "invalid_client") await env.clients.forIssuer(d.issuer).remove();
        }
        throw err;
      }
    } finally {
      listener.close();
    }
  }
}

export const notApproved = () => new LemonError("FORBIDDEN", "authorization not approved");
