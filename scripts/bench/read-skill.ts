#!/usr/bin/env bun
/**
 * @module scripts/bench/read-skill
 * `read_skill` (skills.md §8) on the skills corpus: the summary view of one skill, warm in-process
 * (target ≤ 1 ms p50), and a cold `lemon tool read_skill` process beside a cold `lemon skill list`
 * of the same tree (target ≤ 1.5×), each with its floor.
 *
 *   bun scripts/bench/read-skill.ts [--runs N] [--calls N] [--key KEY] [--corpus DIR] [--bin PATH]
 *
 * --runs N     process runs per case (default 20), alternating between cases
 * --calls N    in-process calls per round (default 2000)
 * --key KEY    the skill to read (default: the middle key of the corpus listing)
 * --corpus DIR a skills root laid out <source>/<key>/SKILL.md (default: as scripts/bench/corpus.ts finds it)
 * --bin PATH   measure this lemon binary instead of one compiled from this tree into a scratch dir
 *
 * In-process, the corpus is the `claude` global root of an isolated instance whose search
 * snapshot a first `findRelevant` built, as in any agent loop that asks for relevant skills each
 * turn. "tool" is the read alone; "lemon.readSkill" adds the instance's usage sidecar, which
 * records every load under its lock before the call returns (skills.md §12.2); "no snapshot" is
 * the tool in an instance that never built one, so each call scans the root. Their floor is a
 * readFileSync of the skill's SKILL.md. The process cases get a fresh agent dir per run (no
 * snapshot: both scan and parse the tree); their floors are a compiled hello-world and a compiled
 * program that reads and prints the one SKILL.md.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createLemon } from "../../src/core/index.ts";
import { registryOf } from "../../src/core/internals.ts";
import { readSkill } from "../../src/core/skills/tools/read-skill.ts";
import { hostTarget } from "../targets.ts";
import { requireCorpus } from "./corpus.ts";
import { buildHello, buildProgram } from "./hello.ts";
import { pct, spawnSample, type Sample } from "./measure.ts";

const REPO = resolve(import.meta.dir, "..", "..");

interface Options {
  runs: number;
  calls: number;
  key: string | null;
  corpus: string | null;
  bin: string | null;
}

function fail(msg: string): never {
  console.error(`read-skill bench: ${msg}`);
  process.exit(2);
}

function parseOptions(argv: string[]): Options {
  const o: Options = { runs: 20, calls: 2000, key: null, corpus: null, bin: null };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const value = () => argv[++i] ?? fail(`${a} needs a value`);
    if (a === "--runs") o.runs = Math.max(1, Number.parseInt(value(), 10) || 0);
    else if (a === "--calls") o.calls = Math.max(10, Number.parseInt(value(), 10) || 0);
    else if (a === "--key") o.key = value();
    else if (a === "--corpus") o.corpus = value();
    else if (a === "--bin") o.bin = resolve(value());
    else fail(`unknown option '${a}'`);
  }
  return o;
}

/** A lemon binary compiled from this tree into `dir` (never over dist/, which others measure). */
function compileLemon(dir: string): string {
  const t = hostTarget();
  console.error("compiling lemon from this tree …");
  const p = Bun.spawnSync([process.execPath, "build.ts", "--single", "--no-archive", "--outdir", join(dir, "dist")], {
    cwd: REPO,
    stdout: "ignore",
    stderr: "inherit",
  });
  if (p.exitCode !== 0) fail("bun build.ts --single failed");
  return join(dir, "dist", `lemon-${t.name}`, t.exe);
}

const ms = (n: number) => `${n.toFixed(3)} ms`;

async function inProcess(o: Options, corpus: string, scratch: string): Promise<{ text: string; key: string }> {
  const agentDir = join(scratch, "agent-inproc");
  const cwd = join(scratch, "empty");
  const env = {
    PATH: process.env.PATH ?? "",
    HOME: join(scratch, "home"),
    LEMON_AGENT_DIR: agentDir,
    LEMON_CLAUDE_SKILLS_DIR: corpus,
  };
  await using lemon = createLemon({ cwd, env });
  const listed = (await lemon.skills.list()).skills;
  const key = o.key ?? listed[Math.floor(listed.length / 2)]!.key;
  const entry = listed.find((e) => e.key === key) ?? fail(`no skill '${key}' in the corpus`);
  await lemon.skills.findRelevant("write a job post and an interview rubric", { refresh: true });
  const registry = await registryOf(lemon);
  const host = { registry, fast: { context: lemon.context, cache: new Map() }, now: () => new Date() };
  const params = { key, view: "summary" as const };
  // The same without any snapshot (a host that never asks for relevant skills): each call scans.
  await using bare = createLemon({ cwd, env: { ...env, LEMON_AGENT_DIR: join(scratch, "agent-bare") } });
  const bareHost = {
    registry: await registryOf(bare),
    fast: { context: bare.context, cache: new Map() },
    now: () => new Date(),
  };
  const first = await readSkill(host, params);
  if (first.isError) fail(`read_skill failed: ${JSON.stringify(first.content)}`);
  const file = join(entry.path, "SKILL.md");
  const series = async (f: () => unknown) => {
    const t: number[] = [];
    for (let i = 0; i < o.calls; i++) {
      const s = performance.now();
      await f();
      t.push(performance.now() - s);
    }
    return t;
  };
  // Alternating rounds, so drift hits every series alike; the first round warms the JIT.
  const rows: Record<string, number[]> = { tool: [], "lemon.readSkill": [], scan: [], floor: [] };
  for (let round = 0; round < 4; round++) {
    const tool = await series(() => readSkill(host, params));
    const full = await series(() => lemon.readSkill(params));
    const scan = await series(() => readSkill(bareHost, params));
    const floor = await series(() => readFileSync(file));
    if (round === 0) continue;
    rows.tool!.push(...tool);
    rows["lemon.readSkill"]!.push(...full);
    rows.scan!.push(...scan);
    rows.floor!.push(...floor);
  }
  const line = (name: string, t: number[]) =>
    `  ${name.padEnd(38)} p50 ${ms(pct(t, 50)).padStart(10)}  p90 ${ms(pct(t, 90)).padStart(10)}  p99 ${ms(pct(t, 99)).padStart(10)}`;
  const p50 = pct(rows.tool!, 50);
  const text = [
    `in-process, warm (${listed.length} skills, key ${key}, ${3 * o.calls} calls per series):`,
    line("read_skill summary (tool)", rows.tool!),
    line("lemon.readSkill (+ usage sidecar)", rows["lemon.readSkill"]!),
    line("read_skill summary, no snapshot (scan)", rows.scan!),
    line("  floor: readFileSync(SKILL.md)", rows.floor!),
    `  tool p50 ${ms(p50)}: target ≤ 1 ms ${p50 <= 1 ? "met" : `missed by ${ms(p50 - 1)}`}`,
    "",
  ].join("\n");
  return { text, key };
}

interface Case {
  name: string;
  argv: string[];
  cwd: string;
  env: () => Record<string, string>;
}

function processes(o: Options, corpus: string, scratch: string, key: string): string {
  const lemon = o.bin ?? compileLemon(scratch);
  const hello = buildHello(scratch);
  const home = join(scratch, "home");
  const empty = join(scratch, "empty");
  mkdirSync(home, { recursive: true });
  let fresh = 0;
  const base = { PATH: process.env.PATH ?? "", HOME: home, USERPROFILE: home, NO_COLOR: "1" };
  const corpusEnv = () => ({
    ...base,
    LEMON_AGENT_DIR: join(scratch, `agent-cold-${fresh++}`),
    LEMON_CLAUDE_SKILLS_DIR: corpus,
  });
  const skillFile = JSON.stringify(join(corpus, findSource(corpus, key), key, "SKILL.md"));
  const floor = buildProgram(
    scratch,
    "read-one-floor",
    `import { readFileSync } from "node:fs";\nprocess.stdout.write(readFileSync(${skillFile}, "utf8"));\n`,
  );
  const params = JSON.stringify({ key, view: "summary" });
  const cases: Case[] = [
    { name: "hello-world", argv: [hello], cwd: empty, env: () => base },
    { name: "  floor: read and print one SKILL.md", argv: [floor], cwd: empty, env: () => base },
    { name: "skill list --json (corpus, cold)", argv: [lemon, "skill", "list", "--json"], cwd: empty, env: corpusEnv },
    {
      name: "tool read_skill summary (corpus, cold)",
      argv: [lemon, "tool", "read_skill", params],
      cwd: empty,
      env: corpusEnv,
    },
  ];
  for (const c of cases) {
    const r = spawnSample(c.argv, c.cwd, c.env(), true);
    if (!r.ok) fail(`'${c.name}' failed: ${r.stderr.trim().split("\n").slice(0, 3).join(" | ")}`);
  }
  const samples = new Map<string, Sample[]>(cases.map((c) => [c.name, []]));
  for (let i = 0; i < o.runs; i++)
    for (const c of cases) samples.get(c.name)!.push(spawnSample(c.argv, c.cwd, c.env(), false).sample);
  const med = (name: string, f: keyof Sample, p = 50) =>
    pct(
      samples.get(name)!.map((s) => s[f]),
      p,
    );
  const out = [`processes, cold (fresh agent dir per run, ${o.runs} alternating runs per case; binary ${lemon}):`];
  out.push(
    `  ${"case".padEnd(40)} ${"wall p50".padStart(9)} ${"p90".padStart(7)} ${"cpu p50".padStart(8)} ${"p90".padStart(7)}`,
  );
  for (const c of cases)
    out.push(
      `  ${c.name.padEnd(40)} ${med(c.name, "wallMs").toFixed(1).padStart(9)} ${med(c.name, "wallMs", 90).toFixed(1).padStart(7)} ` +
        `${med(c.name, "cpuMs").toFixed(1).padStart(8)} ${med(c.name, "cpuMs", 90).toFixed(1).padStart(7)}`,
    );
  const [tool, list] = [cases[3]!.name, cases[2]!.name];
  const wall = med(tool, "wallMs") / med(list, "wallMs");
  const cpu = med(tool, "cpuMs") / med(list, "cpuMs");
  out.push(
    `  read_skill vs list: wall ${wall.toFixed(2)}×, cpu ${cpu.toFixed(2)}× — target ≤ 1.5× ${
      wall <= 1.5 ? "met" : `missed by ${((wall - 1.5) * 100).toFixed(0)} points`
    }`,
  );
  return out.join("\n");
}

/** The source directory (`<corpus>/<source>/<key>`) of a key. */
function findSource(corpus: string, key: string): string {
  for (const source of readdirSync(corpus)) if (Bun.file(join(corpus, source, key, "SKILL.md")).size > 0) return source;
  return fail(`no ${key}/SKILL.md under ${corpus}`);
}

async function main(): Promise<void> {
  const o = parseOptions(process.argv.slice(2));
  const corpus = requireCorpus(o.corpus);
  const scratch = mkdtempSync(join(tmpdir(), "lemon-bench-read-"));
  try {
    mkdirSync(join(scratch, "empty"), { recursive: true });
    const { text: warm, key } = await inProcess(o, corpus, scratch);
    console.log(`read_skill — ${hostTarget().name}, Bun ${Bun.version}, corpus ${corpus}\n`);
    console.log(warm);
    console.log(processes(o, corpus, scratch, key));
    const args = process.argv.slice(2).join(" ");
    console.log(`\nreproduce: npx bun scripts/bench/read-skill.ts${args ? ` ${args}` : ""}`);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

await main();
