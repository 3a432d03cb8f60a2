/**
 * @module mcp/oauth/loopback
 * The redirect listener of a PKCE flow (mcp.md §11.4): bound to 127.0.0.1 only (even for a
 * `localhost` redirect URI), on the configured or registered port or an ephemeral one. It
 * accepts one GET of the callback path carrying the flow's `state`, answers a fixed page that
 * reflects nothing, and closes; anything else is a 404. A wrong `state` or `iss` fails the flow,
 * and a server's `error_description` is never shown.
 */
import { fail } from "./net.ts";
import { sameIssuer } from "./discovery.ts";

const PAGE = "<!doctype html><title>lemon</title><p>Authorization complete. You can close this window.</p>\n";
const FAILED = "<!doctype html><title>lemon</title><p>Authorization failed. You can close this window.</p>\n";
/** How long the browser's answer gets to leave before the flow settles (and the CLI may exit). */
const ANSWER_GRACE_MS = 50;

export const DEFAULT_CALLBACK_PATH = "/callback";

/** The listener could not bind the requested port. */
export class PortBusy extends Error {}

export interface CallbackWait {
  state: string;
  issuer: string;
  /** `authorization_response_iss_parameter_supported`: `iss` must then be present. */
  requireIss: boolean;
  timeoutMs: number;
  signal?: AbortSignal;
}

export interface Listener {
  redirectUri: string;
  port: number;
  /** The authorization code, once the callback arrived. */
  wait(w: CallbackWait): Promise<string>;
  close(): void;
}

/** Binds the listener; `redirectUri` null = ephemeral port with `/callback`. Throws PortBusy. */
export function startListener(redirectUri: string | null): Listener {
  const wanted = redirectUri === null ? null : new URL(redirectUri);
  const path = wanted?.pathname && wanted.pathname !== "" ? wanted.pathname : DEFAULT_CALLBACK_PATH;
  const port = wanted === null ? 0 : Number(wanted.port || "80");
  let onRequest: ((url: URL) => Response) | null = null;
  let server: ReturnType<typeof Bun.serve>;
  try {
    server = Bun.serve({
      hostname: "127.0.0.1",
      port,
      reusePort: false,
      fetch(req) {
        const url = new URL(req.url);
        if (req.method !== "GET" || url.pathname !== path || onRequest === null)
          return new Response("not found\n", { status: 404 });
        return onRequest(url);
      },
    });
  } catch (err) {
    throw new PortBusy(err instanceof Error ? err.message : "port busy");
  }
  const actual = server.port ?? port;
  const uri = wanted === null ? `http://127.0.0.1:${actual}${path}` : wanted.href;
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    void server.stop(true);
  };
  return {
    redirectUri: uri,
    port: actual,
    close,
    wait(w) {
      return new Promise<string>((resolve, reject) => {
        let settled = false;
        const finish = (err: Error | null, code?: string) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          w.signal?.removeEventListener("abort", onAbort);
          onRequest = null;
          // The answer leaves first: settling lets the CLI exit, which would cut the browser off.
          setTimeout(() => {
            close();
            if (err) reject(err);
            else resolve(code!);
          }, ANSWER_GRACE_MS);
        };
        const timer = setTimeout(() => finish(fail("authorization timed out")), w.timeoutMs);
        const onAbort = () => finish(fail("authorization cancelled"));
        w.signal?.addEventListener("abort", onAbort, { once: true });
        const page = (status: number) =>
          new Response(status === 200 ? PAGE : FAILED, {
            status,
            headers: { "content-type": "text/html; charset=utf-8" },
          });
        onRequest = (url) => {
          const q = url.searchParams;
          // mcp.md §11.4: a mismatched state fails the flow. A local page could so end a pending
          // login, but waiting on would let it probe the listener at will; one bad request ends it.
          if (q.get("state") !== w.state) {
            finish(fail("authorization callback state mismatch"));
            return page(400);
          }
          const iss = q.get("iss");
          if ((iss === null && w.requireIss) || (iss !== null && !sameIssuer(iss, w.issuer))) {
            finish(fail("authorization callback issuer mismatch"));
            return page(400);
          }
          const code = q.get("code");
          if (q.get("error") !== null || code === null || code === "") {
            finish(fail("authorization denied"));
            return page(400);
          }
          finish(null, code);
          return page(200);
        };
      });
    },
  };
}
