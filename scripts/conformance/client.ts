/**
 * The MCP conformance client (issue 14 item 8): `bun scripts/conformance/client.ts <server-url>`,
 * run by `@modelcontextprotocol/conformance client --command "bun scripts/conformance/client.ts"`.
 * It reads MCP_CONFORMANCE_SCENARIO and MCP_CONFORMANCE_CONTEXT and drives lemon's own module —
 * createLemon in a throw-away home, the server as an entry of its global mcp.json with an `oauth`
 * object, every approval granted — to authorize with `mcp.test(…, {headlessAuth: true})`, then list
 * the tools and call each one. Every OAuth step (discovery, registration, PKCE, token requests,
 * step-up) is lemon's. A flow during a tool call (step-up) has no headless mode in the module, so
 * `openUrl` plays the browser there: the scenario's authorization server approves at once, and
 * a GET that follows its redirects on loopback delivers the code to lemon's listener.
 *
 * Exit 0 when the server connected and every tool call succeeded, 1 otherwise; one line per step
 * on stdout, never a token.
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLemon, type LemonOptions } from "../../src/core/index.ts";
import { scenarioEntry } from "./scenarios.ts";

const MAX_BROWSER_HOPS = 8;
const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]"]);

/** The harness's browser: GETs the authorization URL and follows redirects, on loopback only. */
async function browse(url: string): Promise<void> {
  let next = new URL(url);
  for (let hop = 0; hop <= MAX_BROWSER_HOPS; hop++) {
    if (!LOOPBACK.has(next.hostname)) throw new Error(`browser: refusing non-loopback host ${next.hostname}`);
    const res = await fetch(next, { redirect: "manual" });
    const location = res.headers.get("location");
    await res.body?.cancel();
    if (res.status < 300 || res.status >= 400 || location === null) return;
    next = new URL(location, next);
  }
  throw new Error("browser: too many redirects");
}

const say = (line: string) => process.stdout.write(`${line}\n`);

async function main(): Promise<number> {
  const serverUrl = process.argv.at(-1);
  if (serverUrl === undefined || !/^https?:\/\//.test(serverUrl)) {
    process.stderr.write("usage: bun scripts/conformance/client.ts <server-url>\n");
    return 2;
  }
  const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? "";
  const context = process.env.MCP_CONFORMANCE_CONTEXT;
  const entry = scenarioEntry(scenario, serverUrl, context);
  say(`scenario ${scenario || "(none)"}`);

  const root = await mkdtemp(join(tmpdir(), "lemon-conformance-"));
  const home = join(root, "home");
  const agentDir = join(home, ".lemon", "agent");
  // lemon's global mcp.json: a privileged source (mcp.md §11.1), and the one `mcp test` looks in.
  await mkdir(agentDir, { recursive: true });
  await writeFile(join(agentDir, "mcp.json"), JSON.stringify({ servers: [entry] }));
  const options: LemonOptions & { openUrl: (url: string) => Promise<void> } = {
    cwd: root,
    homeDir: home,
    home: join(home, ".lemon"),
    agentDir,
    env: { HOME: home, PATH: process.env.PATH },
    readConfigFile: false,
    curator: false,
    approve: async (r) => {
      say(`approve ${r.kind}`);
      return true;
    },
    // Only for a flow during a tool call (a step-up), where lemon's headless mode is not offered.
    // Fire and forget: the browser's GET ends at lemon's own listener, which must not wait on it.
    openUrl: async (url) => {
      say("open authorization url");
      void browse(url).catch((err: unknown) => say(`browser failed: ${(err as Error).message}`));
    },
  };
  const lemon = createLemon(options);
  let ok = false;
  try {
    // The first authorization with lemon's own headless follower (`lemon mcp test --headless-auth`).
    const report = await lemon.mcp.test(entry.name, { global: true, listTools: true, headlessAuth: true });
    say(
      `test ${report.ok ? "ok" : `failed: ${report.error?.code} ${report.error?.message}`}, ${report.counts.tools} tools`,
    );
    if (!report.ok) return 1;
    const tools = await lemon.mcp.getTools();
    const status = await lemon.mcp.status();
    const st = status.servers[entry.name];
    say(`server ${st?.state ?? "missing"}${st?.last_error ? ` (${st.last_error})` : ""}, ${tools.length} tools`);
    ok = st?.state === "connected";
    for (const tool of tools) {
      const r = await lemon.mcp.callTool(tool.name, {});
      say(`call ${tool.label}: ${r.isError ? "error" : "ok"}`);
      if (r.isError) ok = false;
    }
  } catch (err) {
    const e = err as { code?: string; message?: string };
    say(`failed: ${e.code ?? "ERROR"} ${e.message ?? String(err)}`);
    ok = false;
  } finally {
    await lemon.close();
    await rm(root, { recursive: true, force: true });
  }
  return ok ? 0 : 1;
}

process.exit(await main());
