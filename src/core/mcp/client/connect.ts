/**
 * @module mcp/client/connect
 * One live connection to one configured server (mcp.md §5): the transport of its entry, the
 * handshake of §5.4 and requests with timeouts, progress and aborts. This module never loads the
 * SDK itself: the session code (and with it `@modelcontextprotocol/sdk`) arrives through
 * `import()` the first time a server is contacted, so `mcp list` and the skill commands, which
 * reach this module through the host, never parse it.
 *
 * Every failure is a LemonError whose message is one of the fixed `last_error` strings of §13:
 * no command, argument, URL, header or env value and no server stderr ever reaches one.
 */
import type { LemonContext } from "../../context.ts";
import { LemonError } from "../../errors.ts";
import type { McpServerConfig, Transport } from "../types.ts";

/** The fixed, redacted reasons of mcp.md §13 a connection can fail or close with. */
export type CloseReason =
  | "connection failed"
  | "connection closed"
  | "handshake timed out"
  | "initialize failed"
  | "protocol error"
  | "session expired"
  | "authorization required"
  | "authorization failed"
  | "spawn failed"
  | "spawn failed: command not found"
  | "message exceeds 8 MiB limit";

export type ListKind = "tools" | "resources" | "prompts";

export interface RequestOptions {
  timeoutMs: number;
  signal?: AbortSignal;
  /** Called on each progress notification; the timeout restarts (total ≤ 300,000 ms). */
  onProgress?: () => void;
}

export interface ServerConnection {
  readonly serverInfo: { name: string; version: string } | null;
  readonly protocolVersion: string | null;
  readonly capabilities: { tools: boolean; resources: boolean; prompts: boolean };
  /**
   * A JSON-RPC request. Errors are LemonErrors: `TIMEOUT` (`MCP request timed out after <ms> ms`),
   * `OPERATION_FAILED` `MCP server disconnected during the call`, `OPERATION_FAILED`
   * `MCP server error <code>: <message>` for a JSON-RPC error answer, `OPERATION_FAILED`
   * `request aborted` when `signal` fires.
   */
  request(method: string, params: Record<string, unknown> | undefined, opts: RequestOptions): Promise<unknown>;
  /** A paginated list (≤ 50 pages, ≤ 1,000 items; `truncated` when either cap cut it short). */
  list(kind: ListKind, opts?: { timeoutMs?: number }): Promise<{ items: unknown[]; truncated: boolean }>;
  /** Server notifications other than progress and logging (e.g. `notifications/tools/list_changed`). */
  onNotification(listener: (method: string, params: unknown) => void): () => void;
  /** Called once on an unexpected disconnect with the fixed, redacted reason of §13. */
  onClose(listener: (reason: CloseReason) => void): () => void;
  /** The last `bytes` of the server's stderr (stdio) and log notifications; for `--verbose` only. */
  stderrTail(bytes: number): string;
  /** Ends the connection (stdio: the §5.1 shutdown ladder; HTTP: DELETE of the session). */
  close(): Promise<void>;
}

/**
 * What a connection needs of a configured server; an `EffectiveServer` fits. `entry` must be
 * expanded already (`expandEntry`), since the caller also reports its warnings.
 */
export interface ConnectableServer {
  readonly name: string;
  readonly type: Transport;
  readonly server: { readonly entry: McpServerConfig };
  /** The entry's source label: OAuth honours `authorization_approval: false` only from lemon:global / lemon:config. */
  readonly source?: string;
}

/** What the OAuth flows of mcp.md §11.4 may do for this caller (the CLI's prompt and opener, the module's options). */
export interface OAuthCallbacks {
  /** The approval before an authorization URL is shown or opened (default deny). */
  approve(req: import("../oauth/session.ts").OAuthApprovalAsk): Promise<boolean>;
  /** Shows or opens the URL of `server`'s flow (after approval only). */
  openUrl(url: string, server: string): Promise<void>;
  /** `--headless-auth`: lemon follows the authorization redirect itself. */
  headless: boolean;
  /** False: never start a PKCE flow; a server that needs one fails `authorization required`. */
  interactive: boolean;
  /** An entry without `oauth` answered with an OAuth challenge (status then reports it as OAuth). */
  onDetected?(server: string): void;
}

export interface ConnectOptions {
  ctx: LemonContext;
  /** Project directory `C`: the stdio default cwd and the one root answered to `roots/list`. */
  cwd: string;
  /** Connect + initialize budget; default the entry's `ready_timeout_ms`, else 5,000 ms. */
  timeoutMs?: number;
  /** Request timeout default (`timeout_ms`, else 10,000 ms), used by `list`. */
  requestTimeoutMs?: number;
  signal?: AbortSignal;
  /** Where stderr and log lines go; given by `mcp test --verbose`, which shows them even when the connect fails. */
  ring?: OutputRing;
  /** OAuth for HTTP and SSE servers (mcp.md §11); absent: stored tokens and non-interactive flows only. */
  oauth?: OAuthCallbacks;
  /** OAuth sessions kept across the connections of one host, by configuration (auth-fetch.ts). */
  authSessions?: Map<string, Promise<import("./auth-fetch.ts").FullSession>>;
  /** Wraps the HTTP transports' fetch (set by connectServer for OAuth; the transports apply it). */
  wrapFetch?: (base: FetchFn) => FetchFn;
  /** The embedder's sampling delegate (mcp.md §10); without it sampling is never advertised. */
  sampling?: import("./sampling.ts").SamplingHost;
}

export type FetchFn = (url: string | URL, init?: RequestInit) => Promise<Response>;

/** A bounded store of server stderr and log lines (transport/ring.ts `TextRing`). */
export interface OutputRing {
  push(data: string | Uint8Array): void;
  tail(bytes?: number): string;
}

export const DEFAULT_READY_TIMEOUT_MS = 5_000;
export const DEFAULT_REQUEST_TIMEOUT_MS = 10_000;
export const MAX_TOTAL_TIMEOUT_MS = 300_000;

/**
 * A connection failure with its fixed §13 reason as the message. The underlying error is never
 * kept as `cause`: SDK and fetch errors quote URLs, response bodies and spawn paths.
 */
export function connectError(reason: CloseReason): LemonError {
  const code =
    reason === "handshake timed out"
      ? "TIMEOUT"
      : reason === "authorization required" || reason === "authorization failed"
        ? "UNAUTHORIZED"
        : "UNAVAILABLE";
  return new LemonError(code, reason, { details: { reason } });
}

/**
 * Connects and completes the handshake, or fails with a LemonError carrying a §13 reason (OAuth
 * failures keep their own fixed message, with `authorization required|failed` as the reason).
 * An HTTP or SSE server gets OAuth (mcp.md §11): a challenge in the handshake is answered between
 * two attempts, outside the handshake's timer (a browser login may take minutes).
 */
export async function connectServer(server: ConnectableServer, opts: ConnectOptions): Promise<ServerConnection> {
  if (opts.signal?.aborted) throw connectError("connection failed");
  if (server.type !== "stdio") {
    const [{ openSession }, { serverAuthFor, authError }] = await Promise.all([
      import("./transport/session.ts"),
      import("./auth-fetch.ts"),
    ]);
    const auth = await serverAuthFor(server, opts);
    if (auth === null) return openSession(server, opts);
    const attempt = async () => {
      auth.deferring = true;
      const conn = await openSession(server, { ...opts, wrapFetch: (f) => auth.wrap(f) });
      auth.deferring = false;
      return conn;
    };
    try {
      return await attempt();
    } catch (err) {
      if (auth.pending === null) throw err;
    }
    try {
      await auth.resolve();
    } catch (err) {
      throw authError(err);
    }
    return attempt();
  }
  // The child starts before the SDK loads (stdio.ts needs none of it): the two overlap.
  const { startStdio } = await import("./transport/stdio.ts");
  const started = startStdio(server, opts);
  let session: typeof import("./transport/session.ts");
  try {
    session = await import("./transport/session.ts");
  } catch (err) {
    await started.transport.close().catch(() => {});
    throw err;
  }
  return session.openSession(server, opts, started);
}
