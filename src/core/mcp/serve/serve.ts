/**
 * @module mcp/serve/serve
 * `lemon mcp serve` (cli.md §3.8): lemon's skills to any MCP client over stdio or Streamable
 * HTTP. One served catalog per process; each client session gets its own SDK server over it, and
 * every session hears `notifications/resources/list_changed` when the served set changes.
 * Loaded by `import()` from the MCP entry, so nothing else pays for the SDK.
 */
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { Readable, Writable } from "node:stream";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { Lemon } from "../../index.ts";
import { servedCatalog } from "./catalog.ts";
import { startHttp } from "./http.ts";
import { trackPending, type Pending } from "./pending.ts";
import { sessionServer } from "./server.ts";
import { frameLines, type Oversized } from "./stdio-lines.ts";
import type { ServeOptions, SkillServer } from "./types.ts";

/** How long requests already read may take to be answered after stdin ends. */
const DRAIN_MS = 2000;

/** Bytes of answers a client may leave unread before its requests stop being taken. */
const MAX_UNSENT = 1024 * 1024;
/** Requests of one client being handled at once. */
const MAX_IN_FLIGHT = 16;
/** Largest line from a stdio client, in bytes: an agent pasting a file into `query` stays well under. */
const MAX_LINE = 8 * 1024 * 1024;

/**
 * The JSON-RPC error owed for a line dropped for its size: Invalid Request for a request whose id
 * could be read, Parse error with a null id when none could; nothing for a client's own answer.
 */
function oversizedError(o: Oversized, max: number): Message | null {
  if (o.id !== null && !o.request) return null;
  const why = `message of ${o.bytes} bytes exceeds the ${max}-byte limit`;
  return o.id !== null
    ? { jsonrpc: "2.0", id: o.id, error: { code: -32600, message: `Invalid Request: ${why}` } }
    : ({ jsonrpc: "2.0", id: null, error: { code: -32700, message: `Parse error: ${why}` } } as unknown as Message);
}

type Message = Parameters<StdioServerTransport["send"]>[0];
type Handler = NonNullable<StdioServerTransport["onmessage"]>;

/**
 * Backpressure: a client that sends requests and reads no answers (a 3.5 MB listing each) would
 * grow the server's buffers without bound. Past MAX_UNSENT unread bytes or MAX_IN_FLIGHT
 * unanswered requests, the messages already read wait in order (one pipe chunk at most, since
 * stdin is paused) and the rest wait in the client's own pipe until answers leave.
 */
function holdWhileUnsent(transport: StdioServerTransport, stdin: Readable, stdout: Writable): void {
  const handler = transport.onmessage;
  if (handler === undefined) return;
  const queue: Parameters<Handler>[] = [];
  const inFlight = new Set<unknown>();
  let held = false;
  const busy = () => stdout.writableLength > MAX_UNSENT || inFlight.size >= MAX_IN_FLIGHT;
  const dispatch = (...args: Parameters<Handler>) => {
    const m = args[0] as { id?: unknown; method?: unknown };
    if (typeof m.method === "string" && m.id !== undefined) inFlight.add(m.id);
    handler(...args);
  };
  const pump = () => {
    while (queue.length > 0 && !busy()) dispatch(...queue.shift()!);
    if (held && queue.length === 0 && !busy()) {
      held = false;
      stdin.resume();
    }
  };
  stdout.on("drain", pump);
  transport.onmessage = (...args) => {
    if (queue.length === 0 && !busy()) return dispatch(...args);
    queue.push(args);
    if (!held) {
      held = true;
      stdin.pause();
    }
  };
  const send = transport.send.bind(transport);
  transport.send = async (message: Message) => {
    try {
      return await send(message);
    } finally {
      const m = message as { id?: unknown; method?: unknown };
      if (typeof m.method !== "string" && m.id !== undefined) inFlight.delete(m.id);
      pump();
    }
  };
}

/** Tells a connected client the resources changed; a session not initialised yet, or gone, is skipped. */
async function notify(server: Server): Promise<void> {
  if (server.getClientCapabilities() === undefined) return;
  await server.sendResourceListChanged().catch(() => {});
}

export async function serveSkills(lemon: Lemon, opts: ServeOptions): Promise<SkillServer> {
  const log = opts.log ?? (() => {});
  const catalog = servedCatalog(lemon, {
    ...(opts.cwd !== undefined ? { cwd: opts.cwd } : {}),
    globalOnly: opts.globalOnly === true,
    log,
  });
  const deps = {
    lemon,
    catalog,
    ...(opts.cwd !== undefined ? { cwd: opts.cwd } : {}),
    allowWrites: opts.allowWrites === true,
    globalOnly: opts.globalOnly === true,
  };
  let done!: () => void;
  const closed = new Promise<void>((r) => (done = r));
  let closing: Promise<void> | null = null;
  let failure: string | null = null;

  if (opts.transport === "stdio") {
    const server = sessionServer(deps);
    const max = opts.maxMessageBytes ?? MAX_LINE;
    // The SDK's ReadBuffer ends the session on a line over its bound; framing drops such a line
    // and answers it instead, so the transport only ever holds complete lines no longer than `max`.
    const framed = frameLines(opts.stdin, max, (o) => {
      log(`stdio: dropped a message of ${o.bytes} bytes (limit ${max})`);
      const answer = oversizedError(o, max);
      if (answer !== null) void transport.send(answer).catch(() => {});
    });
    const transport = new StdioServerTransport(framed.lines, opts.stdout, { maxBufferSize: Number.MAX_SAFE_INTEGER });
    let pending: Pending | null = null;
    let lastError: string | null = null;
    // Set before the transport is closed: its onclose runs inside that call, before `closing` is.
    let stopping = false;
    const close = () =>
      (closing ??= (async () => {
        stopping = true;
        framed.stop();
        opts.stdin.off("end", ended);
        opts.stdin.off("close", ended);
        opts.stdin.off("error", failed);
        catalog.close();
        await server.close().catch(() => {});
        done();
      })());
    // Input that fails, or a transport that closes by itself (only on an error), ends the
    // session as a failure, so the CLI exits non-zero instead of looking like a clean end.
    const failed = (err: Error) => {
      failure ??= `stdio: input failed: ${err.message}`;
      log(failure);
      void close();
    };
    // End of input is how a client says it is done (MCP lifecycle, stdio), often right after its
    // last request (`printf … | lemon mcp serve`): what was already read is answered first, for
    // at most DRAIN_MS, then the server stops.
    const ended = () =>
      void (async () => {
        await pending?.settled(DRAIN_MS);
        await close();
      })();
    transport.onerror = (err) => {
      lastError = err.message;
      log(`stdio: ${err.message}`);
    };
    server.onclose = () => {
      if (!stopping) failure ??= `stdio: transport closed${lastError !== null ? `: ${lastError}` : ""}`;
      void close();
    };
    opts.stdin.on("end", ended);
    opts.stdin.on("close", ended);
    opts.stdin.on("error", failed);
    // The catalog's first listing waits for the handshake, so it never delays the answer to `initialize`.
    server.oninitialized = () => void catalog.onChange(() => void notify(server));
    await server.connect(transport);
    // Held messages count as pending: end of input answers them too.
    holdWhileUnsent(transport, opts.stdin, opts.stdout);
    pending = trackPending(transport);
    framed.start();
    return {
      closed,
      close,
      get failure() {
        return failure;
      },
    };
  }

  const http = await startHttp(opts, () => sessionServer(deps));
  catalog.onChange(() => {
    for (const s of http.servers()) void notify(s);
  });
  const close = () =>
    (closing ??= (async () => {
      catalog.close();
      await http.close();
      done();
    })());
  return { url: http.url, closed, close, failure: null };
}
