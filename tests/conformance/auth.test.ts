// The MCP conformance harness's `client --suite auth` (14 scenarios, each with its own
// authorization server and MCP server on loopback) against lemon's conformance client
// (scripts/conformance/client.ts). Every scenario's checks.json is read: a FAILURE or a WARNING
// (the harness fails scenarios on either) fails this test, listed by scenario, unless the scenario
// is in auth-expected-failures.yml (the harness's own baseline format); a listed scenario that
// passes fails it too, so the list cannot go stale.
import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { parse } from "yaml";
import { type Check, harnessInstalled, isBad, runHarness } from "./harness.ts";

const BASELINE = join(import.meta.dir, "auth-expected-failures.yml");
const SUITE_SIZE = 14;

/** Scenario name of a result directory: `auth/<name>-<ISO timestamp with dashes>`. */
const scenarioOf = (dir: string) => dir.replace(/-\d{4}-\d{2}-\d{2}T[\d-]+Z$/, "");

async function expectedFailures(): Promise<string[]> {
  if (!existsSync(BASELINE)) return [];
  const doc = parse(await readFile(BASELINE, "utf8")) as { client?: unknown } | null;
  return Array.isArray(doc?.client) ? doc.client.map(String) : [];
}

describe.skipIf(!harnessInstalled)("MCP conformance: client --suite auth", () => {
  test("every auth scenario passes (or is a listed expected failure)", async () => {
    const run = await runHarness(["--suite", "auth"]);
    const { stdout } = run;
    const results = new Map<string, Check[]>();
    for (const [dir, checks] of run.results) results.set(scenarioOf(dir), checks);
    const expected = new Set(await expectedFailures());
    const failing = new Map<string, string[]>();
    for (const [scenario, checks] of results) {
      const bad = checks.filter(isBad);
      if (bad.length > 0)
        failing.set(
          scenario,
          bad.map((c) => `[${c.status} ${c.id}] ${c.errorMessage ?? c.description ?? c.name ?? ""}`),
        );
    }
    const unexpected = [...failing].filter(([s]) => !expected.has(s));
    const stale = [...expected].filter((s) => results.has(s) && !failing.has(s));
    const report = [
      ...unexpected.map(([s, lines]) => `${s}:\n  ${lines.join("\n  ")}`),
      ...stale.map((s) => `${s}: passes now; remove it from auth-expected-failures.yml`),
    ].join("\n");
    if (report !== "") console.error(`${report}\n\nharness summary:\n${stdout.split("=== SUITE SUMMARY ===").at(-1)}`);
    expect([...results.keys()].filter((s) => s.startsWith("auth/")).length).toBe(SUITE_SIZE);
    expect(report).toBe("");
  }, 240_000);
});

if (!harnessInstalled)
  console.log("conformance: @modelcontextprotocol/conformance is not installed; auth suite skipped");
