#!/usr/bin/env bun
/**
 * @module scripts/bench/list-ladder
 * Where a cold `lemon skill list --json` of the example project (3 skills) spends its CPU: a
 * ladder of programs compiled exactly like lemon, each doing a little more, runs alternating,
 * medians. Each step's extra cost over the one before is what that step adds.
 *
 *   bun scripts/bench/list-ladder.ts [--runs N] [--bin PATH]
 *
 *   hello-world          the runtime alone
 *   floor                read the three SKILL.md, Bun.YAML each frontmatter, print JSON
 *   import core          load and evaluate the core entry (src/core/index.ts), nothing called
 *   core skills.list()   createLemon().skills.list() printed as JSON: the listing without the CLI
 *   lemon skill list     the compiled CLI (--bin, else built into a temp dir with build.ts)
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { hostTarget } from "../targets.ts";
import { copyExampleSkills } from "./example-project.ts";
import { buildHello, buildListFloor, buildProgram } from "./hello.ts";
import { pct, spawnSample, type Sample } from "./measure.ts";

const REPO = resolve(import.meta.dir, "..", "..");
const CORE = JSON.stringify(join(REPO, "src", "core", "index.ts"));
/** Lazily imported core code in chunks of its own, loaded when called, as lemon's build has it. */
const SPLIT = { splitting: true };

function fail(msg: string): never {
  console.error(`list-ladder bench: ${msg}`);
  process.exit(2);
}

function parseOptions(argv: string[]): { runs: number; bin: string | null } {
  const o = { runs: 30, bin: null as string | null };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--runs") o.runs = Math.max(1, Number.parseInt(argv[++i] ?? "", 10) || 0);
    else if (a === "--bin") o.bin = resolve(argv[++i] ?? fail("--bin needs a value"));
    else fail(`unknown option '${a}'`);
  }
  return o;
}

function lemonBinary(dir: string): string {
  const p = Bun.spawnSync([process.execPath, "build.ts", "--single", "--no-archive", "--outdir", dir], {
    cwd: REPO,
    stdout: "pipe",
    stderr: "pipe",
  });
  // build.ts reports a failed target on stdout.
  if (p.exitCode !== 0) fail(`bun build.ts failed:\n${p.stdout.toString()}${p.stderr.toString()}`);
  const t = hostTarget();
  return join(dir, `lemon-${t.name}`, t.exe);
}

const o = parseOptions(process.argv.slice(2));
const scratch = mkdtempSync(join(tmpdir(), "lemon-bench-ladder-"));
try {
  const home = join(scratch, "home");
  mkdirSync(home, { recursive: true });
  // The bundled example skills only, so leftovers in the clone's .lemon/ never change the ladder.
  const example = join(scratch, "example");
  const exampleSkills = copyExampleSkills(example);
  const env = { PATH: process.env.PATH ?? "", HOME: home, USERPROFILE: home, NO_COLOR: "1" };
  const steps: [string, string[]][] = [
    ["hello-world", [buildHello(scratch)]],
    ["floor: read + Bun.YAML + JSON", [buildListFloor(scratch, exampleSkills)]],
    [
      "import core",
      [
        buildProgram(
          scratch,
          "import-core",
          `import { createLemon } from ${CORE};\nconsole.log(typeof createLemon);\n`,
          SPLIT,
        ),
      ],
    ],
    [
      "core skills.list()",
      [
        buildProgram(
          scratch,
          "core-list",
          `import { createLemon } from ${CORE};\n` +
            `const lemon = createLemon({ curator: false });\n` +
            `console.log(JSON.stringify(await lemon.skills.list(), null, 2));\n`,
          SPLIT,
        ),
      ],
    ],
    ["lemon skill list --json", [o.bin ?? lemonBinary(join(scratch, "dist")), "skill", "list", "--json"]],
  ];
  for (const [name, argv] of steps) {
    const r = spawnSample(argv, example, env, true);
    if (!r.ok) fail(`${name} failed: ${r.stderr.trim().split("\n")[0] ?? ""}`);
  }
  const samples = new Map<string, Sample[]>(steps.map(([n]) => [n, []]));
  for (let i = 0; i < o.runs; i++)
    for (const [name, argv] of steps) samples.get(name)!.push(spawnSample(argv, example, env, false).sample);

  const t = hostTarget();
  const where = `${t.name}, Bun ${Bun.version}, ${o.runs} runs`;
  console.log(`skill list --json of the example project, step by step — ${where}`);
  console.log(`\n${"step".padEnd(32)} ${"cpu p50".padStart(8)} ${"+step".padStart(7)} ${"wall p50".padStart(9)}`);
  let prev: number | null = null;
  for (const [name] of steps) {
    const s = samples.get(name)!;
    const cpu = pct(
      s.map((x) => x.cpuMs),
      50,
    );
    const step = prev === null ? "" : `${cpu - prev >= 0 ? "+" : ""}${(cpu - prev).toFixed(1)}`;
    const wall = pct(
      s.map((x) => x.wallMs),
      50,
    );
    console.log(`${name.padEnd(32)} ${cpu.toFixed(1).padStart(8)} ${step.padStart(7)} ${wall.toFixed(1).padStart(9)}`);
    prev = cpu;
  }
  console.log("\ncpu (user + sys) and wall in ms; +step: cpu over the step above");
  const args = process.argv.slice(2).join(" ");
  console.log(`reproduce: npx bun scripts/bench/list-ladder.ts${args ? ` ${args}` : ""}`);
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
