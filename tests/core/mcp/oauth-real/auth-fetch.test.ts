// auth-fetch (mcp.md §11.2, §11.3): the bearer goes only to the MCP server's origin; a challenge
// during the handshake is recorded (connect answers it between attempts), one on an open
// connection is answered in place with one retry; a second 401 for the same request is
// `authorization failed`; a 403 insufficient_scope steps up; an unconfigured server is OAuth only
// when its 401 names resource metadata. A scripted session stands in for the engine.
import { afterAll, describe, expect, test } from "bun:test";
import { type AuthSession, ServerAuth } from "../../../../src/core/mcp/client/auth-fetch.ts";
import { isOAuthChallenge } from "../../../../src/core/mcp/oauth/www-authenticate.ts";

interface Seen {
  host: string;
  auth: string | null;
}
const seen: Seen[] = [];
let answer: (req: Request) => Response = () => new Response("ok");
const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch(req) {
    seen.push({ host: new URL(req.url).host, auth: req.headers.get("authorization") });
    return answer(req);
  },
});
afterAll(() => server.stop(true));
const origin = `http://127.0.0.1:${server.port}`;
const other = `http://localhost:${server.port}`; // same listener, another origin

function session(tokens: string[]): AuthSession & { calls: string[] } {
  let current: string | null = null;
  const calls: string[] = [];
  return {
    calls,
    authorization: async () => current,
    onUnauthorized: async (h) => {
      calls.push(`401 ${h ?? "-"}`);
      current = `Bearer ${tokens.shift() ?? "none"}`;
    },
    onInsufficientScope: async (h) => {
      calls.push(`403 ${h}`);
      current = `Bearer ${tokens.shift() ?? "none"}`;
    },
  };
}

function auth(s: AuthSession, configured = true): ServerAuth {
  return new ServerAuth({
    serverUrl: new URL(`${origin}/mcp`),
    configured,
    session: async () => s,
    isChallenge: isOAuthChallenge,
  });
}

describe("auth-fetch", () => {
  test("handshake: a 401 is recorded, not answered; after resolve the bearer goes to the server only", async () => {
    seen.length = 0;
    const s = session(["t1"]);
    const a = auth(s);
    const f = a.wrap(fetch);
    answer = (req) =>
      req.headers.get("authorization") === "Bearer t1"
        ? new Response("ok")
        : new Response("no", { status: 401, headers: { "www-authenticate": 'Bearer realm="x"' } });
    await expect(f(`${origin}/mcp`)).rejects.toThrow("authorization required");
    expect(a.pending).toEqual({ kind: "unauthorized", header: 'Bearer realm="x"' });
    expect(s.calls).toEqual([]);
    await a.resolve();
    expect(s.calls).toEqual(['401 Bearer realm="x"']);
    expect((await f(`${origin}/mcp`)).status).toBe(200);
    await f(`${other}/elsewhere`);
    expect(seen.map((x) => x.auth)).toEqual([null, "Bearer t1", null]);
  });

  test("handshake: a challenge after one was answered is authorization failed", async () => {
    const s = session(["refused"]);
    const a = auth(s);
    const f = a.wrap(fetch);
    answer = () => new Response("no", { status: 401 });
    await expect(f(`${origin}/mcp`)).rejects.toThrow("authorization required");
    await a.resolve();
    await expect(f(`${origin}/mcp`)).rejects.toThrow("authorization failed");
  });

  test("open connection: 401 answered in place and retried once; a second 401 fails", async () => {
    seen.length = 0;
    const s = session(["t2", "t3"]);
    const a = auth(s);
    a.deferring = false;
    const f = a.wrap(fetch);
    answer = (req) =>
      req.headers.get("authorization") === "Bearer t2" ? new Response("ok") : new Response("no", { status: 401 });
    const r = await f(`${origin}/mcp`, { method: "POST", body: "{}" });
    expect(r.status).toBe(200);
    expect(s.calls).toEqual(["401 -"]);
    answer = () => new Response("no", { status: 401 });
    await expect(f(`${origin}/mcp`, { method: "POST", body: "{}" })).rejects.toThrow("authorization failed");
    expect(seen.map((x) => x.auth)).toEqual([null, "Bearer t2", "Bearer t2", "Bearer t3"]);
  });

  test("403 insufficient_scope steps up with the challenge and retries once", async () => {
    const s = session(["wide"]);
    const a = auth(s);
    a.deferring = false;
    const f = a.wrap(fetch);
    const challenge = 'Bearer error="insufficient_scope", scope="files:write"';
    answer = (req) =>
      req.headers.get("authorization") === "Bearer wide"
        ? new Response("ok")
        : new Response("no", { status: 403, headers: { "www-authenticate": challenge } });
    expect((await f(`${origin}/mcp`)).status).toBe(200);
    expect(s.calls).toEqual([`403 ${challenge}`]);
    // A plain 403 is the server's answer, not a challenge.
    answer = () => new Response("forbidden", { status: 403 });
    expect((await f(`${origin}/mcp`)).status).toBe(403);
  });

  test("an unconfigured server: a plain 401 passes through, one naming resource_metadata is OAuth", async () => {
    const s = session(["t4"]);
    let detected = 0;
    const a = new ServerAuth({
      serverUrl: new URL(`${origin}/mcp`),
      configured: false,
      session: async () => s,
      isChallenge: isOAuthChallenge,
      onDetected: () => detected++,
    });
    const f = a.wrap(fetch);
    answer = () => new Response("no", { status: 401, headers: { "www-authenticate": 'Basic realm="x"' } });
    expect((await f(`${origin}/mcp`)).status).toBe(401);
    expect(a.oauth).toBe(false);
    const prm = `${origin}/.well-known/oauth-protected-resource`;
    answer = () =>
      new Response("no", { status: 401, headers: { "www-authenticate": `Bearer resource_metadata="${prm}"` } });
    await expect(f(`${origin}/mcp`)).rejects.toThrow("authorization required");
    expect(a.oauth).toBe(true);
    expect(detected).toBe(1);
    expect(a.pending?.header).toContain("resource_metadata");
  });
});
