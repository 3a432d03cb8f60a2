// parseOAuthSettings (mcp.md §11.1): defaults, the flow default from a configured secret,
// kebab-case aliases, the secret as literal, ${VAR}/${VAR:-default} or client_secret_env.
import { expect, test } from "bun:test";
import { parseOAuthSettings } from "../../../../src/core/mcp/oauth/settings.ts";

test("defaults", () => {
  expect(parseOAuthSettings({}, {})).toEqual({
    flow: "authorization_code_pkce",
    clientId: null,
    clientSecret: null,
    secretConfigured: false,
    scopes: [],
    tokenAuthMethod: null,
    redirectUri: null,
    authorizationTimeoutMs: 300_000,
    authorizationApproval: true,
    allowPrivateNetwork: false,
    tokenSecret: null,
  });
});

test("a configured secret defaults the flow to client credentials; pkce alias", () => {
  expect(parseOAuthSettings({ client_id: "a", client_secret: "s" }, {}).flow).toBe("client_credentials");
  expect(parseOAuthSettings({ client_id: "a", client_secret: "s", flow: "pkce" }, {}).flow).toBe(
    "authorization_code_pkce",
  );
});

test("secrets: literal, ${VAR}, ${VAR:-default}, client_secret_env, unset", () => {
  const env = { S: "from-env", EMPTY: "" };
  expect(parseOAuthSettings({ client_secret: "lit" }, env).clientSecret).toBe("lit");
  expect(parseOAuthSettings({ client_secret: "${S}" }, env).clientSecret).toBe("from-env");
  expect(parseOAuthSettings({ client_secret: "${NOPE:-dflt}" }, env).clientSecret).toBe("dflt");
  expect(parseOAuthSettings({ client_secret_env: "S" }, env).clientSecret).toBe("from-env");
  const unset = parseOAuthSettings({ client_secret: "${EMPTY}" }, env);
  expect([unset.clientSecret, unset.secretConfigured, unset.flow]).toEqual([null, true, "client_credentials"]);
  expect(parseOAuthSettings({ "client-secret-env": "NOPE" }, env).clientSecret).toBeNull();
});

test("kebab-case aliases and scope forms", () => {
  const s = parseOAuthSettings(
    {
      "client-id": "c",
      "token-auth-method": "client_secret_post",
      "redirect-uri": "http://127.0.0.1:7777/cb",
      "authorization-timeout-ms": 5000,
      "authorization-approval": false,
      "allow-private-network": true,
      "token-secret": "t",
      scopes: ["a", "b"],
    },
    {},
  );
  expect(s).toMatchObject({
    clientId: "c",
    tokenAuthMethod: "client_secret_post",
    redirectUri: "http://127.0.0.1:7777/cb",
    authorizationTimeoutMs: 5000,
    authorizationApproval: false,
    allowPrivateNetwork: true,
    tokenSecret: "t",
    scopes: ["a", "b"],
  });
  expect(parseOAuthSettings({ scope: " x  y ", scopes: ["z"] }, {}).scopes).toEqual(["x", "y"]);
});
