/**
 * @module mcp/client/transport/session
 * The SDK side of a connection (mcp.md §5.4): one `Client` per server over the transport of its
 * entry, the handshake (client info, the `roots` capability answering the project directory, no
 * elicitation, sampling only with a delegate), requests with timeouts and progress, paginated lists and the
 * mapping of every SDK failure to a fixed, redacted reason. Loaded by `import()` only.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  ErrorCode,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  McpError,
  ResultSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { basename } from "node:path";
import { pathToFileURL } from "node:url";
import { VERSION } from "../../../build-info.ts";
import { LemonError } from "../../../errors.ts";
import { clampChars, flattenLine, stripAnsi } from "../../../text.ts";
import {
  connectError,
  DEFAULT_READY_TIMEOUT_MS,
  DEFAULT_REQUEST_TIMEOUT_MS,
  MAX_TOTAL_TIMEOUT_MS,
  type CloseReason,
  type ConnectableServer,
  type ConnectOptions,
  type ListKind,
  type OutputRing,
  type RequestOptions,
  type ServerConnection,
} from "../connect.ts";
import { createSampler, offersSampling, SAMPLING_DENIED, samplingMode } from "../sampling.ts";
import { connectReason, requestError } from "./errors.ts";
import { HttpTransport } from "./http.ts";
import { tagErrorAnswer } from "./protocol.ts";
import { TextRing } from "./ring.ts";
import { SseTransport } from "./sse.ts";
import { stdioSpec, WorkerTransport } from "./stdio.ts";

/** What session code needs of any of the three transports beyond the SDK interface. */
export type LemonTransport = Transport & { reason: CloseReason | null; protocolVersion: string | null };

export const MAX_LIST_PAGES = 50;
export const MAX_LIST_ITEMS = 1_000;
/** `server_info` fields are remote text shown in status and `mcp test`: one clean, short line. */
export const SERVER_INFO_MAX = 256;

const infoText = (v: unknown) =>
  clampChars(flattenLine(stripAnsi(String(v).slice(0, 4 * SERVER_INFO_MAX))), SERVER_INFO_MAX);

/**
 * Tags every error answer the server sends, so requestError can tell a server's -32000/-32001
 * from the SDK's own "connection closed" and "timed out" (which reuse those codes).
 */
function tagAnswers(transport: Transport): void {
  const inner = transport.onmessage;
  if (inner === undefined) return;
  transport.onmessage = ((message: unknown, extra?: unknown) => {
    tagErrorAnswer(message, "remote");
    (inner as (m: unknown, e?: unknown) => void)(message, extra);
  }) as Transport["onmessage"];
}

/**
 * A `sampling/createMessage` whose params are not an object fails the SDK's message schema and
 * would never be answered (the SDK only reports it to onerror): refuse it like any malformed one.
 */
function refuseShapelessSampling(transport: Transport): void {
  const inner = transport.onmessage;
  if (inner === undefined) return;
  transport.onmessage = ((message: unknown, extra?: unknown) => {
    const m = message as { id?: unknown; method?: unknown; params?: unknown } | null;
    const id = m?.id;
    const shapeless =
      m?.params !== undefined && (typeof m?.params !== "object" || m.params === null || Array.isArray(m.params));
    if (m?.method === "sampling/createMessage" && (typeof id === "string" || typeof id === "number") && shapeless) {
      void transport.send({ jsonrpc: "2.0", id, error: { code: -1, message: SAMPLING_DENIED } }).catch(() => {});
      return;
    }
    (inner as (m: unknown, e?: unknown) => void)(message, extra);
  }) as Transport["onmessage"];
}

function transportFor(
  server: ConnectableServer,
  opts: ConnectOptions,
  ring: OutputRing,
  readyMs: number,
): LemonTransport {
  const entry = server.server.entry;
  if (server.type === "stdio") return new WorkerTransport(stdioSpec(entry, opts.ctx, opts.cwd), ring);
  let url: URL;
  try {
    url = new URL(entry.url ?? "");
  } catch {
    throw connectError("connection failed");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw connectError("connection failed");
  const headers = { ...(entry.headers ?? {}) };
  const wrap = opts.wrapFetch;
  return server.type === "http"
    ? new HttpTransport(url, headers, undefined, wrap)
    : new SseTransport(url, headers, readyMs, wrap);
}

/** `[log <level>] <logger>: <data>` lines, for the ring only (never status or errors). */
function logLine(params: { level: string; logger?: string; data?: unknown }): string {
  const data = typeof params.data === "string" ? params.data : JSON.stringify(params.data);
  return `[log ${params.level}]${params.logger ? ` ${params.logger}:` : ""} ${data ?? ""}\n`;
}

/**
 * Handshake and the connection's methods. `started` is a stdio transport that connect.ts began
 * while this module loaded; every other transport is made here.
 */
export async function openSession(
  server: ConnectableServer,
  opts: ConnectOptions,
  started?: { transport: LemonTransport; ring: OutputRing },
): Promise<ServerConnection> {
  const entry = server.server.entry;
  const readyMs = opts.timeoutMs ?? entry.ready_timeout_ms ?? DEFAULT_READY_TIMEOUT_MS;
  const listTimeout = opts.requestTimeoutMs ?? entry.timeout_ms ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const ring: OutputRing = started?.ring ?? opts.ring ?? new TextRing();
  const transport = started?.transport ?? transportFor(server, opts, ring, readyMs);
  if (opts.signal?.aborted) {
    await transport.close().catch(() => {});
    throw connectError("connection failed");
  }

  // Sampling (mcp.md §10) is offered only with a delegate; a configured but unoffered entry still
  // answers −1 rather than "method not found", so the server sees one refusal either way. The
  // fallback handler gets the raw params: sampling.ts validates them, since the SDK's schema would
  // answer −32603 with its issue list. Each request's signal also aborts when lemon starts closing
  // (the transport's close grace would otherwise still let a request reach the approver).
  const sampling = offersSampling(entry, opts.sampling);
  const client = new Client(
    { name: "lemon", version: VERSION },
    { capabilities: { roots: { listChanged: false }, ...(sampling ? { sampling: {} } : {}) } },
  );
  const samplingStop = new AbortController();
  const sample = createSampler(server.name, entry, sampling ? opts.sampling : undefined, server.source);
  if (samplingMode(entry) !== null)
    client.fallbackRequestHandler = async (r, extra) => {
      if (r.method !== "sampling/createMessage") throw new McpError(ErrorCode.MethodNotFound, "Method not found");
      return (await sample(r.params, AbortSignal.any([extra.signal, samplingStop.signal]))) as never;
    };
  const root = { uri: pathToFileURL(opts.cwd).href, name: basename(opts.cwd) };
  client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [root] }));
  client.setNotificationHandler(LoggingMessageNotificationSchema, async (n) => ring.push(logLine(n.params)));
  const notify = new Set<(method: string, params: unknown) => void>();
  client.fallbackNotificationHandler = async (n) => {
    for (const l of notify) l(n.method, n.params);
  };
  // The SDK reports transport hiccups here; the reasons that matter arrive through onclose.
  client.onerror = () => {};

  let closing = false;
  let closedReason: CloseReason | null = null;
  const closeListeners = new Set<(reason: CloseReason) => void>();
  client.onclose = () => {
    if (closedReason !== null) return;
    closedReason = transport.reason ?? "connection closed";
    if (closing) return;
    for (const l of closeListeners) l(closedReason);
  };

  let timer: ReturnType<typeof setTimeout> | undefined;
  const abort = new AbortController();
  const onAbort = () => abort.abort();
  opts.signal?.addEventListener("abort", onAbort, { once: true });
  try {
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(connectError("handshake timed out")), readyMs);
      abort.signal.addEventListener("abort", () => reject(connectError("connection failed")), { once: true });
    });
    await Promise.race([client.connect(transport, { timeout: readyMs, signal: abort.signal }), timedOut]);
  } catch (err) {
    closing = true;
    const reason = LemonError.is(err) ? null : connectReason(err, transport.reason);
    await client.close().catch(() => {});
    await transport.close().catch(() => {});
    throw reason === null ? err : connectError(reason);
  } finally {
    clearTimeout(timer);
    opts.signal?.removeEventListener("abort", onAbort);
  }
  tagAnswers(transport);
  if (samplingMode(entry) !== null) refuseShapelessSampling(transport);

  const caps = client.getServerCapabilities() ?? {};
  const info = client.getServerVersion();

  const request = async (method: string, params: Record<string, unknown> | undefined, o: RequestOptions) => {
    if (closedReason !== null) throw requestError(new McpError(ErrorCode.ConnectionClosed, "closed"), o.timeoutMs);
    try {
      return await client.request({ method, ...(params !== undefined ? { params } : {}) }, ResultSchema, {
        timeout: o.timeoutMs,
        ...(o.signal ? { signal: o.signal } : {}),
        ...(o.onProgress ? { onprogress: () => o.onProgress?.(), resetTimeoutOnProgress: true } : {}),
        maxTotalTimeout: MAX_TOTAL_TIMEOUT_MS,
      });
    } catch (err) {
      throw requestError(
        err,
        o.timeoutMs,
        closedReason !== null || transport.reason !== null,
        o.signal?.aborted === true,
      );
    }
  };

  const list = async (kind: ListKind, o?: { timeoutMs?: number }) => {
    const items: unknown[] = [];
    const seen = new Set<string>();
    let cursor: string | undefined;
    for (let page = 0; page < MAX_LIST_PAGES; page++) {
      const r = (await request(`${kind}/list`, cursor !== undefined ? { cursor } : undefined, {
        timeoutMs: o?.timeoutMs ?? listTimeout,
      })) as Record<string, unknown>;
      const got = r[kind];
      if (Array.isArray(got)) items.push(...got);
      if (items.length > MAX_LIST_ITEMS) return { items: items.slice(0, MAX_LIST_ITEMS), truncated: true };
      const next = r.nextCursor;
      if (typeof next !== "string" || next === "") return { items, truncated: false };
      // A server that hands back a cursor it already gave would page forever.
      if (seen.has(next)) return { items, truncated: true };
      seen.add(next);
      cursor = next;
    }
    return { items, truncated: true };
  };

  return {
    serverInfo: info ? { name: infoText(info.name), version: infoText(info.version) } : null,
    protocolVersion: transport.protocolVersion,
    capabilities: {
      tools: caps.tools !== undefined,
      resources: caps.resources !== undefined,
      prompts: caps.prompts !== undefined,
    },
    request,
    list,
    onNotification(listener) {
      notify.add(listener);
      return () => notify.delete(listener);
    },
    onClose(listener) {
      closeListeners.add(listener);
      return () => closeListeners.delete(listener);
    },
    stderrTail: (bytes) => ring.tail(bytes),
    async close() {
      if (closing) return;
      closing = true;
      samplingStop.abort();
      await client.close().catch(() => {});
      await transport.close().catch(() => {});
    },
  };
}
