#!/usr/bin/env bun
/**
 * @module scripts/bench/startup
 * Start-up cost of the compiled binary's hot commands beside a compiled hello-world built the same
 * way. Runs alternate between cases so drift hits all of them alike.
 *
 *   bun scripts/bench/startup.ts [--runs N] [--rebuild] [--corpus DIR] [--bin PATH] [--baseline PATH]
 *
 * --rebuild      rebuild dist/lemon-<host>/ even when it exists (`bun build.ts --single --no-archive`)
 * --corpus DIR   a global skills root laid out <source>/<key>/SKILL.md (default: as scripts/bench/corpus.ts
 *                finds it; without one the corpus cases are left out, saying so)
 * --bin PATH     measure this binary instead of dist/
 * --baseline PATH  also run this lemon binary (an earlier build) through the same cases, alternating,
 *                and print each case against it
 *
 * Prints median / p90 wall time, CPU (user + sys) and max RSS per case, and CPU against hello-world.
 * The corpus cases read the corpus as the `claude` global root (LEMON_CLAUDE_SKILLS_DIR) with an
 * isolated agent dir (LEMON_AGENT_DIR) and HOME, so no other root contributes: "cold" gets a fresh
 * agent dir per run (no snapshot cache), "warm" reuses one primed by a first run.
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { hostTarget } from "../targets.ts";
import { CORPUS_HINT, findCorpus, requireCorpus } from "./corpus.ts";
import { copyExampleSkills } from "./example-project.ts";
import { hostBinary } from "./binary.ts";
import { buildHello, buildListFloor } from "./hello.ts";
import { gnuTime, pct, peakRssMb, spawnSample, type Run, type Sample } from "./measure.ts";

interface Options {
  runs: number;
  rebuild: boolean;
  corpus: string | null;
  bin: string | null;
  baseline: string | null;
}

function parseOptions(argv: string[]): Options {
  const o: Options = { runs: 20, rebuild: false, corpus: null, bin: null, baseline: null };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const value = () => argv[++i] ?? fail(`${a} needs a value`);
    if (a === "--runs") o.runs = Math.max(1, Number.parseInt(value(), 10) || 0);
    else if (a === "--rebuild") o.rebuild = true;
    else if (a === "--corpus") o.corpus = requireCorpus(value());
    else if (a === "--bin") o.bin = resolve(value());
    else if (a === "--baseline") o.baseline = resolve(value());
    else fail(`unknown option '${a}'`);
  }
  o.corpus ??= findCorpus();
  return o;
}

function fail(msg: string): never {
  console.error(`startup bench: ${msg}`);
  process.exit(2);
}

interface Case {
  name: string;
  argv: string[];
  cwd: string;
  /** Fresh per run: the env (and the directories it names) for one invocation. */
  env: () => Record<string, string>;
}

function measure(c: Case, capture: boolean): Run {
  return spawnSample(c.argv, c.cwd, c.env(), capture);
}

const LIST = "skill list --json (example project)";
/** Appended to the names of the baseline binary's cases. */
const BASELINE = " ·base";
const LIST_FLOOR = "  floor: read+parse its SKILL.md";

function pad(s: string, n: number, right = false): string {
  return right ? s.padStart(n) : s.padEnd(n);
}

async function main(): Promise<void> {
  const o = parseOptions(process.argv.slice(2));
  const scratch = mkdtempSync(join(tmpdir(), "lemon-bench-"));
  try {
    const lemon = hostBinary(o, "startup bench");
    const hello = buildHello(scratch);
    const home = join(scratch, "home");
    const empty = join(scratch, "empty");
    // A copy of the bundled example skills only: leftovers in the clone's .lemon/ never count.
    const example = join(scratch, "example");
    const exampleSkills = copyExampleSkills(example);
    mkdirSync(home, { recursive: true });
    mkdirSync(empty, { recursive: true });
    const base = { PATH: process.env.PATH ?? "", HOME: home, USERPROFILE: home, NO_COLOR: "1" };
    let fresh = 0;
    const corpusEnv = (agentDir: string) => ({
      ...base,
      LEMON_AGENT_DIR: agentDir,
      LEMON_CLAUDE_SKILLS_DIR: o.corpus!,
    });
    /** Every case of one lemon binary; `tag` names the baseline's apart. */
    const lemonCases = (bin: string, tag: string): Case[] => {
      const warmAgent = join(scratch, `agent-warm${tag}`);
      const list = [bin, "skill", "list", "--json"];
      return [
        { name: `--version${tag}`, argv: [bin, "--version"], cwd: empty, env: () => base },
        { name: `--help${tag}`, argv: [bin, "--help"], cwd: empty, env: () => base },
        { name: `${LIST}${tag}`, argv: list, cwd: example, env: () => base },
        ...(o.corpus
          ? [
              {
                name: `skill list --json (corpus, cold)${tag}`,
                argv: list,
                cwd: empty,
                env: () => corpusEnv(join(scratch, `agent-cold-${fresh++}`)),
              },
              {
                name: `skill list --json (corpus, warm)${tag}`,
                argv: list,
                cwd: empty,
                env: () => corpusEnv(warmAgent),
              },
            ]
          : []),
      ];
    };
    const cases: Case[] = [
      { name: "hello-world", argv: [hello], cwd: empty, env: () => base },
      ...lemonCases(lemon, ""),
      ...(o.baseline ? lemonCases(o.baseline, BASELINE) : []),
    ];
    // The floor right under the listing it bounds.
    const floor = { name: LIST_FLOOR, argv: [buildListFloor(scratch, exampleSkills)], cwd: example, env: () => base };
    cases.splice(cases.findIndex((c) => c.name === LIST) + 1, 0, floor);
    if (!o.corpus) console.error(CORPUS_HINT);

    // One unmeasured round: primes the page cache and the warm agent dir, and checks each case works.
    const broken = new Set<string>();
    const counts = new Map<string, number>();
    for (const c of cases) {
      const r = measure(c, true);
      if (!r.ok) {
        broken.add(c.name);
        console.error(`skipping '${c.name}': exit non-zero\n${r.stderr.trim().split("\n").slice(0, 3).join("\n")}`);
        continue;
      }
      if (c.argv.includes("list") || c.name === LIST_FLOOR) {
        try {
          counts.set(c.name, (JSON.parse(r.stdout) as { skills: unknown[] }).skills.length);
        } catch {
          /* the count is informational */
        }
      }
    }
    const live = cases.filter((c) => !broken.has(c.name));
    const samples = new Map<string, Sample[]>(live.map((c) => [c.name, []]));
    const time = gnuTime();
    Bun.gc(true);
    const floorMb = process.memoryUsage().rss / (1024 * 1024);
    for (let i = 0; i < o.runs; i++)
      for (const c of live) {
        const s = measure(c, false).sample;
        // A separate run for memory, so the timed one carries no wrapper.
        if (time) s.rssMb = peakRssMb(time, c.argv, c.cwd, c.env()) ?? s.rssMb;
        samples.get(c.name)!.push(s);
      }

    const helloCpu = pct(
      samples.get("hello-world")!.map((s) => s.cpuMs),
      50,
    );
    const t = hostTarget();
    console.log(`lemon startup — ${t.name}, Bun ${Bun.version}, ${o.runs} alternating runs per case`);
    console.log(`binary: ${lemon}${o.baseline ? `\nbaseline (${BASELINE.trim()}): ${o.baseline}` : ""}`);
    console.log(`${o.corpus ? `corpus: ${o.corpus}\n` : ""}`);
    const header = [
      pad("case", 46),
      pad("wall p50", 9, true),
      pad("p90", 7, true),
      pad("cpu p50", 8, true),
      pad("p90", 7, true),
      pad("rss p50", 8, true),
      pad("max", 7, true),
      pad("cpu×hello", 10, true),
    ];
    console.log(header.join(" "));
    for (const c of live) {
      const s = samples.get(c.name)!;
      const wall = s.map((x) => x.wallMs);
      const cpu = s.map((x) => x.cpuMs);
      const rss = s.map((x) => x.rssMb);
      const n = counts.get(c.name);
      console.log(
        [
          pad(c.name + (n !== undefined ? ` [${n}]` : ""), 46),
          pad(pct(wall, 50).toFixed(1), 9, true),
          pad(pct(wall, 90).toFixed(1), 7, true),
          pad(pct(cpu, 50).toFixed(1), 8, true),
          pad(pct(cpu, 90).toFixed(1), 7, true),
          pad(pct(rss, 50).toFixed(1), 8, true),
          pad(Math.max(...rss).toFixed(1), 7, true),
          pad(helloCpu > 0 ? (pct(cpu, 50) / helloCpu).toFixed(2) : "n/a", 10, true),
        ].join(" "),
      );
    }
    const med = (name: string, f: keyof Sample) => pct(samples.get(name)?.map((x) => x[f]) ?? [NaN], 50);
    if (samples.has(LIST) && samples.has(LIST_FLOOR)) {
      const [cpu, floorCpu, wall, floorWall] = [
        med(LIST, "cpuMs"),
        med(LIST_FLOOR, "cpuMs"),
        med(LIST, "wallMs"),
        med(LIST_FLOOR, "wallMs"),
      ];
      const x = (a: number, b: number) => `${a.toFixed(1)} vs ${b.toFixed(1)} ms (${(a / b).toFixed(2)}×`;
      console.log(`\n${LIST} vs its floor: cpu ${x(cpu, floorCpu)}, target ≤ 1.5×), wall ${x(wall, floorWall)})`);
    }
    if (o.baseline) {
      console.log("\nagainst the baseline, alternating runs (cpu p50, wall p50):");
      for (const c of live) {
        const b = `${c.name}${BASELINE}`;
        if (!samples.has(b)) continue;
        const cpu = [med(c.name, "cpuMs"), med(b, "cpuMs")];
        const wall = [med(c.name, "wallMs"), med(b, "wallMs")];
        const x = ([a, z]: number[]) => `${a!.toFixed(1)} vs ${z!.toFixed(1)} ms (${(a! / z!).toFixed(2)}×)`;
        console.log(`  ${c.name.padEnd(36)} cpu ${x(cpu)}, wall ${x(wall)}`);
      }
    }
    console.log("\nwall and cpu in ms, rss in MiB; [n] = skills listed");
    console.log(
      time
        ? "rss measured in separate runs through GNU time (/usr/bin/time -f %M)"
        : `rss from Bun.spawnSync: never below this process's own ${floorMb.toFixed(1)} MiB ` +
            "(install GNU time for true peaks)",
    );
    const args = process.argv.slice(2).join(" ");
    console.log(`reproduce: npx bun scripts/bench/startup.ts${args ? ` ${args}` : ""}`);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

await main();
