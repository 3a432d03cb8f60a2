// The benchmarks the README documents run end to end on tiny inputs (a generated 20-skill corpus,
// one run each, one binary built once), so a change that breaks one fails CI instead of the next
// person measuring. Nothing here asserts a timing (the figures are for people, in
// scripts/bench/*.md); only that each prints its table, floors included, and that one without a
// corpus says how to get one instead of printing an empty table.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CORPUS_HINT } from "../../scripts/bench/corpus.ts";
import { hostTarget } from "../../scripts/targets.ts";
import { tinyCorpus } from "./tiny-corpus.ts";

const REPO = join(import.meta.dir, "..", "..");
const scratch = mkdtempSync(join(tmpdir(), "lemon-bench-smoke-"));
const corpus = join(scratch, "corpus");
const t = hostTarget();
const bin = join(scratch, "dist", `lemon-${t.name}`, t.exe);
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

beforeAll(async () => {
  await tinyCorpus(corpus);
  const p = Bun.spawnSync(
    [process.execPath, "build.ts", "--single", "--no-archive", "--outdir", join(scratch, "dist")],
    { cwd: REPO, stdout: "pipe", stderr: "pipe" },
  );
  // build.ts reports a failed target on stdout.
  if (p.exitCode !== 0) throw new Error(`bun build.ts failed:\n${p.stdout.toString()}${p.stderr.toString()}`);
}, 120_000);

function bench(
  args: string[],
  env: Record<string, string | undefined> = {},
): { code: number | null; out: string; err: string } {
  const p = Bun.spawnSync([process.execPath, ...args], {
    cwd: REPO,
    env: { ...process.env, TMPDIR: scratch, ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  return { code: p.exitCode, out: p.stdout.toString(), err: p.stderr.toString() };
}

function ok(args: string[]): string {
  const r = bench(args);
  if (r.code !== 0) throw new Error(`${args.join(" ")} exited ${r.code}:\n${r.err}\n${r.out}`);
  return r.out;
}

test("mcp-list.ts prints lemon, hello-world, the floor and a baseline", () => {
  const out = ok(["scripts/bench/mcp-list.ts", "--runs", "1", "--bin", bin, "--baseline", bin]);
  expect(out).toContain("mcp list --all --json");
  expect(out).toContain("floor: read+parse");
  expect(out).toMatch(/wall ratio vs hello-world: [\d.]+x/);
  expect(out).toMatch(/against the baseline \(.*\): cpu [\d.]+x, wall [\d.]+x/);
}, 60_000);

test("startup.ts prints every start-up case, the corpus ones, the listing floor and a baseline included", () => {
  const out = ok(["scripts/bench/startup.ts", "--runs", "1", "--bin", bin, "--corpus", corpus, "--baseline", bin]);
  for (const c of [
    "hello-world",
    "--version",
    "--help",
    "skill list --json (example project) [3]",
    "floor: read+parse its SKILL.md [3]",
    "skill list --json (corpus, cold) [20]",
  ])
    expect(out).toContain(c);
  expect(out).toMatch(/vs its floor: cpu [\d.]+ vs [\d.]+ ms \([\d.]+×/);
  expect(out).toMatch(/against the baseline[^\n]*\n {2}--version +cpu [\d.]+ vs [\d.]+ ms/);
}, 60_000);

test("list-ladder.ts prints each step of a listing with its CPU over the step before", () => {
  const out = ok(["scripts/bench/list-ladder.ts", "--runs", "1", "--bin", bin]);
  for (const step of [
    "hello-world",
    "floor: read + Bun.YAML + JSON",
    "import core",
    "core skills.list()",
    "lemon skill list --json",
  ])
    expect(out).toContain(step);
}, 60_000);

test("relevance.ts prints speed rows, per-turn cost, floors and the quality table at three sizes", () => {
  const args = ["--corpus", corpus, "--cache", join(scratch, "relevance"), "--bin", bin, "--baseline", bin];
  args.push("--runs", "5", "--cli-runs", "1");
  const out = ok(["scripts/bench/relevance.ts", ...args]);
  for (const row of [
    "findRelevant per turn (check + score)",
    "query alone, inside 50 ms interval",
    "identity check, 200 SKILL.md",
    "rebuild after one SKILL.md edit",
    "skill relevant (cold process)",
    "floor: runtime + node:fs + stat every SKILL.md",
    "heldout  lemon",
    "baseline binary, same runs",
  ])
    expect(out).toContain(row);
  for (const scale of ["20 ", "200 ", "2.0k "]) expect(out).toContain(`\n${scale}`);
}, 120_000);

test("audit.ts and relevance-quality.ts run over a corpus given on the command line", () => {
  expect(ok(["scripts/bench/audit.ts", corpus])).toContain("verdicts: pass 20, warn 0, block 0");
  expect(ok(["scripts/bench/relevance-quality.ts", corpus])).toContain("heldout  fts5");
}, 60_000);

test("install.ts prints the installs, the checks, the git split and the floor", () => {
  const out = ok(["scripts/bench/install.ts", "--runs", "1", "--skills", "3", "--bin", bin]);
  for (const row of [
    "hello-world",
    "skill install <local dir>",
    "skill install file://…git",
    "skill update s0 --check",
    "skill update --all --check [3]",
  ])
    expect(out).toContain(row);
  expect(out).toMatch(/lemon-side [\d.]+ ms beyond [\d.]+ ms of git \(target ≤ 150 ms\); floor: hello-world/);
  expect(out).toMatch(/update --all --check over 3 git skills: [\d.]+ ms vs 3 × one check [\d.]+ ms/);
}, 120_000);

test("read-skill.ts prints the warm rows with their floor and the cold processes beside skill list", () => {
  const out = ok(["scripts/bench/read-skill.ts", "--runs", "1", "--calls", "10", "--corpus", corpus, "--bin", bin]);
  for (const row of [
    "read_skill summary (tool)",
    "lemon.readSkill (+ usage sidecar)",
    "read_skill summary, no snapshot (scan)",
    "floor: readFileSync(SKILL.md)",
    "hello-world",
    "floor: read and print one SKILL.md",
    "skill list --json (corpus, cold)",
    "tool read_skill summary (corpus, cold)",
  ])
    expect(out).toContain(row);
  expect(out).toMatch(/tool p50 [\d.]+ ms: target ≤ 1 ms (met|missed)/);
  expect(out).toMatch(/read_skill vs list: wall [\d.]+×, cpu [\d.]+×/);
}, 60_000);

test("usage.ts records every load of concurrent processes and prints each row against its floor", () => {
  const out = ok(["scripts/bench/usage.ts", "--runs", "1", "--procs", "2", "--loads", "2"]);
  for (const row of ["| process start |", "| floor |", "| recordLoad |", "| readSkill |"]) expect(out).toContain(row);
  expect(out).toContain("no lost count: 4 of 4 recorded in every recordLoad and readSkill run");
}, 60_000);

describe("without a corpus", () => {
  const none = { LEMON_CORPUS: join(scratch, "no-such-corpus") };
  for (const script of ["relevance.ts", "relevance-quality.ts", "audit.ts"])
    test(`${script} exits 2 with the one line saying how to get one`, () => {
      const r = bench([`scripts/bench/${script}`], none);
      expect([r.code, r.err, r.out]).toEqual([2, `${CORPUS_HINT}\n`, ""]);
    });

  test("startup.ts measures the rest and says why the corpus cases are missing", () => {
    const r = bench(["scripts/bench/startup.ts", "--runs", "1", "--bin", bin], none);
    expect(r.code).toBe(0);
    expect(r.err).toContain(`${CORPUS_HINT}\n`);
    expect(r.out).toContain("skill list --json (example project)");
    expect(r.out).not.toContain("(corpus, cold)");
  }, 60_000);

  test("LEMON_CORPUS is where the benchmarks look first", () => {
    const r = bench(["scripts/bench/audit.ts"], { LEMON_CORPUS: corpus });
    expect(r.out).toContain(`corpus: ${corpus} (20 skills)`);
  });
});
