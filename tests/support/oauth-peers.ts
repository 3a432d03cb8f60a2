// Real OAuth peers for the integration tests (mcp-test-peers.md §3), all on 127.0.0.1:
//
//   const demo = await startSdkDemo();          // the SDK's simpleStreamableHttp.js --oauth (PRM, DCR, PKCE)
//   demo.mcpUrl                                 // http://localhost:<port>/mcp (the demo names localhost)
//   const as = await startMockAs();             // oauth2-mock-server in-process (client credentials, PKCE, refresh)
//   const rs = await startResourceServer(as);   // SDK McpServer behind a bearer check of the mock's JWTs
//
// The SDK demo listens on every interface by default; a preload pins its listeners to 127.0.0.1.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { SSEServerTransport } from "@modelcontextprotocol/sdk/server/sse.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { createServer as createHttpServer } from "node:http";
import { createRemoteJWKSet, jwtVerify } from "jose";
import { OAuth2Server } from "oauth2-mock-server";
import { mkdtempSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { z } from "zod";

const ROOT = resolve(import.meta.dir, "../..");
const DEMO = join(ROOT, "node_modules/@modelcontextprotocol/sdk/dist/esm/examples/server/simpleStreamableHttp.js");

/** A free loopback port (bound, read, closed). */
export function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const s = createServer();
    s.once("error", fail);
    s.listen(0, "127.0.0.1", () => {
      const a = s.address();
      const port = typeof a === "object" && a !== null ? a.port : 0;
      s.close(() => ok(port));
    });
  });
}

let preload: string | null = null;
/** A Bun preload that makes `listen(port[, cb])` bind 127.0.0.1 instead of every interface. */
function loopbackPreload(): string {
  if (preload !== null) return preload;
  const dir = mkdtempSync(join(tmpdir(), "lemon-peer-"));
  preload = join(dir, "loopback.mjs");
  writeFileSync(
    preload,
    `import http from "node:http";
const listen = http.Server.prototype.listen;
http.Server.prototype.listen = function (...args) {
  if (typeof args[0] === "number" && typeof args[1] !== "string") args.splice(1, 0, "127.0.0.1");
  return listen.apply(this, args);
};
`,
  );
  return preload;
}

export interface SdkDemo {
  port: number;
  authPort: number;
  mcpUrl: string;
  issuer: string;
  /** Everything the demo printed (it logs request bodies: tests grep it for nothing of ours). */
  output(): string;
  stop(): Promise<void>;
}

/** Starts the SDK's OAuth demo with bun and waits for both readiness lines. */
export async function startSdkDemo(
  opts: { port?: number; authPort?: number; strict?: boolean } = {},
): Promise<SdkDemo> {
  const port = opts.port ?? (await freePort());
  const authPort = opts.authPort ?? (await freePort());
  const proc = Bun.spawn(
    [process.execPath, "--preload", loopbackPreload(), DEMO, opts.strict ? "--oauth-strict" : "--oauth"],
    {
      cwd: ROOT,
      env: { PATH: process.env.PATH, HOME: tmpdir(), MCP_PORT: String(port), MCP_AUTH_PORT: String(authPort) },
      stdout: "pipe",
      stderr: "pipe",
    },
  );
  let text = "";
  const pump = async (s: ReadableStream<Uint8Array>) => {
    const dec = new TextDecoder();
    for await (const chunk of s) text += dec.decode(chunk, { stream: true });
  };
  void pump(proc.stdout);
  void pump(proc.stderr);
  const deadline = Date.now() + 20_000;
  while (
    !(
      text.includes("OAuth Authorization Server listening on port") &&
      text.includes("MCP Streamable HTTP Server listening on port")
    )
  ) {
    if (proc.exitCode !== null || Date.now() > deadline) {
      proc.kill();
      throw new Error(`SDK OAuth demo did not start:\n${text}`);
    }
    await Bun.sleep(25);
  }
  return {
    port,
    authPort,
    mcpUrl: `http://localhost:${port}/mcp`,
    issuer: `http://localhost:${authPort}/`,
    output: () => text,
    async stop() {
      proc.kill();
      await proc.exited;
    },
  };
}

export interface TokenRequest {
  grant_type: string;
  /** The client authenticated with HTTP basic. */
  basic: boolean;
  /** A client_secret arrived in the form body. */
  post_secret: boolean;
  client_id: string | null;
  resource: string | null;
  scope: string | null;
}

export interface MockAs {
  server: OAuth2Server;
  issuer: string;
  /** Every token request the mock answered, in order. */
  tokenRequests: TokenRequest[];
  /** Every access token it issued (to grep outputs for). */
  issued: string[];
  /** Refresh tokens it issued. */
  refreshTokens: string[];
  /** Lifetime of the next tokens, seconds (default 3600). */
  expiresIn: number;
  stop(): Promise<void>;
}

/** oauth2-mock-server in-process on 127.0.0.1; its issuer is reported as http://localhost:<port>. */
export async function startMockAs(): Promise<MockAs> {
  const server = new OAuth2Server();
  await server.issuer.keys.generate("RS256");
  await server.start(0, "127.0.0.1");
  const as: MockAs = {
    server,
    issuer: server.issuer.url ?? "",
    tokenRequests: [],
    issued: [],
    refreshTokens: [],
    expiresIn: 3600,
    stop: () => server.stop(),
  };
  server.service.on(
    "beforeResponse",
    (res: { body: Record<string, unknown> }, req: { body?: unknown; headers: Record<string, string | undefined> }) => {
      const body = (req.body ?? {}) as Record<string, unknown>;
      const str = (v: unknown) => (typeof v === "string" ? v : null);
      as.tokenRequests.push({
        grant_type: String(body.grant_type),
        basic: (req.headers.authorization ?? "").toLowerCase().startsWith("basic "),
        post_secret: typeof body.client_secret === "string",
        client_id: str(body.client_id),
        resource: str(body.resource),
        scope: str(body.scope),
      });
      res.body.expires_in = as.expiresIn;
      if (typeof res.body.access_token === "string") as.issued.push(res.body.access_token);
      if (typeof res.body.refresh_token === "string") as.refreshTokens.push(res.body.refresh_token);
    },
  );
  return as;
}

export interface ResourceServer {
  url: string;
  /** Bearer tokens the MCP endpoint accepted and refused. */
  accepted: string[];
  refused: number;
  /** Refuses every token accepted so far (a revocation the client learns of by a 401). */
  revoke(): void;
  stop(): void;
}

/**
 * A lemon-owned resource server: the SDK's McpServer (tool `echo`) over the web-standard
 * Streamable HTTP transport (stateless), behind a bearer check that verifies the mock's JWTs with
 * its /jwks and issuer; 401 carries `resource_metadata`, and the PRM names the mock issuer.
 */
export function startResourceServer(as: MockAs, opts: { scopes?: string[] } = {}): ResourceServer {
  const jwks = createRemoteJWKSet(new URL(`${as.issuer}/jwks`));
  const revoked = new Set<string>();
  const rs: ResourceServer = {
    url: "",
    accepted: [],
    refused: 0,
    revoke: () => {
      for (const t of rs.accepted) revoked.add(t);
    },
    stop: () => {},
  };
  let origin = "";
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req): Promise<Response> {
      const url = new URL(req.url);
      const prm = `${origin}/.well-known/oauth-protected-resource/mcp`;
      if (
        url.pathname === "/.well-known/oauth-protected-resource/mcp" ||
        url.pathname === "/.well-known/oauth-protected-resource"
      )
        return Response.json({
          resource: `${origin}/mcp`,
          authorization_servers: [as.issuer],
          scopes_supported: opts.scopes ?? ["mcp"],
          bearer_methods_supported: ["header"],
        });
      if (url.pathname !== "/mcp") return new Response("not found", { status: 404 });
      const auth = req.headers.get("authorization") ?? "";
      const token = /^Bearer (.+)$/i.exec(auth)?.[1];
      const challenge = { "www-authenticate": `Bearer resource_metadata="${prm}"` };
      if (token === undefined) {
        rs.refused++;
        return new Response("unauthorized", { status: 401, headers: challenge });
      }
      try {
        if (revoked.has(token)) throw new Error("revoked");
        await jwtVerify(token, jwks, { issuer: as.issuer });
      } catch {
        rs.refused++;
        return new Response("unauthorized", {
          status: 401,
          headers: { "www-authenticate": `Bearer error="invalid_token", resource_metadata="${prm}"` },
        });
      }
      rs.accepted.push(token);
      const mcp = new McpServer({ name: "lemon-oauth-fixture", version: "1.0.0" });
      mcp.registerTool(
        "echo",
        { description: "Echoes its text", inputSchema: { text: z.string() } },
        async ({ text }) => ({
          content: [{ type: "text", text: `echo: ${text}` }],
        }),
      );
      const transport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: true,
      });
      await mcp.connect(transport);
      return transport.handleRequest(req);
    },
  });
  origin = `http://127.0.0.1:${server.port}`;
  rs.url = `${origin}/mcp`;
  rs.stop = () => server.stop(true);
  return rs;
}

function echoServer(): McpServer {
  const mcp = new McpServer({ name: "lemon-oauth-fixture", version: "1.0.0" });
  mcp.registerTool("echo", { description: "Echoes its text", inputSchema: { text: z.string() } }, async ({ text }) => ({
    content: [{ type: "text", text: `echo: ${text}` }],
  }));
  return mcp;
}

/**
 * The same bearer check in front of legacy HTTP+SSE (mcp.md §5.3): `GET /sse` opens the stream,
 * `POST /messages?sessionId=…` carries requests; both need the mock's JWT.
 */
export async function startSseResourceServer(as: MockAs): Promise<ResourceServer> {
  const jwks = createRemoteJWKSet(new URL(`${as.issuer}/jwks`));
  const transports = new Map<string, SSEServerTransport>();
  const rs: ResourceServer = { url: "", accepted: [], refused: 0, revoke: () => {}, stop: () => {} };
  let origin = "";
  const server = createHttpServer(async (req, res) => {
    const url = new URL(req.url ?? "/", origin);
    if (url.pathname.startsWith("/.well-known/oauth-protected-resource")) {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({ resource: `${origin}/sse`, authorization_servers: [as.issuer], scopes_supported: ["mcp"] }),
      );
      return;
    }
    const token = /^Bearer (.+)$/i.exec(req.headers.authorization ?? "")?.[1];
    let ok = false;
    if (token !== undefined)
      try {
        await jwtVerify(token, jwks, { issuer: as.issuer });
        ok = true;
      } catch {}
    if (!ok || token === undefined) {
      rs.refused++;
      res.writeHead(401, {
        "www-authenticate": `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource/sse"`,
      });
      res.end("unauthorized");
      return;
    }
    rs.accepted.push(token);
    if (req.method === "GET" && url.pathname === "/sse") {
      const t = new SSEServerTransport("/messages", res);
      transports.set(t.sessionId, t);
      res.on("close", () => transports.delete(t.sessionId));
      await echoServer().connect(t);
      return;
    }
    const t = transports.get(url.searchParams.get("sessionId") ?? "");
    if (req.method === "POST" && url.pathname === "/messages" && t !== undefined) {
      await t.handlePostMessage(req, res);
      return;
    }
    res.writeHead(404);
    res.end();
  });
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  const a = server.address();
  origin = `http://127.0.0.1:${typeof a === "object" && a !== null ? a.port : 0}`;
  rs.url = `${origin}/sse`;
  rs.stop = () => {
    server.closeAllConnections();
    server.close();
  };
  return rs;
}
