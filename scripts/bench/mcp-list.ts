#!/usr/bin/env bun
/**
 * @module scripts/bench/mcp-list
 * `lemon mcp list --all --json` with all nine import providers present (project and user files,
 * external user discovery on), beside a compiled hello-world built the same way, alternating runs
 * Target: lemon's median wall time ≤ 1.5× hello-world's. The MCP SDK is never
 * loaded by this command.
 *
 *   bun scripts/bench/mcp-list.ts [--runs N] [--bin PATH] [--source] [--baseline PATH]
 *
 * --bin PATH   measure this binary
 * --source     measure `bun src/cli/main.ts` even when dist/ holds a compiled binary
 * --baseline PATH  also time this lemon binary (an earlier build), alternating, and print lemon against it
 * Default: dist/lemon-<host>/lemon when it exists and knows `mcp`, else the source entry.
 *
 * Also timed, alternating with the two: a floor, the least the command must do as a compiled
 * program of its own — start the runtime, load node:fs, read and parse every provider file
 * present (JSON, JSONC, TOML) and print JSON — so the figure shows how much of the gap is lemon's.
 */
import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { hostTarget } from "../targets.ts";
import { buildHello, buildProgram } from "./hello.ts";
import { pct, spawnSample, type Run, type Sample } from "./measure.ts";

const REPO = resolve(import.meta.dir, "..", "..");
const FIXTURES = join(REPO, "tests", "fixtures", "mcp");

function fail(msg: string): never {
  console.error(`mcp-list bench: ${msg}`);
  process.exit(2);
}

function parseOptions(argv: string[]) {
  const o = { runs: 20, bin: null as string | null, source: false, baseline: null as string | null };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--runs") o.runs = Math.max(1, Number.parseInt(argv[++i] ?? "", 10) || 0);
    else if (a === "--bin") o.bin = resolve(argv[++i] ?? fail("--bin needs a value"));
    else if (a === "--source") o.source = true;
    else if (a === "--baseline") o.baseline = resolve(argv[++i] ?? fail("--baseline needs a value"));
    else fail(`unknown option '${a}'`);
  }
  return o;
}

/** Copies the fixture tree, replacing the `__PROJECT__` placeholder (Claude's projects key). */
function copyTree(src: string, dest: string, project: string): void {
  cpSync(src, dest, { recursive: true });
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else {
        const text = readFileSync(p, "utf8");
        if (text.includes("__PROJECT__")) writeFileSync(p, text.replaceAll("__PROJECT__", project));
      }
    }
  };
  walk(dest);
}

/** One run, stdout captured (lemon's JSON goes through a pipe, as an agent reads it). */
function run(argv: string[], cwd: string, env: Record<string, string>): Run {
  return spawnSample(argv, cwd, env, true);
}

function main(): void {
  const o = parseOptions(process.argv.slice(2));
  const scratch = mkdtempSync(join(tmpdir(), "lemon-bench-mcp-"));
  try {
    const home = join(scratch, "home");
    const project = join(scratch, "project");
    copyTree(join(FIXTURES, "home"), home, project);
    copyTree(join(FIXTURES, "project"), project, project);
    const env = {
      PATH: process.env.PATH ?? "",
      HOME: home,
      USERPROFILE: home,
      XDG_CONFIG_HOME: join(home, ".config"),
      NO_COLOR: "1",
      LEMON_MCP_EXTERNAL_USER_DISCOVERY: "1",
      SENTRY_TOKEN: "bench",
    };
    const hello = buildHello(scratch);
    const files: string[] = [];
    const walkFiles = (d: string) => {
      for (const name of readdirSync(d)) {
        const p = join(d, name);
        if (statSync(p).isDirectory()) walkFiles(p);
        else if (/\.(json|jsonc|toml)$/.test(name)) files.push(p);
      }
    };
    walkFiles(home);
    walkFiles(project);
    const floor = buildProgram(
      scratch,
      "mcp-floor",
      `import { readFileSync } from "node:fs";\n` +
        `const out: unknown[] = [];\n` +
        `for (const f of ${JSON.stringify(files)}) {\n` +
        `  const text = readFileSync(f, "utf8");\n` +
        `  out.push(f.endsWith(".toml") ? Bun.TOML.parse(text) : Bun.JSONC.parse(text));\n` +
        `}\n` +
        `console.log(JSON.stringify(out).length);\n`,
    );
    const t = hostTarget();
    const dist = join(REPO, "dist", `lemon-${t.name}`, t.exe);
    let lemon: string[] = [process.execPath, join(REPO, "src", "cli", "main.ts")];
    let label = "bun src/cli/main.ts";
    if (o.bin) [lemon, label] = [[o.bin], o.bin];
    else if (!o.source && existsSync(dist)) {
      const probe = run([dist, "mcp", "list", "--all", "--json"], project, env);
      if (probe.ok) [lemon, label] = [[dist], dist];
      else
        console.error(
          `${dist} does not know 'mcp' yet (rebuild with 'bun build.ts --single'); measuring the source entry`,
        );
    }
    const argv = [...lemon, "mcp", "list", "--all", "--json"];
    const check = run(argv, project, env);
    if (!check.ok) fail(`lemon failed: ${check.stderr.trim().split("\n")[0] ?? ""}`);
    const doc = JSON.parse(check.stdout) as { effective: { source: string }[] };
    const providers = new Set(doc.effective.map((e) => e.source.split(":")[0]));
    run([hello], scratch, env);
    if (!run([floor], scratch, env).ok) fail("the floor program failed");
    const baseArgv = o.baseline ? [o.baseline, "mcp", "list", "--all", "--json"] : null;
    if (baseArgv && !run(baseArgv, project, env).ok) fail("the baseline binary failed");

    const samples = { hello: [] as Sample[], lemon: [] as Sample[], floor: [] as Sample[], baseline: [] as Sample[] };
    for (let i = 0; i < o.runs; i++) {
      samples.hello.push(run([hello], scratch, env).sample);
      samples.lemon.push(run(argv, project, env).sample);
      samples.floor.push(run([floor], scratch, env).sample);
      if (baseArgv) samples.baseline.push(run(baseArgv, project, env).sample);
    }
    const med = (k: keyof typeof samples, f: keyof Sample) =>
      pct(
        samples[k].map((s) => s[f]),
        50,
      );
    const p90 = (k: keyof typeof samples, f: keyof Sample) =>
      pct(
        samples[k].map((s) => s[f]),
        90,
      );
    const sources = `${providers.size} sources (${[...providers].join(", ")})`;
    console.log(`lemon mcp list --all --json: ${doc.effective.length} servers from ${sources}`);
    console.log(`lemon: ${label}; runs: ${o.runs} each, alternating\n`);
    console.log("case                             wall med   wall p90   cpu med   rss med");
    const caseLabel = {
      hello: "hello-world (compiled)",
      lemon: "mcp list --all --json",
      floor: `floor: read+parse ${files.length} files`,
      baseline: "baseline: mcp list --all --json",
    };
    for (const k of ["hello", "lemon", "floor", ...(baseArgv ? (["baseline"] as const) : [])] as const)
      console.log(
        `${caseLabel[k].padEnd(31)}  ${med(k, "wallMs").toFixed(1).padStart(7)} ms ` +
          `${p90(k, "wallMs").toFixed(1).padStart(7)} ms ${med(k, "cpuMs").toFixed(1).padStart(7)} ms ` +
          `${med(k, "rssMb").toFixed(1).padStart(6)} MB`,
      );
    const ratio = med("lemon", "wallMs") / med("hello", "wallMs");
    const floorRatio = med("floor", "wallMs") / med("hello", "wallMs");
    console.log(`\nwall ratio vs hello-world: ${ratio.toFixed(2)}x (target <= 1.5x); floor ${floorRatio.toFixed(2)}x`);
    if (baseArgv) {
      const x = (f: keyof Sample) => (med("lemon", f) / med("baseline", f)).toFixed(2);
      console.log(`against the baseline (${o.baseline}): cpu ${x("cpuMs")}x, wall ${x("wallMs")}x`);
    }
    const flags = [o.bin ? ` --bin ${o.bin}` : "", o.source ? " --source" : ""];
    if (o.baseline) flags.push(` --baseline ${o.baseline}`);
    console.log(`reproduce: bun scripts/bench/mcp-list.ts --runs ${o.runs}${flags.join("")}`);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

main();
