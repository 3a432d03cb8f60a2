// A scriptable Streamable HTTP / SSE endpoint on 127.0.0.1 for the cases real servers do not
// produce on demand: a session forgotten twice, a redirected POST, 401, a cross-origin or missing
// SSE endpoint. It records each request's method and headers.
export interface Seen {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: { method?: string; id?: unknown } | null;
}

export type Mode =
  | "ok"
  | "big-json"
  | "big-sse"
  | "always-404"
  | "redirect"
  | "unauthorized"
  | "sse-cross-origin"
  | "sse-silent";

export interface Fixture extends AsyncDisposable {
  url: string;
  seen: Seen[];
}

const json = (body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { headers: { "content-type": "application/json", ...headers } });

export function httpFixture(mode: Mode): Fixture {
  const seen: Seen[] = [];
  let sessions = 0;
  const live = new Set<string>();
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 0,
    async fetch(req) {
      const url = new URL(req.url);
      const body = req.method === "POST" ? ((await req.json()) as Seen["body"]) : null;
      seen.push({ method: req.method, path: url.pathname, headers: Object.fromEntries(req.headers), body });
      if (mode === "unauthorized") return new Response("no", { status: 401 });
      if (mode === "redirect" && req.method === "POST")
        return new Response(null, { status: 307, headers: { location: `${url.origin}/elsewhere` } });
      if (mode === "sse-cross-origin" || mode === "sse-silent") {
        if (req.method !== "GET") return new Response(null, { status: 405 });
        const stream = new ReadableStream({
          start(ctl) {
            if (mode === "sse-cross-origin")
              ctl.enqueue(new TextEncoder().encode("event: endpoint\ndata: http://127.0.0.2:9/message\n\n"));
          },
        });
        return new Response(stream, { headers: { "content-type": "text/event-stream" } });
      }
      if (req.method === "GET") return new Response(null, { status: 405 });
      if (req.method === "DELETE") {
        live.delete(req.headers.get("mcp-session-id") ?? "");
        return new Response(null, { status: 200 });
      }
      const sid = req.headers.get("mcp-session-id");
      if (body?.method === "initialize") {
        const id = `session-${++sessions}`;
        live.add(id);
        return json(
          {
            jsonrpc: "2.0",
            id: body.id,
            result: {
              protocolVersion: "2025-06-18",
              capabilities: { tools: {} },
              serverInfo: { name: "fixture", version: "1.0.0" },
            },
          },
          { "mcp-session-id": id },
        );
      }
      // A session is forgotten as soon as the handshake is over.
      if (mode === "always-404" && body?.method !== "notifications/initialized") live.clear();
      if (!sid || !live.has(sid)) return new Response("unknown session", { status: 404 });
      if (body?.id === undefined) return new Response(null, { status: 202 });
      if (body.method === "tools/list") return json({ jsonrpc: "2.0", id: body.id, result: { tools: [] } });
      const result = (t: string) => ({ jsonrpc: "2.0", id: body.id, result: { content: [{ type: "text", text: t }] } });
      if (mode === "big-json" && body.method === "tools/call") return json(result("j".repeat(9 * 1024 * 1024)));
      if (mode === "big-sse" && body.method === "tools/call")
        return new Response(`event: message\ndata: ${JSON.stringify(result("s".repeat(9 * 1024 * 1024)))}\n\n`, {
          headers: { "content-type": "text/event-stream" },
        });
      return json(result("ok"));
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}/mcp`,
    seen,
    async [Symbol.asyncDispose]() {
      await server.stop(true);
    },
  };
}
