#!/usr/bin/env bun
/**
 * @module scripts/bench/mcp-serve
 * `lemon mcp serve` (cli.md §3.8, issue 17) timed through the SDK's own stdio client against the
 * compiled binary: start to `initialize` answered, `find_skills` round trips at 1.1k and 11k
 * skills next to the in-process `findRelevant` figure of the same queries (target: at most 2 ms
 * more), and `read_skill view=summary` round trips. Every figure comes from this run.
 *
 *   bun scripts/bench/mcp-serve.ts [--runs N] [--cache DIR] [--corpus DIR] [--bin PATH] [--rebuild]
 *
 * --runs N     start-ups to time (default 20); the round trips use 50 judged queries, warmed once
 * --cache DIR  where the replicated corpora live (default $TMPDIR/lemon-bench-relevance, shared
 *              with the relevance benchmark)
 * --bin PATH   the compiled lemon to time (default dist/lemon-<host>/lemon, built when missing)
 */
import { readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { createLemon } from "../../src/core/index.ts";
import { hostBinary } from "./binary.ts";
import { requireCorpus } from "./corpus.ts";
import { pct } from "./measure.ts";
import { ms, scaleOptions } from "./relevance-cli.ts";
import { corpusSkills, makeScale, replicate, type Scale } from "./replicate.ts";

const REPO = resolve(import.meta.dir, "..", "..");
const QUERIES = join(REPO, "tests/fixtures/relevance/queries.json");
const MAX = 5;

function args() {
  const a = process.argv.slice(2);
  const val = (flag: string) => {
    const i = a.indexOf(flag);
    return i >= 0 ? (a[i + 1] ?? null) : null;
  };
  return {
    runs: Number(val("--runs") ?? 20),
    cache: val("--cache") ?? join(tmpdir(), "lemon-bench-relevance"),
    corpus: requireCorpus(val("--corpus")),
    bin: hostBinary({ bin: val("--bin"), rebuild: a.includes("--rebuild") }, "mcp-serve bench"),
  };
}

const envOf = (s: Scale): Record<string, string> => ({ ...s.env, LEMON_SNAPSHOT_WORKER: "auto" });

/** ms from spawn to the `initialize` answer on stdout, one fresh process per run. */
async function startToInitialize(bin: string, s: Scale): Promise<number> {
  const t0 = performance.now();
  const proc = Bun.spawn([bin, "mcp", "serve"], {
    cwd: s.cwd,
    env: envOf(s),
    stdin: "pipe",
    stdout: "pipe",
    stderr: "ignore",
  });
  const init = {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "bench", version: "1" } },
  };
  proc.stdin.write(`${JSON.stringify(init)}\n`);
  await proc.stdin.flush();
  const reader = proc.stdout.getReader();
  let text = "";
  while (!text.includes("\n")) {
    const r = await reader.read();
    if (r.done) throw new Error("lemon mcp serve exited before answering initialize");
    text += new TextDecoder().decode(r.value);
  }
  const t = performance.now() - t0;
  proc.stdin.end();
  await proc.exited;
  return t;
}

async function timed(f: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await f();
  return performance.now() - t0;
}

interface Figures {
  inProcess: number[];
  readInProcess: number[];
  findRoundTrip: number[];
  readRoundTrip: number[];
}

async function roundTrips(bin: string, s: Scale, queries: string[], keys: string[]): Promise<Figures> {
  const lemon = createLemon({ ...scaleOptions(s, "auto"), curator: false });
  const client = new Client({ name: "bench", version: "1" });
  await client.connect(new StdioClientTransport({ command: bin, args: ["mcp", "serve"], cwd: s.cwd, env: envOf(s) }));
  const out: Figures = { inProcess: [], readInProcess: [], findRoundTrip: [], readRoundTrip: [] };
  try {
    // Warm both sides: snapshots open, the server's catalog listed once.
    for (const q of queries) {
      await lemon.skills.findRelevant(q, { maxResults: MAX });
      await client.callTool({ name: "find_skills", arguments: { query: q, max_results: MAX } });
    }
    for (const q of queries) {
      out.inProcess.push(await timed(() => lemon.skills.findRelevant(q, { maxResults: MAX })));
      out.findRoundTrip.push(
        await timed(() => client.callTool({ name: "find_skills", arguments: { query: q, max_results: MAX } })),
      );
    }
    for (const key of keys) {
      await lemon.readSkill({ key, view: "summary" });
      await client.callTool({ name: "read_skill", arguments: { key, view: "summary" } });
    }
    for (const key of keys) out.readInProcess.push(await timed(() => lemon.readSkill({ key, view: "summary" })));
    for (const key of keys)
      out.readRoundTrip.push(
        await timed(() => client.callTool({ name: "read_skill", arguments: { key, view: "summary" } })),
      );
  } finally {
    await client.close();
    await lemon.close();
  }
  return out;
}

const o = args();
const queries = (JSON.parse(readFileSync(QUERIES, "utf8")) as { query: string }[]).slice(0, 50).map((q) => q.query);
const base = corpusSkills(o.corpus);
const x10 = replicate(o.corpus, o.cache, 10, 1);
const scales = [makeScale(o.cache, base.length, [o.corpus]), makeScale(o.cache, x10.skills, x10.roots)];

const rows: [string, string, string, string][] = [];
const starts: number[] = [];
// The first start builds the snapshot: not a start-up figure.
await startToInitialize(o.bin, scales[0]!);
for (let i = 0; i < o.runs; i++) starts.push(await startToInitialize(o.bin, scales[0]!));
rows.push([
  scales[0]!.name,
  "start → initialize answered, p50 / p95 (ms)",
  `${ms(pct(starts, 50))} / ${ms(pct(starts, 95))}`,
  "",
]);

for (const s of scales) {
  console.error(`mcp-serve bench: ${s.name} skills …`);
  const keys = (await createLemon({ ...scaleOptions(s, "auto"), curator: false }).skills.list()).skills
    .slice(0, 50)
    .map((e) => e.key);
  const f = await roundTrips(o.bin, s, queries, keys);
  const inP = pct(f.inProcess, 50);
  const rt = pct(f.findRoundTrip, 50);
  rows.push([s.name, "findRelevant in process, p50 (ms)", ms(inP), ""]);
  rows.push([s.name, "find_skills round trip, p50 (ms)", ms(rt), `≤ ${ms(inP + 2)} (in process + 2)`]);
  rows.push([s.name, "  over in process (ms)", ms(rt - inP), "≤ 2"]);
  rows.push([s.name, "readSkill summary in process, p50 (ms)", ms(pct(f.readInProcess, 50)), ""]);
  rows.push([s.name, "read_skill summary round trip, p50 (ms)", ms(pct(f.readRoundTrip, 50)), ""]);
}

const w = [0, 1, 2].map((i) => Math.max(...rows.map((r) => r[i]!.length), ["SCALE", "FIGURE", "VALUE"][i]!.length));
const line = (r: string[]) =>
  r
    .map((c, i) => (i < 3 ? c.padEnd(w[i]!) : c))
    .join("  ")
    .trimEnd();
console.log(line(["SCALE", "FIGURE", "VALUE", "TARGET"]));
for (const r of rows) console.log(line(r));
