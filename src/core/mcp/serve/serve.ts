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
import type { ServeOptions, SkillServer } from "./types.ts";

/** How long requests already read may take to be answered after stdin ends. */
const DRAIN_MS = 2000;

/** Bytes of answers a client may leave unread before its requests stop being taken. */
const MAX_UNSENT = 1024 * 1024;
/** Requests of one client being handled at once. */
const MAX_IN_FLIGHT = 16;

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

  if (opts.transport === "stdio") {
    const server = sessionServer(deps);
    const transport = new StdioServerTransport(opts.stdin, opts.stdout, {
      maxBufferSize: opts.maxMessageBytes ?? 8 * 1024 * 1024,
    });
    let pending: Pending | null = null;
    const close = () =>
      (closing ??= (async () => {
        opts.stdin.off("end", ended);
        opts.stdin.off("close", ended);
        catalog.close();
        await server.close().catch(() => {});
        done();
      })());
    // End of input is how a client says it is done (MCP lifecycle, stdio), often right after its
    // last request (`printf … | lemon mcp serve`): what was already read is answered first, for
    // at most DRAIN_MS, then the server stops.
    const ended = () =>
      void (async () => {
        await pending?.settled(DRAIN_MS);
        await close();
      })();
    transport.onerror = (err) => log(`stdio: ${err.message}`);
    server.onclose = () => void close();
    opts.stdin.on("end", ended);
    opts.stdin.on("close", ended);
    // The catalog's first listing waits for the handshake, so it never delays the answer to `initialize`.
    server.oninitialized = () => void catalog.onChange(() => void notify(server));
    await server.connect(transport);
    // Held messages count as pending: end of input answers them too.
    holdWhileUnsent(transport, opts.stdin, opts.stdout);
    pending = trackPending(transport);
    return { closed, close };
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
  return { url: http.url, closed, close };
}
