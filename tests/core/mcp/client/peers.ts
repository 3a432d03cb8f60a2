// Real MCP peers for the transport tests (spec/mcp-test-peers.md): the npm servers and the SDK's
// example server, started on loopback ports picked here, plus the misbehaving fixture server.
import { createServer } from "node:net";
import { join } from "node:path";
import { createContext, type LemonContext } from "../../../../src/core/context.ts";
import { LemonError } from "../../../../src/core/errors.ts";
import type { ConnectableServer } from "../../../../src/core/mcp/client/connect.ts";
import type { McpServerConfig, Transport } from "../../../../src/core/mcp/types.ts";

export const REPO = join(import.meta.dir, "..", "..", "..", "..");
const MODULES = join(REPO, "node_modules");
export const EVERYTHING = join(MODULES, "@modelcontextprotocol/server-everything/dist/index.js");
export const FILESYSTEM = join(MODULES, "@modelcontextprotocol/server-filesystem/dist/index.js");
export const MEMORY = join(MODULES, "@modelcontextprotocol/server-memory/dist/index.js");
export const SDK_EXAMPLE = join(MODULES, "@modelcontextprotocol/sdk/dist/esm/examples/server/simpleStreamableHttp.js");
export const MISBEHAVE = join(REPO, "tests/fixtures/mcp-servers/misbehave.ts");
/** The test runner is bun: JS peers run under the same runtime. */
export const BUN = process.execPath;

/** A port that was free a moment ago: bind 127.0.0.1:0, read it, close. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const addr = s.address();
      const port = typeof addr === "object" && addr ? addr.port : 0;
      s.close(() => resolve(port));
    });
  });
}

export interface Peer extends AsyncDisposable {
  port: number;
  proc: ReturnType<typeof Bun.spawn>;
  stop(): Promise<void>;
}

/** Starts an HTTP peer and waits until its output contains `ready`. */
export async function startPeer(
  argv: string[],
  opts: { env: Record<string, string>; ready: string; port?: number },
): Promise<Peer> {
  const port = opts.port ?? (await freePort());
  const env: Record<string, string> = { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...opts.env };
  for (const [k, v] of Object.entries(env)) env[k] = v.replace("$PORT", String(port));
  const proc = Bun.spawn(argv, { env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  let seen = "";
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`peer not ready: ${seen}`)), 20_000);
    const watch = async (stream: ReadableStream<Uint8Array>) => {
      const dec = new TextDecoder();
      for await (const chunk of stream) {
        seen += dec.decode(chunk);
        if (seen.includes(opts.ready)) {
          clearTimeout(timer);
          resolve();
        }
      }
    };
    void watch(proc.stdout as ReadableStream<Uint8Array>);
    void watch(proc.stderr as ReadableStream<Uint8Array>);
  });
  const stop = async () => {
    proc.kill("SIGKILL");
    await proc.exited;
  };
  return { port, proc, stop, [Symbol.asyncDispose]: stop };
}

export function testContext(env: Record<string, string | undefined> = {}, cwd = REPO): LemonContext {
  return createContext({ env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env }, cwd });
}

export function server(type: Transport, entry: McpServerConfig, name = "peer"): ConnectableServer {
  return { name, type, server: { entry } };
}

/** The code and message of the LemonError `p` rejects with (anything else fails the test). */
export async function failure(p: Promise<unknown>): Promise<{ code: string; message: string }> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  if (!LemonError.is(err)) throw new Error(`expected a LemonError, got ${String(err)}`);
  return { code: err.code, message: err.message };
}
