#!/usr/bin/env bun
/**
 * @module scripts/bench/mcp-client
 * The speed section of issue #13, in one process so both sides share the machine's state:
 *
 *   bun scripts/bench/mcp-client.ts [--runs N] [--calls N] [--servers N]
 *
 * 1. `mcp test everything` (stdio) through lemon (trust check, effective set, stdio worker,
 *    handshake, listings) beside the floor: a plain SDK client (StdioClientTransport) doing the
 *    same handshake and listings. Alternating runs; target: lemon's median ≤ floor + 50 ms.
 * 2. Discovery across N (default 8) stdio servers: lemon's getTools over N configurations beside
 *    the slowest single server of the same run; target ≤ slowest + 100 ms. Two more floors show
 *    what the machine itself costs: N plain SDK clients started together, and N bare server
 *    processes started together and sent one `initialize` each (no client code at all).
 * 3. A tool-call round trip (`echo`) through the worker beside a direct SDK call in this process;
 *    target ≤ 1 ms extra at p50.
 *
 * The server is @modelcontextprotocol/server-everything (devDependency), run with this Bun. No
 * network: stdio only. Nothing here asserts: the figures are for people (scripts/bench/*.md).
 */
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { createContext } from "../../src/core/context.ts";
import { createMcpClient } from "../../src/core/mcp/client/api.ts";
import { testMcpServer } from "../../src/core/mcp/index.ts";
import { pct } from "./measure.ts";

const REPO = resolve(import.meta.dir, "..", "..");
const EVERYTHING = join(REPO, "node_modules/@modelcontextprotocol/server-everything/dist/index.js");

function options(argv: string[]) {
  const o = { runs: 10, calls: 200, servers: 8 };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const n = () => Math.max(1, Number.parseInt(argv[++i] ?? "", 10) || 0);
    if (a === "--runs") o.runs = n();
    else if (a === "--calls") o.calls = n();
    else if (a === "--servers") o.servers = n();
    else {
      console.error(`mcp-client bench: unknown option '${a}'`);
      process.exit(2);
    }
  }
  return o;
}

const o = options(process.argv.slice(2));
const scratch = mkdtempSync(join(tmpdir(), "lemon-bench-mcp-"));
const home = join(scratch, "home");
const project = join(scratch, "project");
const agentDir = join(home, ".lemon", "agent");
mkdirSync(project, { recursive: true });
mkdirSync(agentDir, { recursive: true });
const env: Record<string, string | undefined> = { HOME: home, PATH: process.env.PATH };
const server = (name: string) => ({ name, command: process.execPath, args: [EVERYTHING, "stdio"], approval: "never" });
// The user's own file: trusted without a record, as a user's servers are.
const writeServers = (names: string[]) =>
  writeFileSync(join(agentDir, "mcp.json"), JSON.stringify({ servers: names.map(server) }));
const ctx = createContext({ cwd: project, env, homeDir: home });
const med = (v: number[]) => pct(v, 50);
const f = (ms: number) => `${ms.toFixed(1).padStart(8)} ms`;

async function sdkSession(): Promise<Client> {
  const client = new Client({ name: "bench", version: "0" });
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args: [EVERYTHING, "stdio"], stderr: "ignore" }),
  );
  return client;
}

/** One bare server process: spawn, one `initialize`, the first answer line. No client library. */
async function rawStart(): Promise<void> {
  const p = Bun.spawn([process.execPath, EVERYTHING, "stdio"], { stdin: "pipe", stdout: "pipe", stderr: "ignore" });
  const init = {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "bench", version: "0" } },
  };
  p.stdin.write(`${JSON.stringify(init)}\n`);
  await p.stdin.flush();
  await p.stdout.getReader().read();
  p.kill("SIGKILL");
  await p.exited;
}

async function sdkTest(): Promise<number> {
  const t0 = performance.now();
  const c = await sdkSession();
  await Promise.all([c.listTools(), c.listResources(), c.listPrompts()]);
  const ms = performance.now() - t0;
  await c.close();
  return ms;
}

/** lemon's report total: configuration, trust, connect, handshake, listings (the close after it is not counted, as for the SDK). */
async function lemonTest(): Promise<number> {
  const r = await testMcpServer(ctx, "s0", { global: true });
  if (!r.ok) throw new Error(`mcp test failed: ${r.error?.message}`);
  return r.timing_ms.total;
}

try {
  writeServers(["s0"]);
  await lemonTest(); // warm the module graph and the file cache for both sides
  await sdkTest();
  const test = { lemon: [] as number[], sdk: [] as number[] };
  for (let i = 0; i < o.runs; i++) {
    test.lemon.push(await lemonTest());
    test.sdk.push(await sdkTest());
  }
  console.log(`1. mcp test everything (stdio): ${o.runs} runs each, alternating`);
  console.log(`   lemon testMcpServer        ${f(med(test.lemon))} med  ${f(pct(test.lemon, 90))} p90`);
  console.log(`   floor: plain SDK client    ${f(med(test.sdk))} med  ${f(pct(test.sdk, 90))} p90`);
  console.log(`   overhead ${(med(test.lemon) - med(test.sdk)).toFixed(1)} ms (target <= 50 ms)\n`);

  // 2. N servers in parallel vs the slowest single one.
  const names = Array.from({ length: o.servers }, (_, i) => `s${i}`);
  const singles: number[] = [];
  for (const n of names) {
    writeServers([n]);
    const c = createMcpClient({ ctx, config: {}, trusted: async () => true });
    const t0 = performance.now();
    await c.getTools({ refresh: true });
    singles.push(performance.now() - t0);
    await c.close();
  }
  writeServers(names);
  const all = createMcpClient({ ctx, config: {}, trusted: async () => true });
  const t0 = performance.now();
  const tools = await all.getTools({ refresh: true });
  const parallel = performance.now() - t0;
  await all.close();
  const slowest = Math.max(...singles);
  // The machine's own parallel cost: N plain SDK clients started together.
  const s0 = performance.now();
  const sdks = await Promise.all(
    names.map(async () => {
      const c = await sdkSession();
      await c.listTools();
      return c;
    }),
  );
  const sdkParallel = performance.now() - s0;
  await Promise.all(sdks.map((c) => c.close()));
  const r0 = performance.now();
  await Promise.all(names.map(() => rawStart()));
  const rawParallel = performance.now() - r0;
  console.log(`2. discovery across ${o.servers} stdio servers (${tools.length} tools published)`);
  console.log(`   lemon getTools, parallel   ${f(parallel)}`);
  console.log(
    `   floor: slowest single      ${f(slowest)}  (singles ${singles.map((s) => s.toFixed(0)).join(", ")} ms)`,
  );
  console.log(`   floor: ${o.servers} SDK clients, parallel ${f(sdkParallel)}`);
  console.log(`   floor: ${o.servers} bare servers to initialize, parallel ${f(rawParallel)}`);
  console.log(
    `   over the slowest ${(parallel - slowest).toFixed(1)} ms (target <= 100 ms); over ${o.servers} parallel SDK clients ${(parallel - sdkParallel).toFixed(1)} ms; over ${o.servers} bare servers ${(parallel - rawParallel).toFixed(1)} ms\n`,
  );

  // 3. Call round trip: lemon (worker) vs the SDK in this process.
  writeServers(["s0"]);
  const lemon = createMcpClient({ ctx, config: {}, trusted: async () => true });
  const echo = (await lemon.getTools()).find((t) => t.label === "MCP echo");
  if (!echo) throw new Error("server-everything has no echo tool");
  const sdk = await sdkSession();
  const calls = { lemon: [] as number[], sdk: [] as number[] };
  for (let i = 0; i < o.calls + 20; i++) {
    const a = performance.now();
    await lemon.callTool(echo.name, { message: "x" });
    const b = performance.now();
    await sdk.callTool({ name: "echo", arguments: { message: "x" } });
    const c = performance.now();
    if (i >= 20) {
      calls.lemon.push(b - a);
      calls.sdk.push(c - b);
    }
  }
  await lemon.close();
  await sdk.close();
  const p = (v: number[]) => `${med(v).toFixed(3).padStart(8)} ms p50  ${pct(v, 90).toFixed(3).padStart(8)} ms p90`;
  console.log(`3. echo round trip, ${o.calls} calls each, interleaved (20 warm-up calls dropped)`);
  console.log(`   lemon callTool (worker)    ${p(calls.lemon)}`);
  console.log(`   floor: direct SDK call     ${p(calls.sdk)}`);
  console.log(`   extra at p50 ${(med(calls.lemon) - med(calls.sdk)).toFixed(3)} ms (target <= 1 ms)\n`);
  console.log(`reproduce: bun scripts/bench/mcp-client.ts --runs ${o.runs} --calls ${o.calls} --servers ${o.servers}`);
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
