/**
 * @module mcp/oauth/registration
 * Dynamic client registration (RFC 7591, mcp.md §11.2.5): a public client named "lemon" with
 * the loopback redirect URI the listener is bound to, stored per issuer with that URI so a later
 * login listens on the same port (an authorization server that matches redirect URIs exactly
 * would refuse any other). Registrations outlive `logout`; only `--registration` removes them.
 */
import { isoSeconds } from "../../fsx/atomic.ts";
import type { OAuthClientFile } from "../../schema/oauth-files.ts";
import { fail, type OAuthNet, oauthRequest, readJsonObject, str } from "./net.ts";

export async function registerClient(
  net: OAuthNet,
  endpoint: string,
  issuer: string,
  redirectUri: string,
  scopes: string[],
  now: Date,
): Promise<OAuthClientFile> {
  const body: Record<string, unknown> = {
    client_name: "lemon",
    redirect_uris: [redirectUri],
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    token_endpoint_auth_method: "none",
  };
  if (scopes.length > 0) body.scope = scopes.join(" ");
  const res = await oauthRequest(net, "registration endpoint", endpoint, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const doc = await readJsonObject(res);
  const clientId = str(doc, "client_id");
  if ((res.status !== 200 && res.status !== 201) || clientId === null) throw fail("dynamic client registration failed");
  const secret = str(doc, "client_secret");
  const method = str(doc, "token_endpoint_auth_method");
  return {
    version: 1,
    issuer,
    client_id: clientId,
    ...(secret !== null ? { client_secret: secret } : {}),
    ...(method !== null ? { token_endpoint_auth_method: method } : {}),
    redirect_uris: [redirectUri],
    registered_at: isoSeconds(now),
  };
}
