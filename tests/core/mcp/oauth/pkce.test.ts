// Authorization code + PKCE (mcp.md §11.4) and DCR (§11.2.5) against the fixture AS: headless
// and openUrl delivery, approval first, S256, state/iss checks, scope selection, step-up, and
// re-login after logout (issue 14 item 3): the registration's port reused, a busy port or a
// rejected redirect URI re-registers and replaces the stored registration.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { startListener } from "../../../../src/core/mcp/oauth/loopback.ts";
import { type OAuthFixture, startOAuthFixture } from "../../../support/oauth-as.ts";
import { authed, call, env, session } from "./helpers.ts";

let as: OAuthFixture;
beforeAll(async () => {
  as = await startOAuthFixture();
});
afterAll(() => as.stop());
beforeEach(() => as.reset());

const authorizes = () => as.seen.filter((r) => r.path.endsWith("/authorize"));
const registrations = () => as.seen.filter((r) => r.path.endsWith("/register"));
const clientsDir = (e: ReturnType<typeof env>) => join(e.ctx.agentDir, "secrets", "mcp-oauth", "clients");
const storedRegistration = (e: ReturnType<typeof env>) => {
  const [f] = readdirSync(clientsDir(e));
  return JSON.parse(readFileSync(join(clientsDir(e), f!), "utf8"));
};

describe("PKCE + DCR", () => {
  test("unconfigured server: approval, DCR, S256, resource, state; token usable", async () => {
    const e = env();
    const s = session(e, as, null);
    expect((await authed(s, as)).status).toBe(200);
    expect(e.approvals).toEqual([
      {
        kind: "mcp_oauth",
        server: "demo",
        authorization_server: as.origin,
        authorization_endpoint: as.origin,
        scopes: ["mcp:tools"],
        redirect: "loopback",
      },
    ]);
    const reg = JSON.parse(registrations()[0]!.body);
    expect(reg).toMatchObject({
      client_name: "lemon",
      grant_types: ["authorization_code", "refresh_token"],
      token_endpoint_auth_method: "none",
    });
    expect(reg.redirect_uris[0]).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    const q = authorizes()[0]!.query;
    expect(q.get("code_challenge_method")).toBe("S256");
    expect(q.get("resource")).toBe(as.mcpUrl);
    expect(q.get("scope")).toBe("mcp:tools");
    expect(q.get("redirect_uri")).toBe(reg.redirect_uris[0]);
    expect(Buffer.from(q.get("state")!, "base64url").length).toBe(32);
    const tokenReq = new URLSearchParams(as.grants("authorization_code")[0]!.body);
    expect(tokenReq.get("code_verifier")).toMatch(/^[A-Za-z0-9\-._~]{64}$/);
    expect(tokenReq.get("resource")).toBe(as.mcpUrl);
    const stored = storedRegistration(e);
    expect(stored).toMatchObject({ version: 1, issuer: as.issuer, redirect_uris: reg.redirect_uris });
    expect(stored.client_id).toStartWith("dcr-");
  });
  test("openUrl delivery (browser stand-in) instead of headless", async () => {
    const e = env();
    const s = session(e, as, null, {
      headless: false,
      openUrl: async (u) => {
        const r = await fetch(u, { redirect: "manual" });
        const page = await fetch(r.headers.get("location")!);
        e.opened.push(await page.text());
      },
    });
    expect((await authed(s, as)).status).toBe(200);
    expect(e.opened[0]).toContain("Authorization complete. You can close this window.");
  });
  test("approval denied: FORBIDDEN, nothing registered or opened", async () => {
    const e = env();
    const s = session(e, as, null, { approve: async () => false });
    const r = await call(s, as);
    const err = await s.onUnauthorized(r.headers.get("www-authenticate")).catch((x) => x);
    expect([err.code, err.message]).toEqual(["FORBIDDEN", "authorization not approved"]);
    expect(registrations().length).toBe(0);
    expect(authorizes().length).toBe(0);
  });
  test("authorization_approval:false is honoured only from a privileged source", async () => {
    const e = env();
    const deny = { approve: async () => false };
    const s = session(e, as, { authorization_approval: false }, deny, { privileged: true });
    expect((await authed(s, as)).status).toBe(200);
    const e2 = env();
    const s2 = session(e2, as, { authorization_approval: false }, deny);
    const err = await s2.login().catch((x) => x);
    expect(err.message).toBe("authorization not approved");
  });
  test("non-interactive: authorization required, no approval asked", async () => {
    const e = env();
    const s = session(e, as, null, { interactive: false });
    const r = await call(s, as);
    expect((await s.onUnauthorized(r.headers.get("www-authenticate")).catch((x) => x)).message).toBe(
      "authorization required",
    );
    expect(e.approvals).toEqual([]);
  });
  const failing: [string, () => void, string][] = [
    ["no S256", () => (as.opts.pkceMethods = ["plain"]), "authorization server does not support PKCE S256"],
    ["no methods listed", () => (as.opts.pkceMethods = null), "authorization server does not support PKCE S256"],
    [
      "no DCR, no client_id",
      () => (as.opts.dcr = false),
      "oauth.client_id is required (authorization server does not support dynamic registration)",
    ],
    ["state mismatch", () => (as.opts.badState = true), "authorization callback state mismatch"],
    ["iss mismatch", () => (as.opts.iss = "wrong"), "authorization callback issuer mismatch"],
    [
      "iss absent though advertised",
      () => {
        as.opts.iss = "absent";
        as.opts.advertiseIss = true;
      },
      "authorization callback issuer mismatch",
    ],
  ];
  for (const [name, setup, message] of failing) {
    test(name, async () => {
      setup();
      const e = env();
      const err = await session(e, as, null)
        .login()
        .catch((x) => x);
      expect([err.code, err.message]).toEqual(["UNAUTHORIZED", message]);
    });
  }
  test("iss absent and not advertised is accepted", async () => {
    as.opts.iss = "absent";
    expect((await session(env(), as, null).login()).scopes).toEqual(["mcp:tools"]);
  });
  test("pre-registered public client: no DCR", async () => {
    const e = env();
    await session(e, as, { client_id: "pre-client" }).login();
    expect(registrations().length).toBe(0);
    expect(authorizes()[0]!.query.get("client_id")).toBe("pre-client");
  });
  test("callback listener: other paths 404, binds 127.0.0.1 for a localhost redirect", async () => {
    const l = startListener("http://localhost:0/cb");
    try {
      expect(l.redirectUri).toBe("http://localhost:0/cb");
    } finally {
      l.close();
    }
    const l2 = startListener(null);
    try {
      const w = l2.wait({ state: "s1", issuer: "x", requireIss: false, timeoutMs: 2000 });
      expect((await fetch(`http://127.0.0.1:${l2.port}/other?state=s1&code=c`)).status).toBe(404);
      const ok = await fetch(`http://127.0.0.1:${l2.port}/callback?state=s1&code=c&x=<script>`);
      expect(await ok.text()).not.toContain("script");
      expect(await w).toBe("c");
    } finally {
      l2.close();
    }
  });
  test("a failing callback gets the fixed 400 page before the flow fails (issue #14 F4)", async () => {
    for (const query of ["state=wrong&code=c", "state=s1&error=access_denied&error_description=<b>x</b>"]) {
      const l = startListener(null);
      try {
        const w = l.wait({ state: "s1", issuer: "x", requireIss: false, timeoutMs: 2000 });
        let answered: Response | null = null;
        const res = fetch(`http://127.0.0.1:${l.port}/callback?${query}`).then((r) => (answered = r));
        const err = (await w.catch((x: Error) => x)) as Error;
        expect(err.message).toMatch(/^authorization (callback state mismatch|denied)$/);
        // The browser's answer left before the flow's failure was reported (the CLI exits then).
        expect(answered).not.toBeNull();
        const r = await res;
        expect(r.status).toBe(400);
        expect(await r.text()).toBe(
          "<!doctype html><title>lemon</title><p>Authorization failed. You can close this window.</p>\n",
        );
      } finally {
        l.close();
      }
    }
  });
});

describe("scopes", () => {
  test("challenge scope wins over configured and PRM", async () => {
    as.opts.challengeScope = "from:challenge";
    await authed(session(env(), as, { scopes: ["configured"] }), as);
    expect(authorizes()[0]!.query.get("scope")).toBe("from:challenge");
  });
  test("configured over PRM; none anywhere: no scope parameter", async () => {
    await authed(session(env(), as, { scope: "c1 c2" }), as);
    expect(authorizes()[0]!.query.get("scope")).toBe("c1 c2");
    as.reset();
    as.opts.scopesSupported = null;
    await authed(session(env(), as, null), as);
    expect(authorizes()[0]!.query.has("scope")).toBe(false);
  });
  test("step-up: re-authorizes with the union, at most twice per session", async () => {
    as.opts.requiredScope = "mcp:write";
    const e = env();
    const s = session(e, as, null);
    const r = await authed(s, as);
    expect(r.status).toBe(403);
    await s.onInsufficientScope(r.headers.get("www-authenticate")!);
    expect((await call(s, as)).status).toBe(200);
    expect(authorizes()[1]!.query.get("scope")).toBe("mcp:tools mcp:write");
    await s.onInsufficientScope(r.headers.get("www-authenticate")!);
    const err = await s.onInsufficientScope(r.headers.get("www-authenticate")!).catch((x) => x);
    expect(err.message).toBe("authorization failed");
    expect(authorizes().length).toBe(3);
  });
});

describe("re-login after logout (issue 14 item 3)", () => {
  test("the registration is kept and its port reused; --registration deletes it", async () => {
    const e = env();
    const s = session(e, as, null);
    await s.login();
    const reg = storedRegistration(e);
    expect(await s.logout(false)).toEqual({ tokens: true, registration: false });
    expect(storedRegistration(e)).toEqual(reg);
    await session(e, as, null).login();
    expect(registrations().length).toBe(1);
    expect(authorizes()[1]!.query.get("redirect_uri")).toBe(reg.redirect_uris[0]);
    expect(authorizes()[1]!.query.get("client_id")).toBe(reg.client_id);
    expect(await session(e, as, null).logout(true)).toEqual({ tokens: true, registration: true });
    expect(readdirSync(clientsDir(e))).toEqual([]);
  });
  test("recorded port busy: registers again and replaces the registration", async () => {
    const e = env();
    await session(e, as, null).login();
    const reg = storedRegistration(e);
    const port = Number(new URL(reg.redirect_uris[0]).port);
    const squatter = Bun.serve({ hostname: "127.0.0.1", port, fetch: () => new Response("squat") });
    try {
      await session(e, as, null).login();
    } finally {
      squatter.stop(true);
    }
    const now = storedRegistration(e);
    expect(registrations().length).toBe(2);
    expect(now.client_id).not.toBe(reg.client_id);
    expect(now.redirect_uris[0]).not.toBe(reg.redirect_uris[0]);
    expect(readdirSync(clientsDir(e)).length).toBe(1);
  });
  test("the AS rejects the recorded redirect URI at authorize: registers again", async () => {
    const e = env();
    await session(e, as, null).login();
    const reg = storedRegistration(e);
    // The AS forgot the redirect URI (e.g. its registration was edited).
    as.registered.get(reg.client_id)!.redirectUris = ["http://127.0.0.1:1/elsewhere"];
    await session(e, as, null).login();
    expect(registrations().length).toBe(2);
    expect(storedRegistration(e).client_id).not.toBe(reg.client_id);
  });
  test("the AS rejects the redirect URI at the token endpoint: registers again", async () => {
    const e = env();
    await session(e, as, null).login();
    const reg = storedRegistration(e);
    let once = true;
    as.opts.tokenHook = (f) => {
      if (f.get("grant_type") !== "authorization_code" || !once) return undefined;
      once = false;
      return Response.json({ error: "invalid_request", error_description: "bad redirect_uri" }, { status: 400 });
    };
    await session(e, as, null).login();
    expect(registrations().length).toBe(2);
    expect(storedRegistration(e).client_id).not.toBe(reg.client_id);
  });
  test("invalid_client on refresh deletes tokens and the registration", async () => {
    const e = env();
    const s = session(e, as, null, { interactive: false });
    await session(e, as, null).login();
    as.registered.clear();
    expect(await s.authorization()).toStartWith("Bearer ");
    const r = await fetch(as.mcpUrl, { method: "POST" });
    const err = await s.onUnauthorized(r.headers.get("www-authenticate")).catch((x) => x);
    expect(err.message).toBe("authorization required");
    expect(readdirSync(clientsDir(e))).toEqual([]);
    expect((await s.state()).state).toBe("needs_auth");
  });
});

describe("a refused token that nothing can renew", () => {
  test("is deleted so status says needs_auth (no refresh token, PKCE flow, non-interactive)", async () => {
    as.opts.refreshTokens = false;
    const e = env();
    await session(e, as, null).login();
    const s = session(e, as, null, { interactive: false });
    expect(await s.authorization()).toStartWith("Bearer ");
    const r = await fetch(as.mcpUrl, { method: "POST" });
    const err = await s.onUnauthorized(r.headers.get("www-authenticate")).catch((x) => x);
    expect(err.message).toBe("authorization required");
    expect((await s.state()).state).toBe("needs_auth");
    expect(readdirSync(clientsDir(e)).length).toBe(1);
  });
});

test("nobody completes the authorization: authorization timed out after authorization_timeout_ms", async () => {
  const e = env();
  const s = session(e, as, { authorization_timeout_ms: 200 }, { headless: false });
  const err = await s.login().catch((x) => x);
  expect([err.code, err.message]).toEqual(["UNAUTHORIZED", "authorization timed out"]);
  expect(e.opened.length).toBe(1);
});

test("login to a server that asks for no authorization and has no metadata fails without guessing endpoints", async () => {
  const open = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: (r) =>
      new URL(r.url).pathname === "/mcp" ? Response.json({ ok: true }) : new Response("", { status: 404 }),
  });
  try {
    const e = env();
    const s = session(e, as, null, {}, { serverUrl: `http://127.0.0.1:${open.port}/mcp` });
    const err = await s.login().catch((x) => x);
    expect(err.message).toBe("authorization server metadata not found");
    expect(e.approvals).toEqual([]);
  } finally {
    open.stop(true);
  }
});

test("concurrent 401s of one session share one flow: one approval, one authorization", async () => {
  const e = env();
  const s = session(e, as, null);
  const h = (await call(s, as)).headers.get("www-authenticate");
  await Promise.all([s.onUnauthorized(h), s.onUnauthorized(h), s.onUnauthorized(h)]);
  expect(e.approvals.length).toBe(1);
  expect(authorizes().length).toBe(1);
  expect((await call(s, as)).status).toBe(200);
});
