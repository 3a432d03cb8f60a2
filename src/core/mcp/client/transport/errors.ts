/**
 * @module mcp/client/transport/errors
 * SDK failures as lemon's fixed reasons (mcp.md §13) and call errors (§9). Nothing a server,
 * a URL or a command said is copied into a message, except a remote JSON-RPC error's own text,
 * cleaned of control characters and clamped, for the caller of that request.
 */
import { StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { SseError } from "@modelcontextprotocol/sdk/client/sse.js";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { LemonError } from "../../../errors.ts";
import type { CloseReason } from "../connect.ts";
import { errorOrigin } from "./protocol.ts";

const REASONS = new Set<string>([
  "connection failed",
  "connection closed",
  "handshake timed out",
  "initialize failed",
  "protocol error",
  "session expired",
  "authorization required",
  "authorization failed",
  "spawn failed",
  "spawn failed: command not found",
  "message exceeds 8 MiB limit",
]);

export function isCloseReason(s: unknown): s is CloseReason {
  return typeof s === "string" && REASONS.has(s);
}

function httpStatusReason(status: number | undefined): CloseReason {
  if (status === 401) return "authorization required";
  if (status === 403) return "authorization failed";
  if (status === undefined || status < 0) return "protocol error";
  if (status >= 300 && status < 400) return "protocol error";
  return "initialize failed";
}

/** The reason a connect attempt failed. `known` is what the transport itself recorded. */
export function connectReason(err: unknown, known: CloseReason | null): CloseReason {
  if (known !== null && known !== "connection closed") return known;
  if (LemonError.is(err) && isCloseReason(err.message)) return err.message;
  if (err instanceof UnauthorizedError) return "authorization required";
  if (err instanceof StreamableHTTPError) return httpStatusReason(err.code);
  if (err instanceof SseError) return err.code === 401 ? "authorization required" : "connection failed";
  if (err instanceof McpError) {
    const tag = typeof err.data === "object" && err.data !== null ? errorOrigin.get(err.data) : undefined;
    if (tag?.origin === "protocol") return "protocol error";
    if (tag === undefined && err.code === ErrorCode.RequestTimeout) return "handshake timed out";
    if (err.code === ErrorCode.ConnectionClosed) return known ?? "connection closed";
    return "initialize failed";
  }
  if (err instanceof Error) {
    if (/protocol version is not supported|origin does not match/i.test(err.message)) return "protocol error";
    // zod: a malformed initialize result.
    if (err.name === "ZodError" || err.name === "$ZodError") return "protocol error";
  }
  // A fetch that never reached a server (refused, reset, DNS): the transport's own close that
  // followed says "connection closed", which would hide it.
  return "connection failed";
}

/** Control characters out, at most 200 characters: remote text for one line of an error. */
export function cleanRemoteText(s: string): string {
  const flat = s.replace(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]+/g, " ").trim();
  return flat.length > 200 ? `${flat.slice(0, 199)}…` : flat;
}

export const DISCONNECTED = "MCP server disconnected during the call";

/** A failed request as the LemonError of mcp.md §9. */
export function requestError(err: unknown, timeoutMs: number, disconnected = false, aborted = false): LemonError {
  if (aborted) return new LemonError("OPERATION_FAILED", "request aborted");
  if (LemonError.is(err)) {
    if (err.message === "session expired") return err;
    // The transport ended under the call (8 MiB cap, stream closed): the call is lost, not refused.
    if (isCloseReason(err.message) || disconnected) return new LemonError("OPERATION_FAILED", DISCONNECTED);
    return err;
  }
  if (err instanceof McpError) {
    const tag = typeof err.data === "object" && err.data !== null ? errorOrigin.get(err.data) : undefined;
    if (tag?.origin === "protocol") return new LemonError("OPERATION_FAILED", "protocol error");
    if (tag === undefined && err.code === ErrorCode.RequestTimeout)
      return new LemonError("TIMEOUT", `MCP request timed out after ${timeoutMs} ms`);
    if (tag === undefined && err.code === ErrorCode.ConnectionClosed)
      return new LemonError("OPERATION_FAILED", DISCONNECTED);
    const raw = err.message.replace(/^MCP error -?\d+: /, "");
    return new LemonError("OPERATION_FAILED", `MCP server error ${err.code}: ${cleanRemoteText(raw)}`, {
      details: { rpc_code: err.code },
    });
  }
  if (disconnected) return new LemonError("OPERATION_FAILED", DISCONNECTED);
  if (err instanceof StreamableHTTPError) {
    const status = httpStatusReason(err.code);
    const reason = status === "initialize failed" ? "connection failed" : status;
    return new LemonError(reason.startsWith("authorization") ? "UNAUTHORIZED" : "UNAVAILABLE", reason);
  }
  if (err instanceof Error && (err.name === "ZodError" || err.name === "$ZodError"))
    return new LemonError("OPERATION_FAILED", "protocol error");
  return new LemonError("UNAVAILABLE", "connection failed");
}
