/**
 * @module mcp/client/transport/sse
 * Legacy HTTP+SSE (mcp.md §5.3) around the SDK transport: the `endpoint` event must arrive within
 * `ready_timeout_ms` (else `handshake timed out`) and be same-origin (the SDK refuses others:
 * `protocol error`); once connected, an error on the event stream is the end of the connection,
 * never a silent reconnect into a session that was never initialized.
 */
import { SSEClientTransport, SseError } from "@modelcontextprotocol/sdk/client/sse.js";
import type { FetchLike, Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { connectError, type CloseReason } from "../connect.ts";
import { guardedFetch } from "./fetch.ts";

export class SseTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T) => void;
  reason: CloseReason | null = null;
  protocolVersion: string | null = null;

  private readonly inner: SSEClientTransport;
  private started = false;
  private done = false;

  constructor(
    url: URL,
    headers: Record<string, string>,
    private readonly readyMs: number,
    /** OAuth's bearer and challenge handling (auth-fetch.ts), around the capped fetch. */
    wrap?: (base: FetchLike) => FetchLike,
  ) {
    const guarded = guardedFetch(() => this.fail("message exceeds 8 MiB limit"));
    this.inner = new SSEClientTransport(url, {
      requestInit: { headers },
      fetch: wrap ? wrap(guarded) : guarded,
    });
    this.inner.onmessage = (m: JSONRPCMessage) => this.onmessage?.(m);
    this.inner.onerror = (e: Error) => {
      if (this.started && e instanceof SseError) this.fail("connection closed");
      else this.onerror?.(e);
    };
    this.inner.onclose = () => this.finish();
  }

  async start(): Promise<void> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(connectError("handshake timed out")), this.readyMs);
    });
    try {
      await Promise.race([this.inner.start(), late]);
      this.started = true;
    } finally {
      clearTimeout(timer);
    }
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (this.done) return Promise.reject(connectError(this.reason ?? "connection closed"));
    return this.inner.send(message);
  }

  setProtocolVersion(version: string): void {
    this.protocolVersion = version;
    this.inner.setProtocolVersion?.(version);
  }

  private fail(reason: CloseReason): void {
    this.reason ??= reason;
    void this.close();
  }

  async close(): Promise<void> {
    await this.inner.close().catch(() => {});
    this.finish();
  }

  private finish(): void {
    if (this.done) return;
    this.done = true;
    this.reason ??= "connection closed";
    this.onclose?.();
  }
}
