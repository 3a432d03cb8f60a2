// Streamable HTTP and legacy SSE (mcp.md §5.2, §5.3) against server-everything, the SDK's example
// server (whose unknown-session answer is the spec's 404) and a scriptable fixture.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { connectServer, type CloseReason, type ServerConnection } from "../../../../src/core/mcp/client/connect.ts";
import { httpFixture } from "./http-fixture.ts";
import {
  BUN,
  EVERYTHING,
  freePort,
  REPO,
  SDK_EXAMPLE,
  server,
  startPeer,
  testContext,
  type Peer,
  failure,
} from "./peers.ts";

type CallResult = { content: { type: string; text?: string }[] };
const text = (r: unknown) => (r as CallResult).content.map((c) => c.text ?? "").join("");
const opts = (timeoutMs = 10_000) => ({ ctx: testContext(), cwd: REPO, timeoutMs });

describe("server-everything over Streamable HTTP", () => {
  let peer: Peer;
  let conn: ServerConnection;
  beforeAll(async () => {
    peer = await startPeer([BUN, EVERYTHING, "streamableHttp"], {
      env: { PORT: "$PORT" },
      ready: "MCP Streamable HTTP Server listening on port",
    });
    conn = await connectServer(server("http", { url: `http://127.0.0.1:${peer.port}/mcp` }), opts());
  }, 30_000);
  afterAll(async () => {
    await conn?.close();
    await peer?.stop();
  });

  test("handshake, listing and calls", async () => {
    expect(conn.serverInfo?.name).toBe("mcp-servers/everything");
    expect(conn.protocolVersion).toBe("2025-11-25");
    const tools = await conn.list("tools");
    expect((tools.items as { name: string }[]).map((t) => t.name)).toContain("get-sum");
    const r = await conn.request("tools/call", { name: "get-sum", arguments: { a: 2, b: 3 } }, { timeoutMs: 5_000 });
    expect(text(r)).toContain("5");
    let progress = 0;
    await conn.request(
      "tools/call",
      { name: "trigger-long-running-operation", arguments: { duration: 1, steps: 2 } },
      { timeoutMs: 10_000, onProgress: () => progress++ },
    );
    expect(progress).toBeGreaterThanOrEqual(1);
  });
});

describe("server-everything over legacy SSE", () => {
  test("endpoint, calls, listing, and the end of the stream is a disconnect", async () => {
    await using peer = await startPeer([BUN, EVERYTHING, "sse"], {
      env: { PORT: "$PORT" },
      ready: "Server is running on port",
    });
    const conn = await connectServer(server("sse", { url: `http://127.0.0.1:${peer.port}/sse` }), opts());
    const reasons: CloseReason[] = [];
    conn.onClose((r) => reasons.push(r));
    expect(conn.serverInfo?.name).toBe("mcp-servers/everything");
    const r = await conn.request("tools/call", { name: "echo", arguments: { message: "sse" } }, { timeoutMs: 5_000 });
    expect(text(r)).toBe("Echo: sse");
    const tools = await conn.list("tools");
    expect((tools.items as { name: string }[]).map((t) => t.name)).toContain("echo");
    await peer.stop();
    for (let i = 0; i < 100 && reasons.length === 0; i++) await Bun.sleep(50);
    expect(reasons).toEqual(["connection closed"]);
    await conn.close();
  }, 30_000);
});

describe("a session the server forgot (404)", () => {
  test("the SDK example restarted mid-session: re-initialized once, the call re-sent, transparent", async () => {
    const port = await freePort();
    const start = () =>
      startPeer([BUN, SDK_EXAMPLE], {
        env: { MCP_PORT: String(port) },
        port,
        ready: "MCP Streamable HTTP Server listening",
      });
    let peer = await start();
    const conn = await connectServer(server("http", { url: `http://127.0.0.1:${port}/mcp` }), opts());
    const reasons: CloseReason[] = [];
    conn.onClose((r) => reasons.push(r));
    try {
      const greet = { name: "greet", arguments: { name: "lemon" } };
      expect(text(await conn.request("tools/call", greet, { timeoutMs: 5_000 }))).toBe("Hello, lemon!");
      await peer.stop();
      peer = await start();
      expect(text(await conn.request("tools/call", greet, { timeoutMs: 5_000 }))).toBe("Hello, lemon!");
      expect(text(await conn.request("tools/call", greet, { timeoutMs: 5_000 }))).toBe("Hello, lemon!");
      expect(reasons).toEqual([]);
    } finally {
      await conn.close();
      await peer.stop();
    }
  }, 40_000);

  test("a second 404 after re-initializing: session expired, the connection ends", async () => {
    await using fx = httpFixture("always-404");
    const conn = await connectServer(server("http", { url: fx.url }), opts());
    const reasons: CloseReason[] = [];
    conn.onClose((r) => reasons.push(r));
    expect(await failure(conn.request("tools/call", { name: "x", arguments: {} }, { timeoutMs: 5_000 }))).toEqual({
      code: "UNAVAILABLE",
      message: "session expired",
    });
    const inits = fx.seen.filter((s) => s.body?.method === "initialize");
    expect(inits.length).toBe(2);
    expect(fx.seen.filter((s) => s.body?.method === "tools/call").length).toBe(2);
    for (let i = 0; i < 50 && reasons.length === 0; i++) await Bun.sleep(20);
    expect(reasons).toEqual(["session expired"]);
    await conn.close();
  });
});

describe("headers, session id, DELETE and refusals", () => {
  test("configured headers and the session headers on every request; DELETE on close", async () => {
    await using fx = httpFixture("ok");
    const entry = { url: fx.url, headers: { "X-Api-Key": "k-123" } };
    const conn = await connectServer(server("http", entry), opts());
    await conn.request("tools/call", { name: "x", arguments: {} }, { timeoutMs: 5_000 });
    await conn.close();
    const posts = fx.seen.filter((s) => s.method === "POST");
    expect(posts.every((s) => s.headers["x-api-key"] === "k-123")).toBe(true);
    expect(posts[0]!.headers.accept).toBe("application/json, text/event-stream");
    const call = posts.find((s) => s.body?.method === "tools/call")!;
    expect(call.headers["mcp-session-id"]).toBe("session-1");
    expect(call.headers["mcp-protocol-version"]).toBe("2025-06-18");
    const del = fx.seen.filter((s) => s.method === "DELETE");
    expect(del.length).toBe(1);
    expect(del[0]!.headers["mcp-session-id"]).toBe("session-1");
  });

  for (const mode of ["big-json", "big-sse"] as const)
    test(`a response message over 8 MiB (${mode}) ends the connection with the 8 MiB reason`, async () => {
      await using fx = httpFixture(mode);
      const conn = await connectServer(server("http", { url: fx.url }), opts());
      const reasons: CloseReason[] = [];
      conn.onClose((r) => reasons.push(r));
      expect(await failure(conn.request("tools/call", { name: "x", arguments: {} }, { timeoutMs: 10_000 }))).toEqual({
        code: "OPERATION_FAILED",
        message: "MCP server disconnected during the call",
      });
      for (let i = 0; i < 100 && reasons.length === 0; i++) await Bun.sleep(20);
      expect(reasons).toEqual(["message exceeds 8 MiB limit"]);
      await conn.close();
    });

  test("a redirected POST is not followed", async () => {
    await using fx = httpFixture("redirect");
    expect((await failure(connectServer(server("http", { url: fx.url }), opts()))).message).toBe("protocol error");
    expect(fx.seen.some((s) => s.path === "/elsewhere")).toBe(false);
  });

  test("401 is authorization required; an oauth entry that needs a flow it cannot run fails UNAUTHORIZED", async () => {
    await using fx = httpFixture("unauthorized");
    expect(await failure(connectServer(server("http", { url: fx.url }), opts()))).toEqual({
      code: "UNAUTHORIZED",
      message: "authorization required",
    });
    const before = fx.seen.length;
    // PKCE without an approver (no OAuth callbacks): no flow can run, nothing is retried.
    const oauth = server("http", { url: fx.url, oauth: {} });
    const f = await failure(connectServer(oauth, opts()));
    expect(f.code).toBe("UNAUTHORIZED");
    const after = fx.seen.slice(before);
    expect(after.filter((s) => s.path === "/mcp").length).toBe(1);
    expect(after.some((s) => s.path === "/token")).toBe(false);
  });

  test("connection refused", async () => {
    const port = await freePort();
    const f = await failure(connectServer(server("http", { url: `http://127.0.0.1:${port}/mcp` }), opts()));
    expect(f).toEqual({ code: "UNAVAILABLE", message: "connection failed" });
  });

  test("SSE: a cross-origin endpoint is a protocol error; no endpoint is a handshake timeout", async () => {
    await using cross = httpFixture("sse-cross-origin");
    expect((await failure(connectServer(server("sse", { url: cross.url }), opts()))).message).toBe("protocol error");
    await using silent = httpFixture("sse-silent");
    expect(await failure(connectServer(server("sse", { url: silent.url }), opts(300)))).toEqual({
      code: "TIMEOUT",
      message: "handshake timed out",
    });
  });
});
