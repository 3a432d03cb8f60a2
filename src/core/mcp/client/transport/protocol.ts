/**
 * @module mcp/client/transport/protocol
 * Messages between the main thread and the stdio worker (mcp.md §5.1). The worker owns the child
 * process and every byte it writes: the main thread receives parsed, structured-cloned messages
 * and stderr text only.
 */
import type { CloseReason } from "../connect.ts";

/** What the worker needs to start the child; `env` is the complete child environment. */
export interface StdioSpawnSpec {
  command: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  /** `process.platform` of the host, for the PATHEXT and `.cmd` rules. */
  platform: string;
}

export type ToWorker = { type: "start"; spec: StdioSpawnSpec } | { type: "send"; message: unknown } | { type: "close" };

export type FromWorker =
  | { type: "spawned" }
  /** The child could not start, or the connection ended: a fixed §13 reason, never the command. */
  | { type: "failed"; reason: CloseReason }
  | { type: "message"; message: Record<string, unknown> }
  /** stderr and rendered log notifications, batched: a chatty server costs ≤ 10 posts a second. */
  | { type: "stderr"; text: string }
  /** A line that looked like a response but could not be parsed (too deep): its id fails at once. */
  | { type: "unparsable"; id: string | number }
  /** The child exited (or was closed for a reason) and the worker is done with it. */
  | { type: "exited"; reason: CloseReason | null };

/** The largest single message (bytes up to a newline) either side accepts. */
export const MAX_MESSAGE_BYTES = 8 * 1024 * 1024;
export const SHUTDOWN_TERM_AFTER_MS = 2_000;
export const SHUTDOWN_KILL_AFTER_MS = 3_000;

/**
 * Where an error answer came from, keyed by the `data` object the SDK's McpError keeps: the SDK
 * reuses the codes -32000 (connection closed) and -32001 (timeout) for its own failures, and a
 * server's error answer must not be read as one of those.
 */
export const errorOrigin = new WeakMap<object, { origin: "remote" | "protocol"; data: unknown }>();

/** Tags an incoming error answer's `data` so request errors can tell it from the SDK's own. */
export function tagErrorAnswer(message: unknown, origin: "remote" | "protocol"): void {
  if (typeof message !== "object" || message === null || "method" in message) return;
  const error = (message as { error?: unknown }).error;
  if (typeof error !== "object" || error === null) return;
  const e = error as { data?: unknown };
  if (typeof e.data === "object" && e.data !== null && errorOrigin.has(e.data)) return;
  const tag = {};
  errorOrigin.set(tag, { origin, data: e.data });
  e.data = tag;
}
