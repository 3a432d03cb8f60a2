#!/usr/bin/env bun
/**
 * @module scripts/bench/relevance-turns
 * What a turn costs a long-lived agent (issue 16 item 4), and what the cold CLI's identity check
 * costs beside the stat floor, at 1.1k and 11k skills (the replicated corpus of relevance.ts).
 *
 *   bun scripts/bench/relevance-turns.ts [--turns N] [--cold-runs N] [--cold-only] [--baseline-tree DIR]
 *                                        [--cache DIR] [--corpus DIR]
 *
 * `--cold-only` skips the per-turn rows; `--baseline-tree DIR` (another commit's tree, e.g.
 * `git archive <rev> src | tar -x -C DIR` with node_modules linked into DIR) also times that
 * tree's check program in the same alternating runs.
 *
 * Per turn: `findRelevant` (3 results) with turns 60 ms apart on the real clock, nothing changed:
 * with the watch (createLemon's default: armed from a scope's second check, it vouches for the
 * scope, no stat pass) and with watching off (every turn runs the stats-only identity check),
 * beside the query alone (a repeat inside the 50 ms interval: scoring only). The watched turns run
 * twice: first as the process's first calls (as before), then after the back-to-back repeats, when
 * the JIT has seen the query path as often as before the frozen-clock rows.
 *
 * Cold check: a compiled program (built like lemon) opens each scope's snapshot and runs the
 * identity check once, timed in-process, one process per run: what a cold `skill relevant` pays
 * for its stat check. Two floors stat the same paths, each in a fresh process per run: the issue's
 * floor, stat-floor.ts compiled like lemon (what Bun itself costs for these stats: `fs.statSync`
 * alone, and half through the `fs.stat` pool, the faster median counts), and stat-floor.c
 * (cc -O2, the system calls alone, the faster of one thread and two in its first pass). All three
 * are timed in-process from the first stat, process start excluded; the programs' order rotates
 * from run to run. Medians, and the median of each run's check ÷ floor (scripts/bench/relevance.md).
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createContext } from "../../src/core/context.ts";
import { createLemon } from "../../src/core/index.ts";
import { resolvePaths } from "../../src/core/paths.ts";
import { resolveRoots } from "../../src/core/skills/roots.ts";
import { computeIdentity } from "../../src/core/skills/search/identity.ts";
import { RelevanceEngine } from "../../src/core/skills/search/relevance.ts";
import { hostTarget } from "../targets.ts";
import { requireCorpus } from "./corpus.ts";
import { buildProgram } from "./hello.ts";
import { pct } from "./measure.ts";
import { ms, scaleOptions } from "./relevance-cli.ts";
import { corpusDocs, corpusLemon, loadQueries } from "./relevance-quality.ts";
import { makeScale, replicate, type Scale } from "./replicate.ts";

const REPO = resolve(import.meta.dir, "..", "..");
const QUERIES = join(REPO, "tests/fixtures/relevance/queries.json");
const TURN_MS = 60;

function fail(msg: string): never {
  console.error(`relevance-turns bench: ${msg}`);
  process.exit(2);
}

function parseOptions(argv: string[]) {
  let corpus: string | null = null;
  let baselineTree: string | null = null;
  const o = { turns: 100, coldRuns: 20, coldOnly: false, cache: join(tmpdir(), "lemon-bench-relevance") };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const value = () => argv[++i] ?? fail(`${a} needs a value`);
    if (a === "--turns") o.turns = Math.max(5, Number.parseInt(value(), 10) || 0);
    else if (a === "--cold-runs") o.coldRuns = Math.max(3, Number.parseInt(value(), 10) || 0);
    else if (a === "--cold-only") o.coldOnly = true;
    else if (a === "--baseline-tree") baselineTree = resolve(value());
    else if (a === "--cache") o.cache = resolve(value());
    else if (a === "--corpus") corpus = value();
    else fail(`unknown option '${a}'`);
  }
  return { ...o, baselineTree, corpus: requireCorpus(corpus) };
}

const p5095 = (t: number[]) => `${ms(pct(t, 50))} / ${ms(pct(t, 95))}`;

/** `turns` calls `TURN_MS` apart (the wait is not timed). */
async function turns(run: (q: string) => Promise<unknown>, queries: string[], n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    await Bun.sleep(TURN_MS);
    const t = performance.now();
    await run(queries[i % queries.length]!);
    out.push(performance.now() - t);
  }
  return out;
}

/**
 * Per-turn `findRelevant` through createLemon, turns 60 ms apart, nothing changed (the watch
 * armed): `n` timed turns, and `alone` calls repeated inside the 50 ms interval.
 */
export async function watchedTurns(
  s: Scale,
  queries: string[],
  n: number,
  alone = 0,
): Promise<{ turns: number[]; alone: number[]; later: number[] }> {
  const lemon = createLemon({ ...scaleOptions(s, "auto"), curator: false });
  const q3 = (q: string) => lemon.skills.findRelevant(q, { maxResults: 3 });
  await q3("warm up");
  // A few turns: the second check arms the watch, the next one starts its baseline.
  await turns(q3, queries, 10);
  const watched = await turns(q3, queries, n);
  const repeats: number[] = [];
  for (let i = 0; i < alone; i++) {
    const t = performance.now();
    await q3(queries[i % queries.length]!);
    repeats.push(performance.now() - t);
  }
  // The same turns again, now that the query path has run as often as before the other rows:
  // the first series runs on code the JIT has seen ~10 times, the frozen-clock rows after ~200.
  const later = alone > 0 ? await turns(q3, queries, n) : [];
  await lemon.close();
  return { turns: watched, alone: repeats, later };
}

async function perTurn(s: Scale, queries: string[], n: number, rows: string[][]): Promise<void> {
  const { turns: watched, alone, later } = await watchedTurns(s, queries, n, Math.min(n * 4, 400));
  // Watching off: the stats-only identity check on every turn (the CLI's and the fallback's path).
  const ctx = createContext(scaleOptions(s, "auto"));
  const engine = new RelevanceEngine(ctx, { watch: "never" });
  const e3 = (q: string) => engine.findRelevant(ctx, q, { maxResults: 3 });
  await turns(e3, queries, 5);
  const statted = await turns(e3, queries, n);
  await engine.close();
  // The query alone at the same pace: a frozen clock keeps every call inside the 50 ms interval,
  // so what a turn adds to it (roots, the watch's word, the lockfile and skills.json stats) shows.
  const frozen = new Date();
  const still = createLemon({ ...scaleOptions(s, "auto"), curator: false, now: () => frozen });
  const s3 = (q: string) => still.skills.findRelevant(q, { maxResults: 3 });
  await turns(s3, queries, 5);
  const paced = await turns(s3, queries, n);
  await still.close();
  rows.push([s.name, "findRelevant per turn, 60 ms apart, watched p50/p95", p5095(watched), "p50 ≤ 1 ms"]);
  rows.push([s.name, "  same, after the back-to-back calls below p50/p95", p5095(later), "p50 ≤ 1 ms"]);
  rows.push([s.name, "  same, watching off (stat check) p50/p95", p5095(statted), ""]);
  rows.push([s.name, "  query alone, 60 ms apart (frozen clock) p50/p95", p5095(paced), ""]);
  rows.push([s.name, "  query alone, back to back, p50/p95", p5095(alone), ""]);
}

/** The paths one check of the scale stats (watched paths, every SKILL.md, the lockfiles), as a list file. */
async function pathList(s: Scale, dir: string): Promise<{ list: string; count: number }> {
  const ctx = createContext(scaleOptions(s));
  const roots = resolveRoots(ctx);
  const paths = resolvePaths(ctx);
  const all: string[] = [];
  for (const [r, lock] of [
    [roots.project, paths.project.lockfile],
    [roots.global, paths.global.lockfile],
  ] as const) {
    const idn = await computeIdentity(r, lock, null);
    if (idn.count === 0) continue;
    all.push(...new TextDecoder().decode(idn.statPaths()).split("\0"), lock);
  }
  const list = join(dir, `check-paths-${s.name}.txt`);
  writeFileSync(list, all.join("\n"));
  return { list, count: all.length };
}

function coldCheckProgram(dir: string, tree = REPO, name = "cold-check"): string {
  const src = (m: string) => JSON.stringify(join(tree, m));
  return buildProgram(
    dir,
    name,
    `import { createContext } from ${src("src/core/context.ts")};\n` +
      `import { resolvePaths } from ${src("src/core/paths.ts")};\n` +
      `import { resolveRoots } from ${src("src/core/skills/roots.ts")};\n` +
      `import { readSnapshotFile, snapshotPath } from ${src("src/core/skills/search/file.ts")};\n` +
      `import { computeIdentity, scopeId } from ${src("src/core/skills/search/identity.ts")};\n` +
      `const ctx = createContext({ cwd: process.cwd(), env: process.env });\n` +
      `const roots = resolveRoots(ctx); const paths = resolvePaths(ctx);\n` +
      `const snaps = [[roots.project, paths.project.lockfile], [roots.global, paths.global.lockfile]]\n` +
      `  .map(([r, l]) => [r, l, readSnapshotFile(snapshotPath(paths.snapshotDir, scopeId(r)))]);\n` +
      `const t = performance.now(); let lean = true;\n` +
      // The digest is read as the CLI reads it (store.ts compares it with the snapshot's): made on
      // first read since identity format 3, it must stay inside the timed check.
      `for (const [r, l, s] of snaps) { const idn = await computeIdentity(r, l, s);\n` +
      `  if (idn.count > 0) { lean &&= idn.lean; if (idn.digest.length !== 32) lean = false; } }\n` +
      `console.log(JSON.stringify({ ms: performance.now() - t, lean }));\n`,
  );
}

/** stat-floor.ts compiled exactly like lemon: the runtime's own cost for the same stats. */
function bunFloorProgram(dir: string): string {
  return buildProgram(dir, "stat-floor-bun", readFileSync(join(REPO, "scripts/bench/stat-floor.ts"), "utf8"));
}

function floorProgram(dir: string): string {
  const out = join(dir, "stat-floor-c");
  const p = Bun.spawnSync(["cc", "-O2", "-pthread", "-o", out, join(REPO, "scripts/bench/stat-floor.c")], {
    stderr: "pipe",
  });
  if (p.exitCode !== 0) fail(`cc stat-floor.c failed (a C compiler is needed): ${p.stderr.toString()}`);
  return out;
}

function run(argv: string[], cwd: string, env: Record<string, string>): string {
  const p = Bun.spawnSync(argv, { cwd, env, stdout: "pipe", stderr: "pipe" });
  if (p.exitCode !== 0) fail(`${argv[0]} exited ${p.exitCode}: ${p.stderr.toString()}`);
  return p.stdout.toString();
}

interface ColdBins {
  check: string;
  baseline: string | null;
  floor: string;
  bunFloor: string;
}

/**
 * One fresh process per figure and run, the programs alternating within each run so load on the
 * machine hits them alike. lemon's check and the Bun floor are timed in-process from the first
 * stat (process start and module loading excluded from both); the C floor likewise.
 */
async function coldCheck(s: Scale, dir: string, bins: ColdBins, runs: number, rows: string[][]) {
  const { list, count } = await pathList(s, dir);
  // Snapshots current (the program only checks): one full lemon call first.
  {
    await using l = createLemon({ ...scaleOptions(s, "never"), curator: false });
    await l.skills.findRelevant("warm up");
  }
  const lemon: number[] = [];
  const base: number[] = [];
  const floor: number[] = [];
  const bunSync: number[] = [];
  const bunSplit: number[] = [];
  const bunFloor = (mode: string) => {
    const r = JSON.parse(run([bins.bunFloor, list, mode], dir, s.env)) as { ms: number; n: number };
    if (r.n !== count) fail(`stat-floor-bun read ${r.n} paths, expected ${count}`);
    return r.ms;
  };
  const jobs: (() => void)[] = [
    () => {
      const r = JSON.parse(run([bins.check], s.cwd, s.env)) as { ms: number; lean: boolean };
      if (!r.lean) fail(`${s.name}: the cold check fell back to a full scan on an unchanged tree`);
      lemon.push(r.ms);
    },
    () => {
      const m = /one thread ([\d.]+) ms, two threads ([\d.]+) ms/.exec(run([bins.floor, list], dir, s.env));
      if (!m) fail("unexpected stat-floor output");
      floor.push(Math.min(Number(m[1]), Number(m[2])));
    },
    () => bunSync.push(bunFloor("sync")),
    () => bunSplit.push(bunFloor("split")),
  ];
  const baseline = bins.baseline;
  if (baseline) jobs.push(() => base.push((JSON.parse(run([baseline], s.cwd, s.env)) as { ms: number }).ms));
  // The order rotates from run to run, so no program always follows the same one (the one before
  // leaves the same paths warm in the CPU's caches, or the machine busier).
  for (let i = 0; i < runs; i++) for (let k = 0; k < jobs.length; k++) jobs[(i + k) % jobs.length]!();
  const l50 = pct(lemon, 50);
  const f50 = pct(floor, 50);
  const sync50 = pct(bunSync, 50);
  const split50 = pct(bunSplit, 50);
  const b50 = Math.min(sync50, split50);
  const bun = sync50 <= split50 ? bunSync : bunSplit;
  // Each run's ratio: the two processes ran back to back, so the load they met was much the same.
  const paired = pct(
    lemon.map((l, i) => l / bun[i]!),
    50,
  );
  rows.push([s.name, `cold identity check, ${count} paths, p50 (ms)`, ms(l50), ""]);
  rows.push([s.name, "  Bun floor (stat-floor.ts compiled), statSync p50", ms(sync50), ""]);
  rows.push([s.name, "  Bun floor, half via the fs.stat pool, p50", ms(split50), ""]);
  rows.push([s.name, "  check ÷ Bun floor (the faster of the two)", `${(l50 / b50).toFixed(2)}×`, "≤ 1.25×"]);
  rows.push([s.name, "  same, median of the per-run ratios", `${paired.toFixed(2)}×`, "≤ 1.25×"]);
  if (bins.baseline) {
    const r = pct(
      lemon.map((l, i) => l / base[i]!),
      50,
    );
    rows.push([s.name, "  baseline tree's check p50 (ms)", ms(pct(base, 50)), ""]);
    rows.push([s.name, "  check ÷ baseline, median of the per-run ratios", `${r.toFixed(2)}×`, ""]);
  }
  rows.push([s.name, "  C floor (stat-floor.c, 1 or 2 threads) p50 (ms)", ms(f50), ""]);
  rows.push([s.name, "  check ÷ C floor", `${(l50 / f50).toFixed(2)}×`, ""]);
}

async function main(): Promise<void> {
  const o = parseOptions(process.argv.slice(2));
  mkdirSync(o.cache, { recursive: true });
  const dir = join(o.cache, "turns");
  mkdirSync(dir, { recursive: true });
  const queries = (await loadQueries(QUERIES)).map((q) => q.query);
  let base: number;
  {
    await using env = await corpusLemon(o.corpus);
    base = (await corpusDocs(env.registry)).length;
  }
  const x10 = replicate(o.corpus, o.cache, 10, 1);
  const scales = [makeScale(o.cache, base, [o.corpus]), makeScale(o.cache, x10.skills, x10.roots)];
  const bins = {
    check: coldCheckProgram(dir),
    baseline: o.baselineTree ? coldCheckProgram(dir, o.baselineTree, "cold-check-baseline") : null,
    floor: floorProgram(dir),
    bunFloor: bunFloorProgram(dir),
  };
  const rows: string[][] = [];
  for (const s of scales) {
    if (!o.coldOnly) {
      console.error(`[${s.name}] per-turn …`);
      await perTurn(s, queries, o.turns, rows);
    }
    console.error(`[${s.name}] cold check …`);
    await coldCheck(s, dir, bins, o.coldRuns, rows);
  }
  const t = hostTarget();
  console.log(
    `lemon per-turn relevance and the cold identity check — ${t.name}, Bun ${Bun.version}, ` +
      `${o.turns} turns, ${o.coldRuns} cold runs`,
  );
  console.log(`corpus: ${o.corpus}; replicas in ${o.cache}\n`);
  const w = [8, 54, 20];
  console.log(["scale".padEnd(w[0]!), "figure".padEnd(w[1]!), "value".padEnd(w[2]!), "target"].join(" "));
  for (const r of rows) console.log([r[0]!.padEnd(w[0]!), r[1]!.padEnd(w[1]!), r[2]!.padEnd(w[2]!), r[3]].join(" "));
  const args = process.argv.slice(2).join(" ");
  console.log(`\nreproduce: ./node_modules/.bin/bun scripts/bench/relevance-turns.ts${args ? ` ${args}` : ""}`);
}

if (import.meta.main) await main();
