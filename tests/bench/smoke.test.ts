// The benchmarks the README documents run end to end with the fewest runs, so a change that breaks
// one fails CI instead of the next person measuring. Nothing here asserts a timing (the figures
// are for people, in scripts/bench/*.md); only that each prints its table, floors included.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { corpusAvailable } from "../support/corpus.ts";

const REPO = join(import.meta.dir, "..", "..");
const scratch = mkdtempSync(join(tmpdir(), "lemon-bench-smoke-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function bench(args: string[]): string {
  const p = Bun.spawnSync([process.execPath, ...args], { cwd: REPO, env: { ...process.env, TMPDIR: scratch }, stdout: "pipe", stderr: "pipe" });
  const out = p.stdout.toString();
  if (p.exitCode !== 0) throw new Error(`${args.join(" ")} exited ${p.exitCode}:\n${p.stderr.toString()}\n${out}`);
  return out;
}

test("mcp-list.ts prints lemon, hello-world and the floor", () => {
  const out = bench(["scripts/bench/mcp-list.ts", "--runs", "1"]);
  expect(out).toContain("mcp list --all --json");
  expect(out).toContain("floor: read+parse");
  expect(out).toMatch(/wall ratio vs hello-world: [\d.]+x/);
}, 120_000);

test.skipIf(!corpusAvailable())("startup.ts prints every start-up case", () => {
  const out = bench(["scripts/bench/startup.ts", "--runs", "1"]);
  for (const c of ["hello-world", "--version", "--help", "skill list --json"]) expect(out).toContain(c);
}, 180_000);

test.skipIf(!corpusAvailable())("relevance.ts (1.1k and 11k, no quality half) prints speed rows and floors", () => {
  const out = bench(["scripts/bench/relevance.ts", "--cache", join(scratch, "relevance"), "--runs", "5", "--cli-runs", "1", "--skip-112k", "--skip-quality"]);
  for (const row of ["findRelevant warm p50", "identity check, 11230 SKILL.md", "rebuild after one SKILL.md edit", "skill relevant (cold process)", "floor: runtime + node:fs + stat every SKILL.md"])
    expect(out).toContain(row);
}, 300_000);
