// A configurable OAuth authorization server + protected resource on one 127.0.0.1 Bun.serve, for
// the engine's unit tests: PRM/AS-metadata variants, DCR, an auto-approving /authorize, a token
// endpoint with switchable failures, and a log of every request it saw. Mutate `as.opts` per test
// (call `as.reset()` first); the server is started once per test file.

export interface OAuthFixtureOptions {
  /** Where protected-resource metadata is served: path-aware, root, both or nowhere. */
  prm: "path" | "root" | "none";
  /** Put `resource_metadata` into the 401 challenge. */
  challengeMetadata: boolean;
  /** Path of the challenge's resource_metadata URL (default the path-aware one). */
  challengeMetadataPath: string | null;
  challengeScope: string | null;
  /** PRM `resource`; default the MCP URL. */
  prmResource: string | null;
  /** PRM `authorization_servers[0]`; default the issuer. */
  prmIssuer: string | null;
  scopesSupported: string[] | null;
  /** Issuer path ("" or e.g. "/tenant1"). */
  issuerPath: string;
  /** Where AS metadata is served. */
  metadataAt: "oauth" | "oidc" | "oidc-suffix" | "none";
  /** The `issuer` the document claims; default the real one. */
  claimedIssuer: string | null;
  pkceMethods: string[] | null;
  authMethods: string[] | null;
  dcr: boolean;
  /** What /register answers for the auth method (and whether it issues a secret). */
  dcrAuthMethod: "none" | "client_secret_basic" | "client_secret_post";
  /** Authorize refuses a redirect_uri not registered for the client (the SDK demo does). */
  exactRedirect: boolean;
  /** `iss` on the redirect. */
  iss: "correct" | "wrong" | "absent";
  advertiseIss: boolean;
  /** Tamper with the redirect's state. */
  badState: boolean;
  /** expires_in of issued tokens (seconds). */
  expiresIn: number;
  refreshTokens: boolean;
  /** A scope the MCP endpoint requires for POST (403 insufficient_scope without it). */
  requiredScope: string | null;
  /** Delay before the token endpoint answers, in ms. */
  tokenDelayMs: number;
  /** Overrides the token endpoint's answer (errors, odd token types, hangs). */
  tokenHook: ((form: URLSearchParams) => Response | Promise<Response> | undefined) | null;
  /** Pre-registered clients: id → secret (null for public). */
  clients: Record<string, string | null>;
}

export interface SeenRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: Record<string, string>;
  body: string;
}

export interface OAuthFixture {
  origin: string;
  mcpUrl: string;
  issuer: string;
  opts: OAuthFixtureOptions;
  seen: SeenRequest[];
  /** Registered clients (DCR and pre-registered). */
  registered: Map<string, { secret: string | null; redirectUris: string[] }>;
  grants(type: string): SeenRequest[];
  reset(): void;
  stop(): Promise<void>;
}

const defaults = (): OAuthFixtureOptions => ({
  prm: "path",
  challengeMetadata: true,
  challengeMetadataPath: null,
  challengeScope: null,
  prmResource: null,
  prmIssuer: null,
  scopesSupported: ["mcp:tools"],
  issuerPath: "",
  metadataAt: "oauth",
  claimedIssuer: null,
  pkceMethods: ["S256"],
  authMethods: ["client_secret_basic", "client_secret_post", "none"],
  dcr: true,
  dcrAuthMethod: "none",
  exactRedirect: true,
  iss: "correct",
  advertiseIss: false,
  badState: false,
  expiresIn: 3600,
  refreshTokens: true,
  requiredScope: null,
  tokenDelayMs: 0,
  tokenHook: null,
  clients: { "pre-client": null, "cc-client": "cc-secret-VALUE" },
});

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });

async function sha256url(s: string): Promise<string> {
  const d = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(s));
  return Buffer.from(d).toString("base64url");
}

export async function startOAuthFixture(): Promise<OAuthFixture> {
  const seen: SeenRequest[] = [];
  const registered = new Map<string, { secret: string | null; redirectUris: string[] }>();
  const codes = new Map<string, { client: string; challenge: string; redirect: string; scope: string }>();
  const access = new Map<string, { scope: string; exp: number }>();
  const refresh = new Map<string, { client: string; scope: string; used: boolean }>();
  let counter = 0;
  const fx = { opts: defaults() } as OAuthFixture;

  const issue = (client: string, scope: string) => {
    counter++;
    const at = `at-${counter}-SECRETACCESS`;
    access.set(at, { scope, exp: Date.now() + fx.opts.expiresIn * 1000 });
    const body: Record<string, unknown> = { access_token: at, token_type: "Bearer", expires_in: fx.opts.expiresIn };
    if (scope !== "") body.scope = scope;
    if (fx.opts.refreshTokens) {
      const rt = `rt-${counter}-SECRETREFRESH`;
      refresh.set(rt, { client, scope, used: false });
      body.refresh_token = rt;
    }
    return json(200, body);
  };

  const clientAuth = (req: SeenRequest, form: URLSearchParams): { id: string; secret: string | null } | null => {
    const h = req.headers.authorization;
    if (h?.startsWith("Basic ")) {
      const [id, secret] = Buffer.from(h.slice(6), "base64").toString().split(":");
      return { id: decodeURIComponent(id ?? ""), secret: decodeURIComponent(secret ?? "") };
    }
    const id = form.get("client_id");
    return id === null ? null : { id, secret: form.get("client_secret") };
  };

  const token = async (req: SeenRequest): Promise<Response> => {
    const form = new URLSearchParams(req.body);
    if (fx.opts.tokenDelayMs > 0) await Bun.sleep(fx.opts.tokenDelayMs);
    const hooked = fx.opts.tokenHook ? await fx.opts.tokenHook(form) : undefined;
    if (hooked) return hooked;
    const auth = clientAuth(req, form);
    const client = auth ? registered.get(auth.id) : undefined;
    if (!auth || !client || (client.secret !== null && client.secret !== auth.secret))
      return json(401, { error: "invalid_client", error_description: "client unknown SECRETDESC" });
    const grant = form.get("grant_type");
    if (grant === "client_credentials") return issue(auth.id, form.get("scope") ?? "");
    if (grant === "refresh_token") {
      const rt = refresh.get(form.get("refresh_token") ?? "");
      if (!rt || rt.used || rt.client !== auth.id) return json(400, { error: "invalid_grant" });
      rt.used = true;
      return issue(auth.id, rt.scope);
    }
    if (grant === "authorization_code") {
      const c = codes.get(form.get("code") ?? "");
      if (!c || c.client !== auth.id) return json(400, { error: "invalid_grant" });
      codes.delete(form.get("code") ?? "");
      if (c.redirect !== form.get("redirect_uri"))
        return json(400, { error: "invalid_request", error_description: "redirect_uri mismatch" });
      if ((await sha256url(form.get("code_verifier") ?? "")) !== c.challenge)
        return json(400, { error: "invalid_grant" });
      return issue(auth.id, c.scope);
    }
    return json(400, { error: "unsupported_grant_type" });
  };

  const authorize = (req: SeenRequest): Response => {
    const q = req.query;
    const client = registered.get(q.get("client_id") ?? "");
    const redirect = q.get("redirect_uri") ?? "";
    if (!client) return json(400, { error: "invalid_client" });
    if (fx.opts.exactRedirect && client.redirectUris.length > 0 && !client.redirectUris.includes(redirect))
      return json(400, { error: "invalid_request", error_description: "Unregistered redirect_uri" });
    const code = `code-${++counter}-SECRETCODE`;
    codes.set(code, {
      client: q.get("client_id") ?? "",
      challenge: q.get("code_challenge") ?? "",
      redirect,
      scope: q.get("scope") ?? "",
    });
    const to = new URL(redirect);
    to.searchParams.set("code", code);
    to.searchParams.set("state", fx.opts.badState ? "forged" : (q.get("state") ?? ""));
    if (fx.opts.iss !== "absent")
      to.searchParams.set("iss", fx.opts.iss === "wrong" ? "https://evil.example" : fx.issuer);
    return new Response(null, { status: 302, headers: { location: to.href } });
  };

  const mcp = (req: SeenRequest): Response => {
    const prmUrl = `${fx.origin}${fx.opts.challengeMetadataPath ?? "/.well-known/oauth-protected-resource/mcp"}`;
    const params = [];
    if (fx.opts.challengeScope) params.push(`scope="${fx.opts.challengeScope}"`);
    if (fx.opts.challengeMetadata) params.push(`resource_metadata="${prmUrl}"`);
    const h = req.headers.authorization ?? "";
    const t = h.startsWith("Bearer ") ? access.get(h.slice(7)) : undefined;
    if (!t || t.exp < Date.now())
      return json(401, { error: "invalid_token" }, { "www-authenticate": `Bearer ${params.join(", ")}`.trim() });
    const need = fx.opts.requiredScope;
    if (need && req.method === "POST" && !t.scope.split(" ").includes(need))
      return json(
        403,
        { error: "insufficient_scope" },
        { "www-authenticate": `Bearer error="insufficient_scope", scope="${need}", resource_metadata="${prmUrl}"` },
      );
    return json(200, { ok: true, scope: t.scope });
  };

  const metadata = () => {
    const o = fx.opts;
    const base = fx.issuer;
    const doc: Record<string, unknown> = {
      issuer: o.claimedIssuer ?? base,
      authorization_endpoint: `${base}/authorize`,
      token_endpoint: `${base}/token`,
      response_types_supported: ["code"],
    };
    if (o.dcr) doc.registration_endpoint = `${base}/register`;
    if (o.pkceMethods) doc.code_challenge_methods_supported = o.pkceMethods;
    if (o.authMethods) doc.token_endpoint_auth_methods_supported = o.authMethods;
    if (o.advertiseIss) doc.authorization_response_iss_parameter_supported = true;
    return json(200, doc);
  };

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const url = new URL(request.url);
      const headers: Record<string, string> = {};
      for (const [k, v] of request.headers) headers[k] = v;
      const req: SeenRequest = {
        method: request.method,
        path: url.pathname,
        query: url.searchParams,
        headers,
        body: await request.text(),
      };
      seen.push(req);
      const o = fx.opts;
      const p = url.pathname;
      const ip = o.issuerPath;
      if (p === "/mcp") return mcp(req);
      const prmDoc = () =>
        json(200, {
          resource: o.prmResource ?? fx.mcpUrl,
          authorization_servers: [o.prmIssuer ?? fx.issuer],
          ...(o.scopesSupported ? { scopes_supported: o.scopesSupported } : {}),
        });
      if (p === "/.well-known/oauth-protected-resource/mcp" && o.prm === "path") return prmDoc();
      if (p === "/.well-known/oauth-protected-resource" && o.prm === "root") return prmDoc();
      if (o.challengeMetadataPath !== null && p === o.challengeMetadataPath && o.prm !== "none") return prmDoc();
      if (p === `/.well-known/oauth-authorization-server${ip}` && o.metadataAt === "oauth") return metadata();
      if (p === `/.well-known/openid-configuration${ip}` && o.metadataAt === "oidc") return metadata();
      if (p === `${ip}/.well-known/openid-configuration` && o.metadataAt === "oidc-suffix") return metadata();
      if (p === `${ip}/authorize`) return authorize(req);
      if (p === `${ip}/token` && request.method === "POST") return token(req);
      if (p === `${ip}/register` && request.method === "POST" && o.dcr) {
        const body = JSON.parse(req.body) as { redirect_uris?: string[] };
        const id = `dcr-${++counter}`;
        const secret = o.dcrAuthMethod === "none" ? null : `dcr-secret-${counter}-SECRETCLIENT`;
        registered.set(id, { secret, redirectUris: body.redirect_uris ?? [] });
        return json(201, {
          client_id: id,
          ...(secret ? { client_secret: secret } : {}),
          token_endpoint_auth_method: o.dcrAuthMethod,
          redirect_uris: body.redirect_uris ?? [],
        });
      }
      return new Response("not found", { status: 404 });
    },
  });
  const origin = `http://127.0.0.1:${server.port}`;
  Object.assign(fx, {
    origin,
    mcpUrl: `${origin}/mcp`,
    seen,
    registered,
    grants: (type: string) =>
      seen.filter((r) => r.path.endsWith("/token") && new URLSearchParams(r.body).get("grant_type") === type),
    reset() {
      fx.opts = defaults();
      seen.length = 0;
      registered.clear();
      for (const [id, secret] of Object.entries(fx.opts.clients)) registered.set(id, { secret, redirectUris: [] });
    },
    stop: async () => server.stop(true),
  });
  Object.defineProperty(fx, "issuer", { get: () => `${origin}${fx.opts.issuerPath}` });
  fx.reset();
  return fx;
}
