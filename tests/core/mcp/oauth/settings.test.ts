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

test("token ids are validated at the top level and in oauth (issue #14 F1); [::1] redirects refused (F10)", async () => {
  const { validateEntry } = await import("../../../../src/core/mcp/validate.ts");
  const base = { name: "x", type: "http", url: "https://mcp.example.com/mcp" };
  const msg = (e: Record<string, unknown>) => {
    const v = validateEntry({ ...base, ...e });
    return v.ok ? "ok" : v.message;
  };
  const nested = "oauth.token_secret must be a non-empty string of A-Z, a-z, 0-9, '.', '_', '-'";
  const top = "oauth_token_secret must be a non-empty string of A-Z, a-z, 0-9, '.', '_', '-'";
  for (const bad of ["../../../victim/settings", "..", ".", "", "a/b", "a\\b", "x\u0000", 5]) {
    expect(`${JSON.stringify(bad)} ${msg({ oauth: { token_secret: bad } })}`).toBe(`${JSON.stringify(bad)} ${nested}`);
    expect(`${JSON.stringify(bad)} ${msg({ oauth: { "token-secret": bad } })}`).toBe(
      `${JSON.stringify(bad)} ${nested}`,
    );
    expect(`${JSON.stringify(bad)} ${msg({ oauth_token_secret: bad })}`).toBe(`${JSON.stringify(bad)} ${top}`);
  }
  for (const good of ["my-token", "a.b_c", "...", ".x"]) {
    expect(msg({ oauth: { token_secret: good } })).toBe("ok");
    expect(msg({ oauth_token_secret: good })).toBe("ok");
  }
  const redirect = (u: string) => msg({ oauth: { redirect_uri: u } });
  expect(redirect("http://[::1]:45678/callback")).toBe("oauth.redirect_uri must be a loopback http URL");
  expect(redirect("http://127.0.0.1:45678/callback")).toBe("ok");
  expect(redirect("http://localhost:45678/callback")).toBe("ok");
});
