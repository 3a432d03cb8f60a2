// What the Streamable HTTP listener of `lemon mcp serve --http` refuses before the protocol sees a
// request (cli.md §3.8): no or a wrong bearer token (401), a Host or Origin that is not loopback
// (DNS rebinding, 403), a body over the bound (413, declared or streamed), a Host no URL holds (400),
// sessions beyond the cap (the least recently used idle one makes room), an unknown session (404), another path (404).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { createLemon, type Lemon } from "../../../../src/core/index.ts";
import { serveSkills, type SkillServer } from "../../../../src/core/mcp/index.ts";
import { allowedName, authorized, countedBody, hostnameOf } from "../../../../src/core/mcp/serve/http.ts";
import { sandbox, type Sandbox } from "../../../support/sandbox.ts";

const TOKEN = "guard-token";
let box: Sandbox;
let lemon: Lemon;
let server: SkillServer;

const INIT = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
};

function post(body: unknown, headers: Record<string, string> = {}, url = server.url!): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      authorization: `Bearer ${TOKEN}`,
      ...headers,
    },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

beforeAll(async () => {
  box = await sandbox();
  box.env.LEMON_SNAPSHOT_WORKER = "never";
  await box.skill(`${box.agentDir}/skill`, "one", { name: "one", description: "Use this for one thing." });
  lemon = createLemon({ cwd: box.project, env: box.env, curator: false });
  server = await serveSkills(lemon, { transport: "http", port: 0, token: TOKEN, maxBodyBytes: 4096, maxSessions: 3 });
});

afterAll(async () => {
  await server?.close();
  await lemon?.close();
  await box?.[Symbol.asyncDispose]();
});

describe("the HTTP listener", () => {
  test("binds loopback and answers an initialize with the token", async () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const r = await post(INIT);
    expect(r.status).toBe(200);
    expect(r.headers.get("mcp-session-id")).toBeTruthy();
    await r.body?.cancel();
  });

  test("401 without the token or with a wrong one", async () => {
    for (const authorization of ["", "Bearer nope", `Basic ${TOKEN}`, `Bearer ${TOKEN}x`]) {
      const r = await post(INIT, { authorization });
      expect([authorization, r.status]).toEqual([authorization, 401]);
      expect(r.headers.get("www-authenticate")).toStartWith("Bearer");
    }
  });

  test("403 for a foreign Origin or Host (DNS rebinding)", async () => {
    for (const origin of ["http://evil.example", "null", "http://127.0.0.1.evil.example:80"]) {
      const r = await post(INIT, { origin });
      expect([origin, r.status]).toEqual([origin, 403]);
    }
    const ok = await post(INIT, { origin: "http://localhost:5173" });
    expect(ok.status).not.toBe(403);
    await ok.body?.cancel();
    const host = await post(INIT, { host: "evil.example" });
    expect(host.status).toBe(403);
  });

  test("413 for a body over the bound, declared or streamed", async () => {
    const big = JSON.stringify({ ...INIT, pad: "x".repeat(8192) });
    expect((await post(big)).status).toBe(413);
    const chunks = new ReadableStream({
      start(c) {
        for (let i = 0; i < 8; i++) c.enqueue(new TextEncoder().encode("x".repeat(1024)));
        c.close();
      },
    });
    const streamed = await fetch(server.url!, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        authorization: `Bearer ${TOKEN}`,
      },
      body: chunks,
    }).catch(() => null);
    // Bun may reset the connection instead of answering: either way nothing past the bound is read.
    if (streamed !== null) expect(streamed.status).toBe(413);
  });

  test("an unknown session is 404, a request without one that is not initialize opens nothing", async () => {
    const r = await post({ jsonrpc: "2.0", id: 2, method: "tools/list" }, { "mcp-session-id": "nope" });
    expect(r.status).toBe(404);
    const orphan = await post({ jsonrpc: "2.0", id: 3, method: "tools/list" });
    expect(orphan.status).toBe(400);
    const other = await post(INIT, {}, server.url!.replace(/\/mcp$/, "/other"));
    expect(other.status).toBe(404);
  });

  test("at the cap, a new session closes the least recently used idle one instead of being refused", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      const r = await post(INIT);
      expect(r.status).toBe(200);
      ids.push(r.headers.get("mcp-session-id")!);
      await r.body?.cancel();
    }
    const ping = async (id: string) => {
      const r = await post({ jsonrpc: "2.0", method: "notifications/initialized" }, { "mcp-session-id": id });
      await r.body?.cancel();
      return r.status;
    };
    // Cap three: the newest three live, the first of these four (least recently used) is gone.
    expect(await ping(ids[0]!)).toBe(404);
    expect(await ping(ids[3]!)).not.toBe(404);
  });

  test("no Host, or one no URL can hold: 400 or 403, never 500, and nothing logged", async () => {
    const lines: string[] = [];
    const s = await serveSkills(lemon, { transport: "http", port: 0, token: TOKEN, log: (l) => lines.push(l) });
    try {
      const port = Number(new URL(s.url!).port);
      const raw = (head: string) =>
        new Promise<string>((resolve, reject) => {
          let got = "";
          Bun.connect({
            hostname: "127.0.0.1",
            port,
            socket: {
              open: (sock) => void sock.write(`${head}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`),
              data: (_sock, d) => void (got += d.toString()),
              close: () => resolve(got),
              error: (_sock, e) => reject(e),
            },
          }).catch(reject);
        });
      for (const head of [
        "POST /mcp HTTP/1.0",
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1@evil.com",
        "POST /mcp HTTP/1.1\r\nHost: evil.com:localhost",
        "POST /mcp HTTP/1.1\r\nHost: [::1]evil.com",
      ]) {
        const status = Number((await raw(head)).split(" ")[1]);
        expect([head, [400, 403].includes(status)]).toEqual([head, true]);
      }
      expect(lines).toEqual([]);
    } finally {
      await s.close();
    }
  });
});

describe("abandoned sessions", () => {
  test("40 SDK clients that connect and close() (no DELETE) leave room for the next one", async () => {
    const s = await serveSkills(lemon, { transport: "http", port: 0, token: TOKEN });
    const connect = async () => {
      const c = new Client({ name: "cycle", version: "1" });
      await c.connect(
        new StreamableHTTPClientTransport(new URL(s.url!), {
          requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
        }),
      );
      return c;
    };
    try {
      for (let i = 0; i < 40; i++) {
        const c = await connect();
        await c.listTools();
        await c.close();
      }
      const last = await connect();
      expect((await last.listTools()).tools.map((t) => t.name)).toContain("find_skills");
      await last.close();
    } finally {
      await s.close();
    }
  });
});

describe("idle sessions", () => {
  test("a session no request touched for sessionIdleMs is closed (its id is then 404)", async () => {
    const s = await serveSkills(lemon, { transport: "http", port: 0, token: TOKEN, sessionIdleMs: 100 });
    try {
      const r = await post(INIT, {}, s.url!);
      const id = r.headers.get("mcp-session-id")!;
      await r.body?.cancel();
      let status = 200;
      while (status !== 404) {
        await Bun.sleep(50);
        const again = await post(
          { jsonrpc: "2.0", method: "notifications/initialized" },
          { "mcp-session-id": id },
          s.url!,
        );
        status = again.status;
        await again.body?.cancel();
        if (status !== 404) await Bun.sleep(150);
      }
      expect(status).toBe(404);
    } finally {
      await s.close();
    }
  });
});

describe("answers in flight", () => {
  test("countedBody reports once when an answer was delivered, failed or was cancelled", async () => {
    let n = 0;
    const src = () => new Response("abc").body!;
    expect(await new Response(countedBody(src(), () => n++)).text()).toBe("abc");
    expect(n).toBe(1);
    const cancelled = countedBody(src(), () => n++);
    await cancelled.cancel();
    expect(n).toBe(2);
    const failing = new ReadableStream<Uint8Array>({
      pull: (c) => c.error(new Error("gone")),
    });
    expect(await new Response(countedBody(failing, () => n++)).text().catch(() => "failed")).toBe("failed");
    expect(n).toBe(3);
  });
});

describe("guard helpers", () => {
  test("hostnames, names allowed for a bind address, bearer parsing", () => {
    expect(hostnameOf("LocalHost:8080")).toBe("localhost");
    expect(hostnameOf("[::1]:9")).toBe("[::1]");
    expect(allowedName("localhost", "127.0.0.1")).toBe(true);
    expect(allowedName("evil.example", "127.0.0.1")).toBe(false);
    expect(allowedName("box.lan", "box.lan")).toBe(true);
    expect(allowedName("anything", "0.0.0.0")).toBe(true);
    expect(authorized("Bearer abc", "abc")).toBe(true);
    expect(authorized("bearer   abc ", "abc")).toBe(true);
    expect(authorized("Bearer abcd", "abc")).toBe(false);
    expect(authorized(null, "abc")).toBe(false);
  });
});
