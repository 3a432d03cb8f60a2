/**
 * @module mcp/oauth/discovery
 * Finds the authorization server of an MCP server (mcp.md §11.3): protected-resource metadata
 * (RFC 9728) from the challenge's `resource_metadata`, else path-aware then root well-known URLs;
 * then the first authorization server's metadata (RFC 8414, with the OpenID Connect fallbacks).
 * A metadata `resource` must be a same-origin path prefix of the server URL and an `issuer` must
 * equal the issuer asked for: a document that names another resource or issuer is someone else's.
 */
import { fail, type OAuthNet, oauthRequest, readJsonObject, str, strList } from "./net.ts";
import type { Challenge } from "./www-authenticate.ts";

/**
 * The `resource` of every authorization and token request (mcp.md §11.2.6): lowercase scheme and
 * host (the URL parser does that), no fragment, no trailing slash unless it is the whole path.
 */
export function canonicalServerUrl(raw: string): string {
  const u = new URL(raw);
  const path = u.pathname === "/" ? "/" : u.pathname.replace(/\/$/, "");
  return `${u.origin}${path}${u.search}`;
}

/** Issuers compare equal after dropping one trailing slash (mcp.md §11.3). */
export const sameIssuer = (a: string, b: string) => a.replace(/\/$/, "") === b.replace(/\/$/, "");

export interface AuthServerMetadata {
  issuer: string;
  authorization_endpoint: string | null;
  token_endpoint: string | null;
  registration_endpoint: string | null;
  code_challenge_methods_supported: string[] | null;
  token_endpoint_auth_methods_supported: string[] | null;
  scopes_supported: string[] | null;
  authorization_response_iss_parameter_supported: boolean;
  client_id_metadata_document_supported: boolean;
}

export interface Discovery {
  /** Canonical server URL, the `resource` parameter. */
  resource: string;
  issuer: string;
  as: AuthServerMetadata;
  /** PRM `scopes_supported`, the last choice of scopes (mcp.md §11.2.6). */
  scopesSupported: string[] | null;
  /** True when no protected-resource metadata was usable (a 2025-03-26 server). */
  legacy: boolean;
}

function pathPrefix(resource: URL, server: URL): boolean {
  if (resource.origin !== server.origin) return false;
  const r = resource.pathname.replace(/\/$/, "");
  const s = server.pathname.replace(/\/$/, "");
  return r === "" || s === r || s.startsWith(`${r}/`);
}

async function getJson(net: OAuthNet, label: string, url: string | URL) {
  const res = await oauthRequest(net, label, url);
  if (res.status !== 200) {
    await res.body?.cancel().catch(() => {});
    return null;
  }
  return readJsonObject(res);
}

/** The protected-resource metadata document and whether one was found at all. */
async function findResourceMetadata(
  net: OAuthNet,
  server: URL,
  challenge: Challenge | null,
): Promise<Record<string, unknown> | null> {
  const candidates: string[] = [];
  const fromChallenge = challenge?.params.resource_metadata;
  if (fromChallenge) candidates.push(new URL(fromChallenge, server).href);
  const path = server.pathname.replace(/\/$/, "");
  if (path !== "") candidates.push(`${server.origin}/.well-known/oauth-protected-resource${path}`);
  candidates.push(`${server.origin}/.well-known/oauth-protected-resource`);
  for (const url of [...new Set(candidates)]) {
    const doc = await getJson(net, "protected resource metadata", url);
    if (doc === null) continue;
    const resource = str(doc, "resource");
    let ok = false;
    try {
      ok = resource !== null && pathPrefix(new URL(resource), server);
    } catch {
      ok = false;
    }
    if (!ok) throw fail("protected resource metadata resource mismatch");
    return doc;
  }
  return null;
}

/** RFC 8414 §3.1 and OpenID Connect Discovery locations, in the order of mcp.md §11.3. */
export function metadataUrls(issuer: string): string[] {
  const u = new URL(issuer);
  const path = u.pathname.replace(/\/$/, "");
  if (path === "")
    return [`${u.origin}/.well-known/oauth-authorization-server`, `${u.origin}/.well-known/openid-configuration`];
  return [
    `${u.origin}/.well-known/oauth-authorization-server${path}`,
    `${u.origin}/.well-known/openid-configuration${path}`,
    `${u.origin}${path}/.well-known/openid-configuration`,
  ];
}

function asMetadata(doc: Record<string, unknown>, issuer: string): AuthServerMetadata {
  return {
    issuer,
    authorization_endpoint: str(doc, "authorization_endpoint"),
    token_endpoint: str(doc, "token_endpoint"),
    registration_endpoint: str(doc, "registration_endpoint"),
    code_challenge_methods_supported: strList(doc, "code_challenge_methods_supported"),
    token_endpoint_auth_methods_supported: strList(doc, "token_endpoint_auth_methods_supported"),
    scopes_supported: strList(doc, "scopes_supported"),
    authorization_response_iss_parameter_supported: doc.authorization_response_iss_parameter_supported === true,
    client_id_metadata_document_supported: doc.client_id_metadata_document_supported === true,
  };
}

async function findAuthServerMetadata(net: OAuthNet, issuer: string): Promise<AuthServerMetadata | null> {
  for (const url of metadataUrls(issuer)) {
    const doc = await getJson(net, "authorization server metadata", url);
    if (doc === null) continue;
    const got = str(doc, "issuer");
    if (got === null || !sameIssuer(got, issuer)) throw fail("authorization server metadata issuer mismatch");
    return asMetadata(doc, issuer);
  }
  return null;
}

/**
 * Discovery for `serverUrl` (already canonical) after a challenge (or none, for login). The
 * 2025-03-26 default endpoints are assumed only for a server that answered 401 (`answered401`).
 */
export async function discover(
  net: OAuthNet,
  serverUrl: string,
  challenge: Challenge | null,
  answered401 = true,
): Promise<Discovery> {
  const server = new URL(serverUrl);
  const prm = await findResourceMetadata(net, server, challenge);
  const servers = strList(prm, "authorization_servers") ?? [];
  // Without usable metadata the server's own origin is the issuer (2025-03-26 servers).
  const issuer = prm !== null && servers[0] !== undefined ? servers[0] : server.origin;
  try {
    new URL(issuer);
  } catch {
    throw fail("oauth URL refused: invalid URL");
  }
  const found = await findAuthServerMetadata(net, issuer);
  let as = found;
  if (as === null) {
    if ((prm !== null && servers[0] !== undefined) || !answered401)
      throw fail("authorization server metadata not found");
    // 2025-03-26 §2.3.3: the default endpoints at the server's origin; that revision requires S256.
    as = {
      ...asMetadata({}, issuer),
      authorization_endpoint: `${server.origin}/authorize`,
      token_endpoint: `${server.origin}/token`,
      registration_endpoint: `${server.origin}/register`,
      code_challenge_methods_supported: ["S256"],
    };
  }
  return { resource: serverUrl, issuer, as, scopesSupported: strList(prm, "scopes_supported"), legacy: prm === null };
}
