/**
 * @module scripts/bench/relevance-cli
 * The cold-process half of the relevance benchmark: `lemon skill relevant` per corpus size beside
 * a compiled hello-world and a stat floor, alternating runs (medians), and its peak RSS through
 * GNU time (see measure.ts for why not resourceUsage).
 */
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { createContext, type ContextOptions } from "../../src/core/context.ts";
import { resolvePaths } from "../../src/core/paths.ts";
import { resolveRoots } from "../../src/core/skills/roots.ts";
import { computeIdentity } from "../../src/core/skills/search/identity.ts";
import { hostTarget } from "../targets.ts";
import { buildHello, buildProgram } from "./hello.ts";
import { gnuTime, pct, peakRssMb } from "./measure.ts";
import type { Scale } from "./replicate.ts";

const REPO = resolve(import.meta.dir, "..", "..");

export interface Row {
  scale: string;
  figure: string;
  value: string;
  target: string;
}

/** The context options a lemon instance of this scale is created with. */
export function scaleOptions(s: Scale, worker: "never" | "auto" = "never"): ContextOptions {
  return { cwd: s.cwd, env: { ...s.env, LEMON_SNAPSHOT_WORKER: worker } };
}

export const ms = (x: number) => (x < 1 ? x.toFixed(3) : x < 10 ? x.toFixed(2) : x.toFixed(1));

function fail(msg: string): never {
  console.error(`relevance bench: ${msg}`);
  process.exit(2);
}

/** The compiled lemon to time: `bin`, else built into the cache with build.ts. */
function lemonBinary(cache: string, bin: string | null): string {
  if (bin) return bin;
  const outdir = join(cache, "dist");
  console.error(`building lemon into ${outdir} …`);
  const p = Bun.spawnSync([process.execPath, "build.ts", "--single", "--no-archive", "--outdir", outdir], {
    cwd: REPO,
    stdout: "pipe",
    stderr: "pipe",
  });
  // build.ts reports a failed target on stdout.
  if (p.exitCode !== 0) fail(`bun build.ts failed:\n${p.stdout.toString()}${p.stderr.toString()}`);
  const t = hostTarget();
  return join(outdir, `lemon-${t.name}`, t.exe);
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
async function statFloor(cache: string, scales: Scale[]): Promise<{ bin: string; lists: Map<string, string> }> {
  const dir = join(cache, "floor");
  mkdirSync(dir, { recursive: true });
  const statMany = join(REPO, "src/core/skills/search/stat-many.ts");
  const bin = buildProgram(
    dir,
    "stat-floor",
    `import { readFileSync } from "node:fs";\nimport { statMany } from ${JSON.stringify(statMany)};\n` +
      `const paths = readFileSync(process.argv[2]!, "utf8").split("\\n");\n` +
      `console.log((await statMany(paths)).length);\n`,
  );
  const lists = new Map<string, string>();
  for (const s of scales) {
    const ctx = createContext(scaleOptions(s));
    const roots = resolveRoots(ctx);
    const paths = resolvePaths(ctx);
    const files: string[] = [];
    for (const [r, lock] of [
      [roots.project, paths.project.lockfile],
      [roots.global, paths.global.lockfile],
    ] as const)
      for (const c of (await computeIdentity(r, lock, null)).candidates()) files.push(c.skillFile);
    const list = join(dir, `paths-${s.name}.txt`);
    writeFileSync(list, files.join("\n"));
    lists.set(s.name, list);
  }
  return { bin, lists };
}

/** Modification times of a scale's snapshot files. */
function snapTimes(s: Scale): string {
  const dir = join(s.env.LEMON_AGENT_DIR!, "cache", "skills");
  const files = existsSync(dir)
    ? readdirSync(dir)
        .filter((f) => f.endsWith(".snap"))
        .sort()
    : [];
  return files.map((f) => `${f}:${statSync(join(dir, f)).mtimeMs}`).join(",");
}

/**
 * Whether a baseline binary uses the snapshots the measured one wrote: one that rebuilds them (a
 * different format or identity) would time a build on every run, and make the other rebuild too.
 */
function sharesSnapshots(baseline: string, lemon: string, q: string[], scales: Scale[]): boolean {
  for (const s of scales) {
    const before = snapTimes(s);
    wall([baseline, ...q], s.cwd, s.env);
    if (snapTimes(s) === before) continue;
    console.error(`baseline ${baseline} rebuilt the ${s.name} snapshots: its cold figures are left out`);
    wall([lemon, ...q], s.cwd, s.env);
    return false;
  }
  return true;
}

/** `lemon skill relevant` per scale beside hello-world and the stat floor, alternating; peak RSS through GNU time. */
export async function cliRows(
  cache: string,
  bin: string | null,
  runs: number,
  scales: Scale[],
  rows: Row[],
  baseline: string | null = null,
): Promise<void> {
  const lemon = lemonBinary(cache, bin);
  const helloDir = join(cache, "hello");
  mkdirSync(helloDir, { recursive: true });
  const hello = buildHello(helloDir);
  const floor = await statFloor(cache, scales);
  const q = ["skill", "relevant", "write unit tests for a react component"];
  const helloEnv = { PATH: process.env.PATH ?? "", HOME: join(cache, "home-hello") };
  for (const s of scales) wall([lemon, ...q], s.cwd, s.env); // snapshots current, page cache warm
  const base = baseline !== null && sharesSnapshots(baseline, lemon, q, scales) ? baseline : null;
  const samples = new Map<string, number[]>();
  const add = (key: string, wallMs: number) => {
    const list = samples.get(key);
    if (list) list.push(wallMs);
    else samples.set(key, [wallMs]);
  };
  for (let i = 0; i < runs; i++) {
    add("hello", wall([hello], cache, helloEnv));
    for (const s of scales) {
      add(s.name, wall([lemon, ...q], s.cwd, s.env));
      add(`floor ${s.name}`, wall([floor.bin, floor.lists.get(s.name)!], cache, helloEnv));
      if (base) add(`base ${s.name}`, wall([base, ...q], s.cwd, s.env));
    }
  }
  const h = pct(samples.get("hello")!, 50);
  rows.push({ scale: "-", figure: "hello-world wall p50 (ms)", value: ms(h), target: "" });
  const time = gnuTime();
  for (const s of scales) {
    const w = pct(samples.get(s.name)!, 50);
    const f = pct(samples.get(`floor ${s.name}`)!, 50);
    const target = s.skills < 2000 ? "≤ 1.5×" : s.skills < 20000 ? "≤ 2.5×" : "";
    rows.push({
      scale: s.name,
      figure: "skill relevant (cold process) wall p50 (ms)",
      value: `${ms(w)} (${(w / h).toFixed(2)}× hello)`,
      target,
    });
    rows.push({
      scale: s.name,
      figure: "  floor: runtime + node:fs + stat every SKILL.md",
      value: `${ms(f)} (${(f / h).toFixed(2)}× hello)`,
      target: "",
    });
    const b = samples.get(`base ${s.name}`);
    if (b) {
      const bw = pct(b, 50);
      const value = `${ms(bw)} (lemon ${(w / bw).toFixed(2)}× of it)`;
      rows.push({ scale: s.name, figure: "  baseline binary, same runs", value, target: "" });
    }
    const rss = time ? peakRssMb(time, [lemon, ...q], s.cwd, s.env) : null;
    if (rss !== null)
      rows.push({
        scale: s.name,
        figure: "skill relevant peak RSS (MiB)",
        value: rss.toFixed(1),
        target: s.skills > 100_000 ? "≤ 200 MB" : "",
      });
  }
}
