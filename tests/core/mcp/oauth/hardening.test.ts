// Issue #14 adversarial findings on the token store and token responses: a token id never leaves
// A/secrets/mcp-oauth (F1), odd expires_in never loses a rotated refresh token (F3), control
// characters in access tokens, negative lifetimes and bare 401s (F8), modes and symlinks (F6),
// a corrupt file reported (F7), a project entry never choosing a token id (F2).
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { openAuthSession } from "../../../../src/core/mcp/client/auth-fetch.ts";
import { type OAuthFixture, startOAuthFixture } from "../../../support/oauth-as.ts";
import { authed, CC, env, session } from "./helpers.ts";

let as: OAuthFixture;
beforeAll(async () => {
  as = await startOAuthFixture();
});
afterAll(() => as.stop());
beforeEach(() => as.reset());

const oauthDir = (e: ReturnType<typeof env>) => join(e.ctx.agentDir, "secrets", "mcp-oauth");
const tokenFile = (e: ReturnType<typeof env>) => {
  const name = readdirSync(oauthDir(e)).find((x) => x.endsWith(".json"));
  if (name === undefined) throw new Error("no token file");
  return join(oauthDir(e), name);
};
const json = (body: unknown) => Response.json(body, { status: 200 });
const mode = (p: string) => statSync(p).mode & 0o777;

describe("F1: a token id is a plain file name inside secrets/mcp-oauth", () => {
  test("a traversing oauth.token_secret touches nothing outside", async () => {
    const e = env();
    const victim = join(e.root, "victim");
    mkdirSync(victim, { recursive: true });
    writeFileSync(join(victim, "settings.json"), '{"precious":true}\n');
    for (const secret of ["../../../victim/settings", "..", "."]) {
      const s = session(e, as, { ...CC, token_secret: secret });
      await s.state().catch(() => null);
      await authed(s, as).catch(() => null);
      await s.logout(true).catch(() => null);
      expect(readdirSync(victim)).toEqual(["settings.json"]);
      expect(readFileSync(join(victim, "settings.json"), "utf8")).toBe('{"precious":true}\n');
    }
    expect(existsSync(join(e.ctx.agentDir, "secrets", "..json"))).toBe(false);
  });
});

describe("F2: a project entry never chooses its token id", () => {
  test("oauth_token_secret / oauth.token_secret of a project source are ignored (one warning)", async () => {
    const e = env();
    const good = session(e, as, CC, {}, { privileged: true, tokenSecret: "shared-id" });
    expect((await authed(good, as)).status).toBe(200);
    const file = join(oauthDir(e), "shared-id.json");
    const before = readFileSync(file, "utf8");
    const entry = { type: "http" as const, url: `${as.mcpUrl}?x=1`, oauth_token_secret: "shared-id", oauth: { ...CC } };
    const project = { name: "evil", type: "http" as const, source: "lemon:project", server: { entry } };
    for (const _ of [1, 2]) {
      const s = await openAuthSession(e.ctx, project, undefined);
      expect(await s.logout(true)).toEqual({ tokens: false, registration: false });
    }
    const nested = {
      ...project,
      server: { entry: { ...entry, oauth_token_secret: undefined, oauth: { ...CC, token_secret: "shared-id" } } },
    };
    await (await openAuthSession(e.ctx, nested, undefined)).logout(true);
    expect(readFileSync(file, "utf8")).toBe(before);
    const warned = e.logs.filter(
      (l) => l.level === "warn" && l.message.includes("token_secret of a project entry is ignored"),
    );
    expect(warned.length).toBe(1);
  });
});

describe("F3/F8: token responses", () => {
  test("a huge expires_in on refresh keeps the rotated refresh token; expiry unknown", async () => {
    let now = Date.now();
    const e = env(() => new Date(now));
    const s = session(e, as, CC);
    expect((await authed(s, as)).status).toBe(200);
    as.opts.tokenHook = (form) =>
      form.get("grant_type") === "refresh_token"
        ? json({ access_token: "at-huge", token_type: "Bearer", expires_in: 1e20, refresh_token: "rt-rotated" })
        : undefined;
    now += 2 * 3600_000;
    expect(await s.authorization()).toBe("Bearer at-huge");
    const t = JSON.parse(readFileSync(tokenFile(e), "utf8"));
    expect(t.refresh_token).toBe("rt-rotated");
    expect(t.expires_at).toBeNull();
  });

  test("expires_in: negative is expired now, NaN-ish and zero are unknown", async () => {
    const e = env();
    as.opts.tokenHook = () => json({ access_token: "at-neg", token_type: "Bearer", expires_in: -5 });
    const r = await session(e, as, CC).login();
    expect(r.expires_at).not.toBeNull();
    expect((await session(e, as, CC).state()).state).toBe("expired");
    for (const exp of [0, "1e400", 10 * 366 * 86400]) {
      as.opts.tokenHook = () => json({ access_token: "at-x", token_type: "Bearer", expires_in: exp });
      expect((await session(env(), as, CC).login()).expires_at).toBeNull();
    }
  });

  test("access tokens with control characters are refused", async () => {
    for (const at of ["SECRET\r\nX-Evil: 1", "SECRET\u0000", "SECRET\u2028", "SECRET€", "SECRET\t"]) {
      const e = env();
      as.opts.tokenHook = () => json({ access_token: at, token_type: "Bearer", expires_in: 3600 });
      const err = (await session(e, as, CC)
        .login()
        .catch((x: Error) => x)) as Error;
      expect(`${JSON.stringify(at)} ${err.message}`).toBe(
        `${JSON.stringify(at)} token response with an invalid access_token`,
      );
      expect(existsSync(oauthDir(e)) ? readdirSync(oauthDir(e)).filter((n) => n.endsWith(".json")) : []).toEqual([]);
    }
  });

  test("a bare 401 from the token endpoint on refresh keeps the refresh token and registration", async () => {
    let now = Date.now();
    const e = env(() => new Date(now));
    const s = session(e, as, null);
    await s.login();
    const clients = join(oauthDir(e), "clients");
    const regs = readdirSync(clients);
    const rt = JSON.parse(readFileSync(tokenFile(e), "utf8")).refresh_token;
    as.opts.tokenHook = () => new Response("gateway says no", { status: 401 });
    now += 2 * 3600_000;
    await s.authorization().catch(() => null);
    expect(JSON.parse(readFileSync(tokenFile(e), "utf8")).refresh_token).toBe(rt);
    expect(readdirSync(clients)).toEqual(regs);
  });
});

describe("F6/F7: the secrets directories and files", () => {
  test("loose existing modes are tightened on write", async () => {
    const e = env();
    mkdirSync(oauthDir(e), { recursive: true });
    chmodSync(join(e.ctx.agentDir, "secrets"), 0o777);
    chmodSync(oauthDir(e), 0o777);
    await session(e, as, null).login();
    expect(mode(join(e.ctx.agentDir, "secrets"))).toBe(0o700);
    expect(mode(oauthDir(e))).toBe(0o700);
    expect(mode(join(oauthDir(e), "clients"))).toBe(0o700);
    const f = tokenFile(e);
    chmodSync(f, 0o644);
    await session(e, as, null).login();
    expect(mode(f)).toBe(0o600);
  });

  test("a symlinked token file is refused, never written or read through", async () => {
    const e = env();
    expect((await authed(session(e, as, CC), as)).status).toBe(200);
    const f = tokenFile(e);
    const outside = join(e.root, "outside.json");
    writeFileSync(outside, readFileSync(f));
    require("node:fs").rmSync(f);
    symlinkSync(outside, f);
    const before = readFileSync(outside, "utf8");
    const s = session(e, as, CC);
    const err = (await s.authorization().catch((x: Error) => x)) as Error;
    expect(err.message).toBe("refusing a symbolic link in the OAuth secrets directory");
    await s.login().catch(() => null);
    expect(readFileSync(outside, "utf8")).toBe(before);
  });

  test("a symlinked secrets directory is refused", async () => {
    const e = env();
    const elsewhere = join(e.root, "elsewhere");
    mkdirSync(elsewhere, { mode: 0o777 });
    mkdirSync(e.ctx.agentDir, { recursive: true });
    symlinkSync(elsewhere, join(e.ctx.agentDir, "secrets"));
    const err = (await session(e, as, CC)
      .login()
      .catch((x: Error) => x)) as Error;
    expect(err.message).toBe("refusing a symbolic link in the OAuth secrets directory");
    expect(readdirSync(elsewhere)).toEqual([]);
  });

  test("a corrupt token file is set aside with a warning state() reports", async () => {
    const e = env();
    expect((await authed(session(e, as, CC), as)).status).toBe(200);
    writeFileSync(tokenFile(e), '{"version":1, garbage');
    const st = await session(e, as, CC).state();
    expect(st.state).toBe("needs_auth");
    expect(st.warnings).toEqual(["corrupt OAuth token file set aside; authorization required"]);
    expect(e.logs.some((l) => l.level === "warn" && l.message.includes("corrupt OAuth file set aside"))).toBe(true);
  });
});

describe("F5: the authorization endpoint is checked before approval and opening", () => {
  const SERVER = "http://127.0.0.1:9/mcp";
  const ISSUER = "http://127.0.0.1:9";
  const metadata = (endpoint: string) =>
    (async (input: string | URL | Request) => {
      const u = new URL(typeof input === "string" ? input : input instanceof URL ? input.href : input.url);
      if (u.pathname.startsWith("/.well-known/oauth-protected-resource"))
        return Response.json({ resource: SERVER, authorization_servers: [ISSUER] });
      if (u.pathname.startsWith("/.well-known/oauth-authorization-server"))
        return Response.json({
          issuer: ISSUER,
          authorization_endpoint: endpoint,
          token_endpoint: `${ISSUER}/token`,
          code_challenge_methods_supported: ["S256"],
        });
      return new Response("nf", { status: 404 });
    }) as typeof fetch;
  const run = async (endpoint: string) => {
    const e = env();
    const s = session(
      e,
      as,
      { client_id: "pub", authorization_timeout_ms: 300 },
      { fetch: metadata(endpoint), headless: false },
      { serverUrl: SERVER },
    );
    const out = await s.onUnauthorized(null).then(
      () => "ok",
      (x: Error) => x.message,
    );
    return { out, approvals: e.approvals, opened: e.opened };
  };

  test("non-https schemes and non-loopback http are refused: no approval, nothing opened", async () => {
    for (const ep of [
      "file:///etc/passwd",
      "javascript:alert(1)//",
      "smb://evil.example.test/share",
      "x-evil-handler:payload",
      "http://169.254.169.254/x",
      "http://10.0.0.1/authorize",
    ]) {
      const r = await run(ep);
      expect(`${ep} ${r.out.startsWith("oauth URL refused: ")}`).toBe(`${ep} true`);
      expect(r.approvals).toEqual([]);
      expect(r.opened).toEqual([]);
    }
  });

  test("the approval names the authorization endpoint's origin", async () => {
    const r = await run("http://127.0.0.1:8/authorize");
    expect(r.approvals).toEqual([
      {
        kind: "mcp_oauth",
        server: "demo",
        authorization_server: ISSUER,
        authorization_endpoint: "http://127.0.0.1:8",
        scopes: [],
        redirect: "loopback",
      },
    ]);
    expect(r.opened.length).toBe(1);
  });
});
