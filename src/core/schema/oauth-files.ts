/**
 * @module schema/oauth-files
 * The files under `A/secrets/mcp-oauth/` (mcp.md §11.6): one token file per server entry and
 * one dynamic client registration per authorization server issuer. Unknown keys survive so a
 * newer lemon's additions are not lost when an older one refreshes a token.
 */
import { Type, type Static } from "@sinclair/typebox";

const NullableString = Type.Union([Type.String(), Type.Null()]);

export const OAuthTokenFile = Type.Object(
  {
    version: Type.Literal(1),
    /** The canonical MCP server URL the token was obtained for; a token is used by that URL only. */
    server_url: Type.String({ minLength: 1 }),
    resource: Type.String({ minLength: 1 }),
    issuer: Type.String({ minLength: 1 }),
    client_id: Type.String({ minLength: 1 }),
    token_type: Type.String({ minLength: 1 }),
    access_token: Type.String({ minLength: 1 }),
    expires_at: NullableString,
    refresh_token: NullableString,
    scope: NullableString,
    obtained_at: Type.String(),
    updated_at: Type.String(),
  },
  { additionalProperties: true },
);
export type OAuthTokenFile = Static<typeof OAuthTokenFile>;

export const OAuthClientFile = Type.Object(
  {
    version: Type.Literal(1),
    issuer: Type.String({ minLength: 1 }),
    client_id: Type.String({ minLength: 1 }),
    client_secret: Type.Optional(Type.String({ minLength: 1 })),
    /** What the authorization server answered, so a confidential registration authenticates as agreed. */
    token_endpoint_auth_method: Type.Optional(Type.String()),
    redirect_uris: Type.Array(Type.String()),
    registered_at: Type.String(),
  },
  { additionalProperties: true },
);
export type OAuthClientFile = Static<typeof OAuthClientFile>;
