// Starting `lemon mcp serve` as a real child process (from source or the compiled binary) and
// talking to it with the SDK's own clients.
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Sandbox } from "../support/sandbox.ts";

export const MAIN = join(import.meta.dir, "../../src/cli/main.ts");

/** The command line of lemon: the binary, or Bun running the source entry. */
export const lemonCmd = (binary?: string): string[] => (binary ? [binary] : [process.execPath, MAIN]);

export function childEnv(box: Sandbox, extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries({ ...box.env, ...extra })) if (v !== undefined) env[k] = v;
  return env;
}

/** An SDK client over stdio to `lemon mcp serve <args>`; stderr collected. */
export async function stdioClient(
  box: Sandbox,
  args: string[] = [],
  binary?: string,
): Promise<{ client: Client; stderr: () => string }> {
  const [command, ...pre] = lemonCmd(binary);
  const transport = new StdioClientTransport({
    command: command!,
    args: [...pre, "mcp", "serve", ...args],
    cwd: box.project,
    env: childEnv(box),
    stderr: "pipe",
  });
  let err = "";
  transport.stderr?.on("data", (d: Buffer) => (err += d.toString("utf8")));
  const client = new Client({ name: "lemon-serve-test", version: "1.0.0" });
  await client.connect(transport);
  return { client, stderr: () => err };
}

export interface HttpChild {
  proc: Bun.Subprocess<"ignore", "pipe", "pipe">;
  url: string;
  token: string | null;
  stderr: () => string;
}

/** `lemon mcp serve --http 127.0.0.1:0 …`, resolved once it printed where it listens. */
export async function httpChild(
  box: Sandbox,
  args: string[] = [],
  opts: { binary?: string; env?: Record<string, string> } = {},
): Promise<HttpChild> {
  const proc = Bun.spawn([...lemonCmd(opts.binary), "mcp", "serve", "--http", "127.0.0.1:0", ...args], {
    cwd: box.project,
    env: childEnv(box, opts.env),
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  let err = "";
  const reader = proc.stderr.getReader();
  const dec = new TextDecoder();
  const started = async () => {
    while (!/listening on \S+\n[\s\S]*bearer token: .+\n/.test(err)) {
      const { done, value } = await reader.read();
      if (done) throw new Error(`lemon mcp serve exited before listening:\n${err}`);
      err += dec.decode(value);
    }
  };
  await started();
  // Keep draining so the child never blocks on a full pipe.
  void (async () => {
    for (;;) {
      const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }));
      if (done) break;
      err += dec.decode(value);
    }
  })();
  const url = /listening on (\S+)/.exec(err)![1]!;
  const tok = /bearer token: (.+)\n/.exec(err)![1]!;
  return { proc, url, token: tok === "from LEMON_SERVE_TOKEN" ? null : tok, stderr: () => err };
}

export async function httpClient(url: string, token: string): Promise<Client> {
  const client = new Client({ name: "lemon-serve-test", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}
