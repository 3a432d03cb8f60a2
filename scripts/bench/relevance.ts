#!/usr/bin/env bun
/**
 * @module scripts/bench/relevance
 * Speed of relevance (skills.md §7, issue 3) at three corpus sizes, then the quality table of
 * relevance-quality.ts. Every figure comes from this run on this machine.
 *
 *   bun scripts/bench/relevance.ts [--runs N] [--cli-runs N] [--cache DIR] [--corpus DIR] [--bin PATH]
 *                                  [--skip-112k] [--skip-quality] [--minisearch-112k]
 *
 * --cache DIR   where the replicated corpora and their agent dirs (with snapshots) live, reused
 *               across runs (default $TMPDIR/lemon-bench-relevance)
 * --bin PATH    the compiled lemon to time (default: built into the cache with `bun build.ts
 *               --single --no-archive --outdir`)
 * --minisearch-112k  also run MiniSearch at ×100: off by default, indexing takes minutes and its
 *               fuzzy queries grew past 15 GB of RSS on the reference VM
 *
 * Sizes: the shared corpus (1,124 skills), ×10 (11,240, one root) and ×100 (112,400). One root
 * reads at most 20,000 entries (skills.md §2.2), so ×100 is dealt over eight roots: four global
 * (agents, omp, claude, codex) and four project ones (cwd/.agents/skills, …), two scopes of
 * ~56k skills each.
 *
 * Figures: warm in-process `findRelevant` (p50/p95, 3 results), and at 10 results against
 * MiniSearch (the quality table's settings) over the same documents and queries; snapshot open
 * (map + header check); the identity check (stats only, and the full scan it replaces); rebuild after one SKILL.md edit; `lemon skill relevant` as a cold
 * process against a compiled hello-world (alternating runs, medians) and its peak RSS through GNU
 * time (see startup.ts for why not resourceUsage).
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createLemon, type Lemon } from "../../src/core/index.ts";
import { readSnapshotFile } from "../../src/core/skills/search/file.ts";
import { computeIdentity } from "../../src/core/skills/search/identity.ts";
import { parseQuery, scoreSnapshot } from "../../src/core/skills/search/score.ts";
import { resolveRoots } from "../../src/core/skills/roots.ts";
import { resolvePaths } from "../../src/core/paths.ts";
import { hostTarget } from "../targets.ts";
import { buildHello, buildProgram } from "./hello.ts";
import { corpusDocs, corpusLemon, formatQuality, loadQueries, miniSearchEngine, runQuality, type Doc } from "./relevance-quality.ts";
import { replicate } from "./replicate.ts";

const REPO = resolve(import.meta.dir, "..", "..");
const QUERIES = join(REPO, "tests/fixtures/relevance/queries.json");
const GLOBAL_ENV = ["LEMON_CLAUDE_SKILLS_DIR", "LEMON_CODEX_SKILLS_DIR", "LEMON_HARNESS_SKILLS_DIR", "LEMON_OMP_SKILLS_DIR"];
const PROJECT_DIRS = [".claude/skills", ".codex/skills", ".agents/skills", ".omp/skills"];

interface Options {
  runs: number;
  cliRuns: number;
  cache: string;
  corpus: string;
  bin: string | null;
  skip112k: boolean;
  skipQuality: boolean;
  minisearch112k: boolean;
}

function fail(msg: string): never {
  console.error(`relevance bench: ${msg}`);
  process.exit(2);
}

function parseOptions(argv: string[]): Options {
  const o: Options = {
    runs: 400,
    cliRuns: 30,
    cache: join(tmpdir(), "lemon-bench-relevance"),
    corpus: [join(REPO, "..", "shared", "corpus", "skills"), "/work/shared/corpus/skills"].find((d) => existsSync(d)) ?? "",
    bin: null,
    skip112k: false,
    skipQuality: false,
    minisearch112k: false,
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const value = () => argv[++i] ?? fail(`${a} needs a value`);
    if (a === "--runs") o.runs = Math.max(1, Number.parseInt(value(), 10) || 0);
    else if (a === "--cli-runs") o.cliRuns = Math.max(1, Number.parseInt(value(), 10) || 0);
    else if (a === "--cache") o.cache = resolve(value());
    else if (a === "--corpus") o.corpus = resolve(value());
    else if (a === "--bin") o.bin = resolve(value());
    else if (a === "--skip-112k") o.skip112k = true;
    else if (a === "--skip-quality") o.skipQuality = true;
    else if (a === "--minisearch-112k") o.minisearch112k = true;
    else fail(`unknown option '${a}'`);
  }
  if (o.corpus === "" || !existsSync(o.corpus)) fail("no corpus found; pass --corpus DIR");
  return o;
}

/** Nearest-rank percentile. */
function pct(values: readonly number[], p: number): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
}

const ms = (x: number) => (x < 1 ? x.toFixed(3) : x < 10 ? x.toFixed(2) : x.toFixed(1));

/** One corpus size: its roots, a cwd and the env a lemon process (or instance) gets. */
interface Scale {
  name: string;
  skills: number;
  cwd: string;
  env: Record<string, string>;
  /** Some SKILL.md of the corpus, for the edit case. */
  sample: string;
}

function makeScale(o: Options, name: string, skills: number, roots: string[]): Scale {
  const base = join(o.cache, `scale-${name}`);
  const cwd = join(base, "cwd");
  const home = join(base, "home");
  mkdirSync(cwd, { recursive: true });
  mkdirSync(home, { recursive: true });
  const env: Record<string, string> = { PATH: process.env.PATH ?? "", HOME: home, USERPROFILE: home, NO_COLOR: "1", LEMON_AGENT_DIR: join(base, "agent") };
  // Up to four global roots by env, the rest as project roots linked into the cwd.
  roots.forEach((r, i) => {
    if (i < GLOBAL_ENV.length) env[GLOBAL_ENV[i]!] = r;
    else {
      const link = join(cwd, PROJECT_DIRS[i - GLOBAL_ENV.length]!);
      if (!existsSync(link)) {
        mkdirSync(join(link, ".."), { recursive: true });
        symlinkSync(r, link);
      }
    }
  });
  const first = roots[0]!;
  const cat = readdirSync(first).sort()[0]!;
  const key = readdirSync(join(first, cat)).sort()[0]!;
  return { name, skills, cwd, env, sample: join(first, cat, key, "SKILL.md") };
}

function lemonFor(s: Scale, worker: "never" | "auto" = "never"): Lemon {
  return createLemon({ cwd: s.cwd, env: { ...s.env, LEMON_SNAPSHOT_WORKER: worker }, curator: false });
}

/** The replicated documents MiniSearch indexes: the base corpus's, with the replica keys. */
function replicatedDocs(base: Doc[], copies: number): Doc[] {
  if (copies === 1) return base;
  const out: Doc[] = [];
  for (let c = 0; c < copies; c++) {
    const tag = `-r${String(c).padStart(3, "0")}`;
    for (const d of base) out.push({ ...d, key: d.key + tag, name: `${d.key}${tag} ${d.name.slice(d.key.length + 1)}` });
  }
  return out;
}

interface Row {
  scale: string;
  figure: string;
  value: string;
  target: string;
}

async function timeQueries(run: (q: string) => unknown, queries: string[], runs: number): Promise<number[]> {
  // Warm: every query twice, so the JIT has settled as in a long-lived agent process (each
  // engine gets the same warm-up).
  for (let pass = 0; pass < 2; pass++) for (const q of queries) await run(q);
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const q = queries[i % queries.length]!;
    const t = performance.now();
    await run(q);
    times.push(performance.now() - t);
  }
  return times;
}

async function inProcess(o: Options, s: Scale, copies: number, baseDocs: Doc[], queries: string[], rows: Row[]): Promise<void> {
  const lemon = lemonFor(s, "auto");
  const t0 = performance.now();
  await lemon.skills.findRelevant("warm up", {});
  const first = performance.now() - t0;
  const build = lemon.registry.relevance().store.lastBuild;
  console.error(`[${s.name}] first call ${ms(first)} ms${build ? ` (built via ${build.via}, ${build.loaded} loaded)` : " (snapshot current)"}`);

  const lemonTimes = await timeQueries((q) => lemon.skills.findRelevant(q, { maxResults: 3 }), queries, o.runs);
  // Both scopes scored, as when the project scope has too few hits to fill the results.
  const snaps = await lemon.registry.relevance().snapshots(lemon.context, false);
  const both = await timeQueries(
    (q) => {
      const p = parseQuery(q);
      if (snaps.project) scoreSnapshot(snaps.project, p, 9);
      if (snaps.global) scoreSnapshot(snaps.global, p, 9);
    },
    queries,
    o.runs,
  );
  const lp50 = pct(lemonTimes, 50);
  const target = copies >= 100 ? "≤ 3 ms" : copies >= 10 ? "≤ 0.3 ms" : "";
  rows.push({ scale: s.name, figure: "findRelevant warm p50 / p95 (ms)", value: `${ms(lp50)} / ${ms(pct(lemonTimes, 95))}`, target });
  rows.push({ scale: s.name, figure: "  both scopes scored, p50 / p95 (ms)", value: `${ms(pct(both, 50))} / ${ms(pct(both, 95))}`, target: "" });
  if (copies < 100 || o.minisearch112k) {
    // MiniSearch with the settings of the quality table; both engines asked for 10 results.
    const docs = replicatedDocs(baseDocs, copies);
    const tIdx = performance.now();
    const mini = miniSearchEngine(docs);
    console.error(`[${s.name}] MiniSearch indexed ${docs.length} docs in ${ms(performance.now() - tIdx)} ms`);
    const miniRuns = Math.min(o.runs, copies >= 100 ? 60 : o.runs);
    const miniTimes = await timeQueries(mini, queries, miniRuns);
    const lemon10 = await timeQueries((q) => lemon.skills.findRelevant(q, { maxResults: 10 }), queries, miniRuns);
    const mp50 = pct(miniTimes, 50);
    rows.push({ scale: s.name, figure: "  10 results, p50 / p95 (ms)", value: `${ms(pct(lemon10, 50))} / ${ms(pct(lemon10, 95))}`, target: "" });
    rows.push({ scale: s.name, figure: "MiniSearch 10 results, p50 / p95 (ms)", value: `${ms(mp50)} / ${ms(pct(miniTimes, 95))}`, target: "" });
    rows.push({ scale: s.name, figure: "MiniSearch p50 ÷ lemon p50 (10 results)", value: `${(mp50 / pct(lemon10, 50)).toFixed(1)}×`, target: "≥ 10×" });
  }

  // Snapshot open: map + header and table checks, per scope file.
  const dir = resolvePaths(lemon.context).snapshotDir;
  const files = readdirSync(dir).filter((f) => f.endsWith(".snap")).map((f) => join(dir, f));
  const opens: number[] = [];
  for (let i = 0; i < 50; i++)
    for (const f of files) {
      const t = performance.now();
      if (!readSnapshotFile(f)) throw new Error(`unusable snapshot ${f}`);
      opens.push(performance.now() - t);
    }
  rows.push({ scale: s.name, figure: "snapshot open p50 / p95 (ms)", value: `${ms(pct(opens, 50))} / ${ms(pct(opens, 95))}`, target: "≤ 5 ms" });

  // Identity check of the largest scope: stats only (against its snapshot), and the full scan.
  const roots = resolveRoots(lemon.context);
  const paths = resolvePaths(lemon.context);
  const scope = (snaps.global?.docCount ?? 0) >= (snaps.project?.docCount ?? 0) ? { roots: roots.global, snap: snaps.global, lock: paths.global.lockfile } : { roots: roots.project, snap: snaps.project, lock: paths.project.lockfile };
  const lean: number[] = [];
  const full: number[] = [];
  for (let i = 0; i < 15; i++) {
    let t = performance.now();
    const idn = await computeIdentity(scope.roots, scope.lock, scope.snap);
    lean.push(performance.now() - t);
    if (!idn.lean) throw new Error("identity check fell back to the full scan on an unchanged tree");
    if (i < 5) {
      t = performance.now();
      await computeIdentity(scope.roots, scope.lock, null);
      full.push(performance.now() - t);
    }
  }
  const n = scope.snap?.docCount ?? 0;
  rows.push({ scale: s.name, figure: `identity check, ${n} SKILL.md, p50 (ms)`, value: ms(pct(lean, 50)), target: copies === 10 ? "≤ 25 ms" : "" });
  rows.push({ scale: s.name, figure: "  full scan instead, p50 (ms)", value: ms(pct(full, 50)), target: "" });

  if (copies === 10) rows.push(await editRebuild(s, lemon));
  await lemon.close();
}

/** One SKILL.md rewritten (a new file renamed over the link, so the shared corpus is untouched). */
async function editRebuild(s: Scale, lemon: Lemon): Promise<Row> {
  const original = readFileSync(s.sample, "utf8");
  const times: number[] = [];
  let loaded = 0;
  try {
    for (let i = 0; i < 9; i++) {
      const tmp = `${s.sample}.bench-tmp`;
      writeFileSync(tmp, `${original}\nedited ${Date.now()} ${i}\n`);
      renameSync(tmp, s.sample);
      await Bun.sleep(60); // past the 50 ms check interval
      const t = performance.now();
      await lemon.skills.findRelevant("write unit tests", {});
      times.push(performance.now() - t);
      const b = lemon.registry.relevance().store.lastBuild;
      // Invalid SKILL.md have no document to reuse, so they are loaded again with the edited one.
      if (!b || b.reused === 0 || b.loaded > 100) throw new Error(`edit did not rebuild incrementally: ${JSON.stringify(b)}`);
      loaded = b.loaded;
    }
  } finally {
    // Back to the original bytes (a fresh file: the old link's target was never written).
    const tmp = `${s.sample}.bench-tmp`;
    writeFileSync(tmp, original);
    renameSync(tmp, s.sample);
  }
  return { scale: s.name, figure: `rebuild after one SKILL.md edit (${loaded} loaded), p50 (ms)`, value: ms(pct(times, 50)), target: "≤ 150 ms" };
}

function lemonBinary(o: Options): string {
  if (o.bin) return o.bin;
  const outdir = join(o.cache, "dist");
  console.error(`building lemon into ${outdir} …`);
  const p = Bun.spawnSync([process.execPath, "build.ts", "--single", "--no-archive", "--outdir", outdir], { cwd: REPO, stdout: "ignore", stderr: "pipe" });
  if (p.exitCode !== 0) fail(`bun build.ts failed: ${p.stderr.toString()}`);
  const t = hostTarget();
  return join(outdir, `lemon-${t.name}`, t.exe);
}

function gnuTime(): string | null {
  const bin = "/usr/bin/time";
  if (!existsSync(bin)) return null;
  const p = Bun.spawnSync([bin, "-f", "%M", "true"], { stdout: "ignore", stderr: "pipe" });
  return p.exitCode === 0 ? bin : null;
}

function wall(argv: string[], cwd: string, env: Record<string, string>): number {
  const t = performance.now();
  const p = Bun.spawnSync(argv, { cwd, env, stdin: "ignore", stdout: "ignore", stderr: "ignore" });
  const d = performance.now() - t;
  if (p.exitCode !== 0) throw new Error(`${argv.join(" ")} exited ${p.exitCode}`);
  return d;
}

/**
 * The least any cold `skill relevant` must do, as a compiled program of its own: start the
 * runtime, load node:fs and stat every SKILL.md of the scale (the identity check of skills.md
 * §7.3 cannot skip one, or an in-place edit goes unseen), with the same parallel stat lemon uses.
 */
async function statFloor(o: Options, scales: Scale[]): Promise<{ bin: string; lists: Map<string, string> }> {
  const dir = join(o.cache, "floor");
  mkdirSync(dir, { recursive: true });
  const statMany = join(REPO, "src/core/skills/search/stat-many.ts");
  const bin = buildProgram(
    dir,
    "stat-floor",
    `import { readFileSync } from "node:fs";\nimport { statMany } from ${JSON.stringify(statMany)};\n` +
      `const paths = readFileSync(process.argv[2]!, "utf8").split("\\n");\nconsole.log((await statMany(paths)).length);\n`,
  );
  const lists = new Map<string, string>();
  for (const s of scales) {
    const lemon = lemonFor(s);
    const roots = resolveRoots(lemon.context);
    const paths = resolvePaths(lemon.context);
    const files: string[] = [];
    for (const [r, lock] of [[roots.project, paths.project.lockfile], [roots.global, paths.global.lockfile]] as const)
      for (const c of (await computeIdentity(r, lock, null)).candidates()) files.push(c.skillFile);
    await lemon.close();
    const list = join(dir, `paths-${s.name}.txt`);
    writeFileSync(list, files.join("\n"));
    lists.set(s.name, list);
  }
  return { bin, lists };
}

/** `lemon skill relevant` per scale beside hello-world and the stat floor, alternating; peak RSS through GNU time. */
async function cli(o: Options, scales: Scale[], rows: Row[]): Promise<void> {
  const lemon = lemonBinary(o);
  const helloDir = join(o.cache, "hello");
  mkdirSync(helloDir, { recursive: true });
  const hello = buildHello(helloDir);
  const floor = await statFloor(o, scales);
  const q = ["skill", "relevant", "write unit tests for a react component"];
  const helloEnv = { PATH: process.env.PATH ?? "", HOME: join(o.cache, "home-hello") };
  for (const s of scales) wall([lemon, ...q], s.cwd, s.env); // snapshots current, page cache warm
  const samples = new Map<string, number[]>([["hello", []], ...scales.flatMap((s) => [[s.name, []], [`floor ${s.name}`, []]] as [string, number[]][])]);
  for (let i = 0; i < o.cliRuns; i++) {
    samples.get("hello")!.push(wall([hello], o.cache, helloEnv));
    for (const s of scales) {
      samples.get(s.name)!.push(wall([lemon, ...q], s.cwd, s.env));
      samples.get(`floor ${s.name}`)!.push(wall([floor.bin, floor.lists.get(s.name)!], o.cache, helloEnv));
    }
  }
  const h = pct(samples.get("hello")!, 50);
  rows.push({ scale: "-", figure: "hello-world wall p50 (ms)", value: ms(h), target: "" });
  const time = gnuTime();
  for (const s of scales) {
    const w = pct(samples.get(s.name)!, 50);
    const f = pct(samples.get(`floor ${s.name}`)!, 50);
    const target = s.skills < 2000 ? "≤ 1.5×" : s.skills < 20000 ? "≤ 2.5×" : "";
    rows.push({ scale: s.name, figure: "skill relevant (cold process) wall p50 (ms)", value: `${ms(w)} (${(w / h).toFixed(2)}× hello)`, target });
    rows.push({ scale: s.name, figure: "  floor: runtime + node:fs + stat every SKILL.md", value: `${ms(f)} (${(f / h).toFixed(2)}× hello)`, target: "" });
    if (time) {
      const p = Bun.spawnSync([time, "-f", "%M", lemon, ...q], { cwd: s.cwd, env: s.env, stdout: "ignore", stderr: "pipe" });
      const kib = Number.parseInt(p.stderr.toString().trim().split("\n").pop() ?? "", 10);
      rows.push({ scale: s.name, figure: "skill relevant peak RSS (MiB)", value: (kib / 1024).toFixed(1), target: s.skills > 100_000 ? "≤ 200 MB" : "" });
    }
  }
}

function printTable(rows: Row[]): void {
  const w = [8, 46, 26];
  console.log(["scale".padEnd(w[0]!), "figure".padEnd(w[1]!), "value".padEnd(w[2]!), "target"].join(" "));
  for (const r of rows) console.log([r.scale.padEnd(w[0]!), r.figure.padEnd(w[1]!), r.value.padEnd(w[2]!), r.target].join(" "));
}

async function main(): Promise<void> {
  const o = parseOptions(process.argv.slice(2));
  mkdirSync(o.cache, { recursive: true });
  const queries = (await loadQueries(QUERIES)).map((q) => q.query);
  let baseDocs: Doc[];
  {
    await using env = await corpusLemon(o.corpus);
    baseDocs = await corpusDocs(env.lemon);
  }
  const x10 = replicate(o.corpus, o.cache, 10, 1);
  const scales: { scale: Scale; copies: number }[] = [
    { scale: makeScale(o, "1.1k", baseDocs.length, [o.corpus]), copies: 1 },
    { scale: makeScale(o, "11k", x10.skills, x10.roots), copies: 10 },
  ];
  if (!o.skip112k) {
    console.error("replicating the corpus ×100 (first run only) …");
    const x100 = replicate(o.corpus, o.cache, 100, 8);
    scales.push({ scale: makeScale(o, "112k", x100.skills, x100.roots), copies: 100 });
  }
  // The 1.1k MiniSearch documents are the displayable corpus skills; replicas copy them.
  const rows: Row[] = [];
  for (const { scale, copies } of scales) await inProcess(o, scale, copies, baseDocs, queries, rows);
  await cli(o, scales.map((s) => s.scale), rows);

  const t = hostTarget();
  console.log(`lemon relevance speed — ${t.name}, Bun ${Bun.version}, ${queries.length} queries, ${o.runs} timed calls per engine, ${o.cliRuns} alternating CLI runs`);
  console.log(`corpus: ${o.corpus}; replicas in ${o.cache}\n`);
  printTable(rows);
  if (!o.skipQuality) {
    const { report } = await runQuality(o.corpus, QUERIES);
    console.log(`\nquality (${QUERIES}):\n${formatQuality(report)}`);
  }
  const args = process.argv.slice(2).join(" ");
  console.log(`\nreproduce: ./node_modules/.bin/bun scripts/bench/relevance.ts${args ? ` ${args}` : ""}`);
}

await main();
