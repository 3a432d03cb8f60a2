/**
 * @module mcp/serve/http
 * Streamable HTTP for `lemon mcp serve --http` (cli.md §3.8) on Bun.serve and the SDK's
 * web-standard transport. Every request passes, in order: the path (`/mcp`), the DNS-rebinding
 * guard (Host and Origin must be loopback, or the HOST the operator bound), the bearer token
 * (compared in constant time; 401 otherwise), the body bound (413 from Content-Length before a
 * byte is read, else as soon as the streamed body passes it; the server reads bodies itself so
 * no request reaches a session, or opens one, before it is whole and bounded). Sessions are capped and closed when idle, so a slow
 * or hostile client holds neither unbounded memory nor sockets for ever.
 */
import { createHash, randomUUID, timingSafeEqual } from "node:crypto";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { trackPending, type Pending } from "./pending.ts";
import type { HttpServeOptions } from "./types.ts";

const LOOPBACK = new Set(["127.0.0.1", "localhost", "::1", "[::1]"]);
const WILDCARD = new Set(["0.0.0.0", "::", "[::]"]);

/** A session: its transport, its server, its unanswered requests and when a request last touched it. */
interface Session {
  transport: WebStandardStreamableHTTPServerTransport;
  server: Server;
  pending: Pending;
  /** POST answers not yet delivered (their streams still open). */
  unsent: number;
  seen: number;
}

/**
 * `body` as a stream that calls `done` once when it ends, fails or is cancelled: how many of a
 * session's answers are still on their way to a client that may have stopped reading.
 */
export function countedBody(body: ReadableStream<Uint8Array>, done: () => void): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    done();
  };
  return new ReadableStream<Uint8Array>({
    async pull(c) {
      try {
        const r = await reader.read();
        if (r.done) {
          end();
          c.close();
        } else c.enqueue(r.value);
      } catch (err) {
        end();
        c.error(err);
      }
    },
    cancel(reason) {
      end();
      return reader.cancel(reason);
    },
  });
}

/** The hostname of a Host header value (`name:port`, `[v6]:port`), lower-cased. */
export function hostnameOf(host: string): string {
  const h = host.trim().toLowerCase();
  if (h.startsWith("[")) {
    const end = h.indexOf("]");
    return end < 0 ? h : h.slice(0, end + 1);
  }
  const colon = h.lastIndexOf(":");
  return colon < 0 ? h : h.slice(0, colon);
}

/** Whether a hostname may address this server: loopback, the bound HOST, or anything on a wildcard bind. */
export function allowedName(name: string, bound: string): boolean {
  const b = bound.toLowerCase();
  if (WILDCARD.has(b)) return true;
  return LOOPBACK.has(name) || name === b || name === `[${b}]`;
}

const digest = (s: string) => createHash("sha256").update(s).digest();

/** `Authorization: Bearer <token>`, compared in constant time. */
export function authorized(header: string | null, token: string): boolean {
  if (header === null) return false;
  const m = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
  return m !== null && timingSafeEqual(digest(m[1]!), digest(token));
}

/**
 * The body of a POST, read to at most `max` bytes: null when it is longer (the rest is never
 * read), whatever Content-Length claimed.
 */
async function boundedBody(req: Request, max: number): Promise<string | null> {
  if (req.body === null) return "";
  const reader = req.body.getReader();
  const parts: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > max) {
      await reader.cancel().catch(() => {});
      return null;
    }
    parts.push(value);
  }
  return Buffer.concat(parts, total).toString("utf8");
}

const rpcError = (status: number, code: number, message: string) =>
  Response.json({ jsonrpc: "2.0", error: { code, message }, id: null }, { status });

const plain = (status: number, text: string, headers: Record<string, string> = {}) =>
  new Response(`${text}\n`, { status, headers: { "content-type": "text/plain; charset=utf-8", ...headers } });

export interface HttpHandle {
  url: string;
  /** Every open session's server (for list-changed notifications). */
  servers(): Server[];
  close(): Promise<void>;
}

/** Starts the listener; `makeServer` builds the server of each new session. */
export async function startHttp(opts: HttpServeOptions, makeServer: () => Server): Promise<HttpHandle> {
  const host = opts.host ?? "127.0.0.1";
  const maxBody = opts.maxBodyBytes ?? 4 * 1024 * 1024;
  const maxSessions = opts.maxSessions ?? 32;
  // Most clients never DELETE their session (the SDK client's close() does not): an abandoned one
  // goes after a few minutes, and sooner when a new session needs its place (see room()).
  const idleMs = opts.sessionIdleMs ?? 5 * 60 * 1000;
  const maxUnsent = opts.maxUnsentAnswers ?? 16;
  const sessions = new Map<string, Session>();
  const log = opts.log ?? (() => {});

  const drop = async (id: string) => {
    const s = sessions.get(id);
    if (s === undefined) return;
    sessions.delete(id);
    await s.server.close().catch(() => {});
  };

  /**
   * Place for one more session: at the cap, the least recently used session with no request in
   * flight is closed (its client, if still there, gets 404 and opens a new one, as the protocol
   * says); false only when every session is busy.
   */
  const room = async (): Promise<boolean> => {
    if (sessions.size < maxSessions) return true;
    let lru: [string, Session] | null = null;
    for (const entry of sessions) {
      const idle = entry[1].pending.size() === 0 && entry[1].unsent === 0;
      if (idle && (lru === null || entry[1].seen < lru[1].seen)) lru = entry;
    }
    if (lru === null) return false;
    await drop(lru[0]);
    return true;
  };

  const open = async (req: Request, parsedBody: unknown): Promise<Response> => {
    if (!(await room())) return plain(503, "too many sessions", { "retry-after": "5" });
    const server = makeServer();
    let pending: Pending | null = null;
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        if (pending !== null) sessions.set(id, { transport, server, pending, unsent: 0, seen: Date.now() });
      },
      onsessionclosed: (id) => void drop(id),
      maxRequestBodySize: maxBody,
      keepAliveMs: 10_000,
    });
    await server.connect(transport);
    pending = trackPending(transport);
    const res = await transport.handleRequest(req, { parsedBody });
    // Not an initialize request, or a failed one: nothing to keep.
    if (transport.sessionId === undefined) await server.close().catch(() => {});
    return res;
  };

  const handle = async (req: Request): Promise<Response> => {
    let url: URL;
    try {
      url = new URL(req.url);
    } catch {
      // No Host, or one no URL can hold (`a@b`, `[::1]x`): a bad request, answered before the
      // token is checked and never logged, so an anonymous peer cannot flood the operator's log.
      return plain(400, "bad request");
    }
    if (url.pathname !== "/mcp") return plain(404, "not found");
    const hostHeader = req.headers.get("host");
    if (hostHeader === null || !allowedName(hostnameOf(hostHeader), host)) return plain(403, "host not allowed");
    const origin = req.headers.get("origin");
    if (origin !== null) {
      let name: string | null = null;
      try {
        name = new URL(origin).hostname.toLowerCase();
      } catch {
        // "null" and other opaque origins: no page of ours sends them.
      }
      if (name === null || !allowedName(name, host)) return plain(403, "origin not allowed");
    }
    if (!authorized(req.headers.get("authorization"), opts.token))
      return plain(401, "unauthorized", { "www-authenticate": 'Bearer realm="lemon"' });
    const length = Number(req.headers.get("content-length") ?? "0");
    if (Number.isFinite(length) && length > maxBody) return plain(413, "request body too large");
    const id = req.headers.get("mcp-session-id");
    const session = id !== null ? sessions.get(id) : undefined;
    if (id !== null && session === undefined) return plain(404, "unknown session");
    if (id === null && req.method !== "POST") return plain(400, "missing mcp-session-id");
    let parsedBody: unknown;
    if (req.method === "POST") {
      const text = await boundedBody(req, maxBody);
      if (text === null) return plain(413, "request body too large");
      try {
        parsedBody = JSON.parse(text);
      } catch {
        return rpcError(400, -32700, "Parse error");
      }
    }
    if (session !== undefined) {
      session.seen = Date.now();
      if (req.method !== "POST") return session.transport.handleRequest(req, {});
      // Backpressure: a client that stops reading its answers gets no new work until they leave.
      if (session.unsent >= maxUnsent) return plain(429, "too many answers unread", { "retry-after": "1" });
      const res = await session.transport.handleRequest(req, parsedBody !== undefined ? { parsedBody } : {});
      if (res.body === null) return res;
      session.unsent++;
      const body = countedBody(res.body, () => void session.unsent--);
      return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
    }
    return open(req, parsedBody);
  };

  const listener = Bun.serve({
    hostname: host,
    port: opts.port,
    maxRequestBodySize: maxBody,
    // Seconds a connection may stay silent (a stalled upload, a dead peer); SSE keep-alives are sent every 10 s.
    idleTimeout: 30,
    async fetch(req) {
      try {
        return await handle(req);
      } catch (err) {
        log(`request failed: ${err instanceof Error ? err.message : String(err)}`);
        return plain(500, "internal error");
      }
    },
  });

  const sweep = setInterval(
    () => {
      const now = Date.now();
      for (const [id, s] of sessions) if (now - s.seen > idleMs) void drop(id);
    },
    Math.min(60_000, idleMs),
  );
  sweep.unref?.();

  const shownHost = host.includes(":") ? `[${host}]` : host;
  return {
    url: `http://${shownHost}:${listener.port}/mcp`,
    servers: () => [...sessions.values()].map((s) => s.server),
    async close() {
      clearInterval(sweep);
      await Promise.all([...sessions.keys()].map(drop));
      await listener.stop(true);
    },
  };
}
