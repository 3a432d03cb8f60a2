/**
 * @module mcp/client/transport/fetch
 * The fetch the HTTP transports use (mcp.md §5.2, §5.3): redirects of a POST are refused (a
 * JSON-RPC body must not be replayed at a URL the configuration never named), and every message
 * of a response is capped at 8 MiB: a JSON body as a whole, an SSE body per event.
 */
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import { connectError } from "../connect.ts";
import { MAX_MESSAGE_BYTES } from "./protocol.ts";

/** Counts the bytes of the current SSE event (a blank line ends one; CR is ignored). */
function sseCounter(): (chunk: Uint8Array) => boolean {
  let count = 0;
  let lastWasLf = false;
  return (chunk) => {
    for (let i = 0; i < chunk.length; i++) {
      const b = chunk[i]!;
      if (b === 10) {
        if (lastWasLf) count = 0;
        lastWasLf = true;
      } else if (b !== 13) {
        lastWasLf = false;
        if (++count > MAX_MESSAGE_BYTES) return false;
      }
    }
    return true;
  };
}

function capped(response: Response, onOverflow: () => void): Response {
  if (!response.body) return response;
  const sse = (response.headers.get("content-type") ?? "").toLowerCase().includes("text/event-stream");
  let total = 0;
  const sseOk = sse ? sseCounter() : null;
  const body = response.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, ctl) {
        total += chunk.length;
        const ok = sseOk ? sseOk(chunk) : total <= MAX_MESSAGE_BYTES;
        if (!ok) {
          onOverflow();
          ctl.error(connectError("message exceeds 8 MiB limit"));
          return;
        }
        ctl.enqueue(chunk);
      },
    }),
  );
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}

/** A fetch that refuses POST redirects and caps messages, calling `onOverflow` when one is cut. */
export function guardedFetch(onOverflow: () => void, base: typeof fetch = fetch): FetchLike {
  return async (url, init) => {
    const method = (init?.method ?? "GET").toUpperCase();
    const response = await base(url, { ...init, redirect: "manual" });
    if (method === "POST" && response.status >= 300 && response.status < 400) {
      await response.body?.cancel().catch(() => {});
      throw connectError("protocol error");
    }
    return capped(response, onOverflow);
  };
}
