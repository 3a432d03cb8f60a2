/**
 * @module mcp/client/transport/http
 * Streamable HTTP (mcp.md §5.2) around the SDK transport, adding what it lacks: when a request
 * carrying a session id gets 404 (the server forgot the session), the id is dropped, the session
 * re-initialized once with the original `initialize` and the failed message sent once more; a
 * second 404 ends the connection with `session expired`. The re-initialization's messages never
 * reach the SDK client, whose view of the session stays the same. Close sends DELETE.
 */
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { FetchLike, Transport, TransportSendOptions } from "@modelcontextprotocol/sdk/shared/transport.js";
import { isInitializeRequest, type JSONRPCMessage, type JSONRPCRequest } from "@modelcontextprotocol/sdk/types.js";
import { connectError, DEFAULT_REQUEST_TIMEOUT_MS, type CloseReason } from "../connect.ts";
import { guardedFetch } from "./fetch.ts";

const is404 = (e: unknown) => e instanceof StreamableHTTPError && e.code === 404;

type Pending = { resolve: (m: JSONRPCMessage) => void; reject: (e: unknown) => void };

export class HttpTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T) => void;
  reason: CloseReason | null = null;
  protocolVersion: string | null = null;

  private inner: StreamableHTTPClientTransport;
  private initRequest: JSONRPCRequest | null = null;
  /** Bumped by each re-initialization, so requests that failed on the old session re-send only. */
  private generation = 0;
  private reinit: Promise<void> | null = null;
  private pending = new Map<string, Pending>();
  private reinits = 0;
  private done = false;
  private readonly fetch: FetchLike;

  constructor(
    private readonly url: URL,
    private readonly headers: Record<string, string>,
    private readonly reinitTimeoutMs = DEFAULT_REQUEST_TIMEOUT_MS,
    /** OAuth's bearer and challenge handling (auth-fetch.ts), around the capped fetch. */
    wrap?: (base: FetchLike) => FetchLike,
  ) {
    const guarded = guardedFetch(() => this.fail("message exceeds 8 MiB limit"));
    this.fetch = wrap ? wrap(guarded) : guarded;
    this.inner = this.make();
  }

  get sessionId(): string | undefined {
    return this.inner.sessionId;
  }

  private make(): StreamableHTTPClientTransport {
    const t = new StreamableHTTPClientTransport(this.url, {
      requestInit: { headers: this.headers },
      fetch: this.fetch,
    });
    t.onmessage = (m: JSONRPCMessage) => {
      if (t !== this.inner) return;
      const id = "id" in m && typeof m.id === "string" ? m.id : null;
      const waiter = id !== null ? this.pending.get(id) : undefined;
      if (waiter && !("method" in m)) {
        this.pending.delete(id!);
        waiter.resolve(m);
        return;
      }
      this.onmessage?.(m);
    };
    // A 404 is answered by send(); the GET stream's own retries are not the client's business.
    t.onerror = (e: Error) => {
      if (t === this.inner && !is404(e)) this.onerror?.(e);
    };
    t.onclose = () => {
      if (t === this.inner) this.finish();
    };
    return t;
  }

  start(): Promise<void> {
    return this.inner.start();
  }

  setProtocolVersion(version: string): void {
    this.protocolVersion = version;
    this.inner.setProtocolVersion(version);
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    if (this.done) throw connectError(this.reason ?? "connection closed");
    if (this.reinit) await this.reinit.catch(() => {});
    if (isInitializeRequest(message)) this.initRequest = message as JSONRPCRequest;
    const generation = this.generation;
    const hadSession = this.inner.sessionId !== undefined;
    try {
      await this.inner.send(message, options);
    } catch (err) {
      if (!is404(err) || !hadSession || this.initRequest === null || isInitializeRequest(message)) throw err;
      if (this.generation === generation) {
        this.reinit ??= this.reinitialize().finally(() => {
          this.reinit = null;
        });
        await this.reinit;
      }
      try {
        await this.inner.send(message, options);
      } catch (again) {
        if (is404(again)) throw this.fail("session expired");
        throw again;
      }
    }
  }

  /** A fresh session with the original `initialize`; its answer stays here. */
  private async reinitialize(): Promise<void> {
    const old = this.inner;
    this.inner = this.make();
    void old.close().catch(() => {});
    await this.inner.start();
    const id = `lemon-reinit-${++this.reinits}`;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const answer = new Promise<JSONRPCMessage>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      timer = setTimeout(() => reject(connectError("session expired")), this.reinitTimeoutMs);
    });
    try {
      await this.inner.send({ ...this.initRequest!, id });
      const reply = (await answer) as { result?: { protocolVersion?: unknown } };
      const version = reply.result?.protocolVersion;
      if (typeof version !== "string") throw this.fail("session expired");
      this.inner.setProtocolVersion(version);
      this.protocolVersion = version;
      await this.inner.send({ jsonrpc: "2.0", method: "notifications/initialized" });
      this.generation++;
    } catch (err) {
      throw is404(err) || !(err instanceof Error && err.name === "LemonError") ? this.fail("session expired") : err;
    } finally {
      clearTimeout(timer);
      this.pending.delete(id);
    }
  }

  /** Ends the connection for `reason`; the error is what the failed request rejects with. */
  private fail(reason: CloseReason) {
    this.reason ??= reason;
    void this.close();
    return connectError(reason);
  }

  async close(): Promise<void> {
    if (this.done) return;
    const t = this.inner;
    // The DELETE's failures are the server's business (§5.2: errors ignored).
    await t.terminateSession().catch(() => {});
    await t.close().catch(() => {});
    this.finish();
  }

  private finish(): void {
    if (this.done) return;
    this.done = true;
    this.reason ??= "connection closed";
    for (const p of this.pending.values()) p.reject(connectError(this.reason));
    this.pending.clear();
    this.onclose?.();
  }
}
