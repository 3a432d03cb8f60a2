// A real smart-HTTP git server on loopback: Bun.serve in front of `git http-backend` (CGI), so
// installs clone over http:// exactly as they would from a forge, with no internet.
//
//   const srv = gitHttpServer(box.root);              // serves every <name>.git under box.root
//   const url = `${srv.url}/skills.git`;              // http://127.0.0.1:<port>/skills.git
//   …; srv.stop();
//
// `hangServer()` accepts connections and never answers (for TIMEOUT tests); `srv.requests`
// counts what reached the server (e.g. to prove a rejected input never made a request).
import { gitTestEnv } from "./git-repos.ts";

export interface TestServer {
  /** Base URL without a trailing slash, e.g. http://127.0.0.1:41234 */
  url: string;
  /** Request paths seen so far ("/skills.git/info/refs?service=git-upload-pack", …). */
  requests: string[];
  stop(): void;
}

async function cgi(projectRoot: string, req: Request, extraEnv: Record<string, string>): Promise<Response> {
  const u = new URL(req.url);
  const env: Record<string, string> = {
    ...gitTestEnv(),
    GIT_PROJECT_ROOT: projectRoot,
    GIT_HTTP_EXPORT_ALL: "1",
    PATH_INFO: decodeURIComponent(u.pathname),
    QUERY_STRING: u.search.replace(/^\?/, ""),
    REQUEST_METHOD: req.method,
    CONTENT_TYPE: req.headers.get("content-type") ?? "",
    REMOTE_ADDR: "127.0.0.1",
    SERVER_PROTOCOL: "HTTP/1.1",
    ...extraEnv,
  };
  // Protocol v2 is negotiated through this header; http-backend reads it from GIT_PROTOCOL.
  const proto = req.headers.get("git-protocol");
  if (proto) env.GIT_PROTOCOL = proto;
  const body = req.method === "POST" ? new Uint8Array(await req.arrayBuffer()) : undefined;
  // Clients gzip large POST bodies; http-backend handles `Content-Encoding: gzip` itself when told.
  const enc = req.headers.get("content-encoding");
  if (enc) env.HTTP_CONTENT_ENCODING = enc;
  if (body) env.CONTENT_LENGTH = String(body.byteLength);
  const p = Bun.spawn(["git", "http-backend"], {
    env,
    stdin: body ?? "ignore",
    stdout: "pipe",
    stderr: "ignore",
  });
  const out = new Uint8Array(await new Response(p.stdout).arrayBuffer());
  await p.exited;
  // CGI output: headers, a blank line (CRLF or LF), then the body.
  let split = -1;
  let sep = 0;
  for (let i = 0; i < out.length - 1; i++) {
    if (out[i] === 10 && out[i + 1] === 10) {
      split = i;
      sep = 2;
      break;
    }
    if (out[i] === 13 && out[i + 1] === 10 && out[i + 2] === 13 && out[i + 3] === 10) {
      split = i;
      sep = 4;
      break;
    }
  }
  if (split < 0) return new Response("bad gateway", { status: 502 });
  const head = new TextDecoder().decode(out.subarray(0, split));
  const headers = new Headers();
  let status = 200;
  for (const line of head.split(/\r?\n/)) {
    const i = line.indexOf(":");
    if (i < 0) continue;
    const name = line.slice(0, i).trim();
    const value = line.slice(i + 1).trim();
    if (name.toLowerCase() === "status") status = Number.parseInt(value, 10) || 200;
    else headers.append(name, value);
  }
  return new Response(out.subarray(split + sep), { status, headers });
}

export interface GitHttpOptions {
  /** Waits this long before answering each upload-pack POST (the pack), to make a clone "slow". */
  delayMs?: number;
  /** Ignore the client's Git-Protocol header: the server speaks protocol v0, which refuses unadvertised commits. */
  protocolV0?: boolean;
}

/**
 * Serves every bare repository under `projectRoot` (by its path relative to it) over smart HTTP.
 * `env` adds CGI environment (e.g. GIT_CONFIG_PARAMETERS to change upload-pack settings).
 */
export function gitHttpServer(
  projectRoot: string,
  env: Record<string, string> = {},
  opts: GitHttpOptions = {},
): TestServer {
  const requests: string[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 0,
    async fetch(req) {
      const u = new URL(req.url);
      requests.push(u.pathname + u.search);
      if (opts.delayMs && req.method === "POST") await Bun.sleep(opts.delayMs);
      if (opts.protocolV0) {
        const headers = new Headers(req.headers);
        headers.delete("git-protocol");
        return cgi(projectRoot, new Request(req, { headers }), env);
      }
      return cgi(projectRoot, req, env);
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, requests, stop: () => server.stop(true) };
}

/** A server that accepts every request and never answers (until stopped). */
export function hangServer(): TestServer {
  const requests: string[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 0,
    fetch(req) {
      const u = new URL(req.url);
      requests.push(u.pathname + u.search);
      return new Promise<Response>(() => {});
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, requests, stop: () => server.stop(true) };
}

/** A plain HTTP server from a route table (for well-known sources); unknown paths 404. */
export function staticServer(
  routes: Record<string, string | Uint8Array | ((req: Request) => Response | Promise<Response>)>,
): TestServer {
  const requests: string[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      const u = new URL(req.url);
      requests.push(u.pathname + u.search);
      const r = routes[u.pathname];
      if (r === undefined) return new Response("not found", { status: 404 });
      if (typeof r === "function") return r(req);
      return new Response(r);
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, requests, stop: () => server.stop(true) };
}
