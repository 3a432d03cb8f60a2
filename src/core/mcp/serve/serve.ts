/**
 * @module mcp/serve/serve
 * `lemon mcp serve` (cli.md §3.8): lemon's skills to any MCP client over stdio or Streamable
 * HTTP. One served catalog per process; each client session gets its own SDK server over it, and
 * every session hears `notifications/resources/list_changed` when the served set changes.
 * Loaded by `import()` from the MCP entry, so nothing else pays for the SDK.
 */
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { Lemon } from "../../index.ts";
import { servedCatalog } from "./catalog.ts";
import { startHttp } from "./http.ts";
import { trackPending, type Pending } from "./pending.ts";
import { sessionServer } from "./server.ts";
import type { ServeOptions, SkillServer } from "./types.ts";

/** How long requests already read may take to be answered after stdin ends. */
const DRAIN_MS = 2000;

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
