// Token acquisition and storage (mcp.md §11.2, §11.5, §11.6) against the fixture AS: client
// credentials (basic/post), resume, proactive refresh with rotation, invalid_grant/invalid_client,
// bad token responses, timeouts, corrupt files, the server_url check, persist:false, file modes.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tokenId } from "../../../../src/core/mcp/oauth/store.ts";
import { canonicalServerUrl } from "../../../../src/core/mcp/oauth/discovery.ts";
import { type OAuthFixture, startOAuthFixture } from "../../../support/oauth-as.ts";
import { authed, CC, env, session } from "./helpers.ts";

let as: OAuthFixture;
beforeAll(async () => {
  as = await startOAuthFixture();
});
afterAll(() => as.stop());
beforeEach(() => as.reset());

const tokenFile = (e: ReturnType<typeof env>, clientId: string | null = "cc-client") =>
  join(e.ctx.agentDir, "secrets", "mcp-oauth", `${tokenId(canonicalServerUrl(as.mcpUrl), clientId, null)}.json`);

describe("client credentials", () => {
  test("basic by default (first of basic/post listed); token stored 0600 in 0700 dirs; resumed", async () => {
    const e = env();
    const s = session(e, as, CC);
    expect((await authed(s, as)).status).toBe(200);
    const g = as.grants("client_credentials");
    expect(g.length).toBe(1);
    expect(g[0]!.headers.authorization).toStartWith("Basic ");
    expect(new URLSearchParams(g[0]!.body).get("resource")).toBe(as.mcpUrl);
    expect(new URLSearchParams(g[0]!.body).get("client_secret")).toBeNull();
    const f = tokenFile(e);
    expect(statSync(f).mode & 0o777).toBe(0o600);
    expect(statSync(join(e.ctx.agentDir, "secrets", "mcp-oauth")).mode & 0o777).toBe(0o700);
    expect(statSync(join(e.ctx.agentDir, "secrets")).mode & 0o777).toBe(0o700);
    const rec = JSON.parse(readFileSync(f, "utf8"));
    expect(Object.keys(rec).sort()).toEqual(
      [
        "version",
        "server_url",
        "resource",
        "issuer",
        "client_id",
        "token_type",
        "access_token",
        "expires_at",
        "refresh_token",
        "scope",
        "obtained_at",
        "updated_at",
      ].sort(),
    );
    expect(rec.server_url).toBe(as.mcpUrl);
    // A second session (another process) resumes from the file with no new grant.
    const s2 = session(e, as, CC);
    expect(await s2.authorization()).toBe(`Bearer ${rec.access_token}`);
    expect((await s2.state()).state).toBe("valid");
    expect(as.grants("client_credentials").length).toBe(1);
  });
  test("client_secret_post when configured; scopes configured are sent", async () => {
    const e = env();
    const s = session(e, as, { ...CC, token_auth_method: "client_secret_post", scopes: ["a", "b"] });
    as.opts.challengeScope = null;
    expect((await authed(s, as)).status).toBe(200);
    const body = new URLSearchParams(as.grants("client_credentials")[0]!.body);
    expect(body.get("client_secret")).toBe("cc-secret-VALUE");
    expect(body.get("scope")).toBe("a b");
    expect(as.grants("client_credentials")[0]!.headers.authorization).toBeUndefined();
  });
  test("no refresh token: a later 401 re-acquires", async () => {
    as.opts.refreshTokens = false;
    const e = env();
    const s = session(e, as, CC);
    await authed(s, as);
    const r = await fetch(as.mcpUrl, { method: "POST" });
    await s.onUnauthorized(r.headers.get("www-authenticate"));
    expect(as.grants("client_credentials").length).toBe(2);
  });
  test("a secret variable that is unset fails with the field's message", async () => {
    const e = env();
    const s = session(e, as, { client_id: "cc-client", client_secret: "${NOPE}" });
    const r = await fetch(as.mcpUrl, { method: "POST" });
    const err = await s.onUnauthorized(r.headers.get("www-authenticate")).catch((x) => x);
    expect(err.message).toBe("oauth.client_secret must be a non-empty string");
  });
});

describe("refresh", () => {
  test("proactive refresh within 60 s of expiry, rotated refresh token stored", async () => {
    as.opts.expiresIn = 30;
    const e = env();
    const s = session(e, as, CC);
    await authed(s, as);
    const before = JSON.parse(readFileSync(tokenFile(e), "utf8"));
    const n = as.grants("refresh_token").length;
    const b = await session(e, as, CC).authorization();
    const after = JSON.parse(readFileSync(tokenFile(e), "utf8"));
    expect(as.grants("refresh_token").length).toBe(n + 1);
    expect(new URLSearchParams(as.grants("refresh_token")[n]!.body).get("resource")).toBe(as.mcpUrl);
    expect(b).toBe(`Bearer ${after.access_token}`);
    expect(after.access_token).not.toBe(before.access_token);
    expect(after.refresh_token).not.toBe(before.refresh_token);
    expect(after.obtained_at).toBe(before.obtained_at);
  });
  test("a 401 with a refresh token refreshes first", async () => {
    const e = env();
    const s = session(e, as, CC);
    await authed(s, as);
    const r = await fetch(as.mcpUrl, { method: "POST" });
    await s.onUnauthorized(r.headers.get("www-authenticate"));
    expect(as.grants("refresh_token").length).toBe(1);
    expect(as.grants("client_credentials").length).toBe(1);
  });
  test("invalid_grant deletes the tokens; without a flow to run: authorization required / needs_auth", async () => {
    const e = env();
    const s = session(e, as, { client_id: "pre-client" }, { interactive: false });
    // Seed a token through the fixture (pre-registered public client, PKCE, headless).
    await session(e, as, { client_id: "pre-client" }).login();
    as.opts.tokenHook = (f) =>
      f.get("grant_type") === "refresh_token"
        ? Response.json({ error: "invalid_grant", error_description: "revoked SECRETDESC" }, { status: 400 })
        : undefined;
    await s.authorization();
    const r = await fetch(as.mcpUrl, { method: "POST" });
    const err = await s.onUnauthorized(r.headers.get("www-authenticate")).catch((x) => x);
    expect(err.message).toBe("authorization required");
    expect((await s.state()).state).toBe("needs_auth");
    expect(await s.authorization()).toBeNull();
  });
});

describe("token endpoint failures", () => {
  const cases: [string, (f: URLSearchParams) => Response | Promise<Response>, string][] = [
    [
      "non-Bearer",
      () => Response.json({ access_token: "x-SECRETACCESS", token_type: "mac" }),
      "token response is not a Bearer token",
    ],
    ["no access_token", () => Response.json({ token_type: "Bearer" }), "token response without access_token"],
    ["500 text", () => new Response("boom SECRETDESC", { status: 500 }), "token endpoint error"],
    [
      "invalid_client",
      () => Response.json({ error: "invalid_client", error_description: "SECRETDESC" }, { status: 401 }),
      "token endpoint rejected the client",
    ],
    [
      "odd error code",
      () => Response.json({ error: "SECRETDESC", error_description: "SECRETDESC" }, { status: 400 }),
      "token endpoint error",
    ],
    ["timeout", () => Bun.sleep(1500).then(() => Response.json({})), "token endpoint timed out"],
  ];
  for (const [name, hook, message] of cases) {
    test(name, async () => {
      as.opts.tokenHook = hook;
      const e = env();
      const s = session(e, as, CC, { timeoutMs: 500 });
      const r = await fetch(as.mcpUrl, { method: "POST" });
      const err = await s.onUnauthorized(r.headers.get("www-authenticate")).catch((x) => x);
      expect(err.code).toBe("UNAUTHORIZED");
      expect(err.message).toBe(message);
      expect(JSON.stringify({ m: err.message, d: err.details ?? null })).not.toContain("SECRET");
    });
  }
});

describe("storage", () => {
  test("a corrupt token file is set aside with a warning and treated as absent", async () => {
    const e = env();
    await authed(session(e, as, CC), as);
    const f = tokenFile(e);
    writeFileSync(f, "{ not json");
    const s = session(e, as, CC);
    expect(await s.authorization()).toBeNull();
    const names = readdirSync(join(e.ctx.agentDir, "secrets", "mcp-oauth"));
    expect(names.some((n) => n.includes(".corrupt-"))).toBe(true);
    expect(e.logs.some((l) => l.level === "warn" && l.message.includes("corrupt OAuth file set aside"))).toBe(true);
    expect((await authed(s, as)).status).toBe(200);
  });
  test("a token file of another server URL is never used (shared token secret)", async () => {
    const e = env();
    await authed(session(e, as, CC, {}, { tokenSecret: "shared" }), as);
    const other = session(e, as, CC, {}, { tokenSecret: "shared", serverUrl: `${as.origin}/other` });
    expect(await other.authorization()).toBeNull();
    expect(readdirSync(join(e.ctx.agentDir, "secrets", "mcp-oauth"))).toContain("shared.json");
  });
  test("persist_oauth_tokens false: nothing written, token reused in-process", async () => {
    const e = env();
    const s = session(e, as, CC, {}, { persist: false });
    expect((await authed(s, as)).status).toBe(200);
    expect(await session(e, as, CC, {}, { persist: false }).authorization()).toStartWith("Bearer ");
    let exists = true;
    try {
      statSync(join(e.ctx.agentDir, "secrets"));
    } catch {
      exists = false;
    }
    expect(exists).toBe(false);
  });
  test("logout deletes the token file", async () => {
    const e = env();
    const s = session(e, as, CC);
    await authed(s, as);
    expect(await s.logout(false)).toEqual({ tokens: true, registration: false });
    expect(await s.logout(false)).toEqual({ tokens: false, registration: false });
    expect((await s.state()).state).toBe("needs_auth");
  });
});
