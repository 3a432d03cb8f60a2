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
  /** The embedder's sampling delegate (mcp.md §10); without it sampling is never advertised. */
  sampling?: import("./sampling.ts").SamplingHost;
}

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
 * Connects and completes the handshake, or fails with a LemonError carrying a §13 reason.
 * OAuth-configured servers answer `authorization required` until OAuth lands (mcp.md §11).
 */
export async function connectServer(server: ConnectableServer, opts: ConnectOptions): Promise<ServerConnection> {
  if (opts.signal?.aborted) throw connectError("connection failed");
  if (server.type !== "stdio" && server.server.entry.oauth !== undefined) throw connectError("authorization required");
  if (server.type !== "stdio") return (await import("./transport/session.ts")).openSession(server, opts);
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
