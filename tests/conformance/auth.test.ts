// The MCP conformance harness's `client --suite auth` (14 scenarios, each with its own
// authorization server and MCP server on loopback) against lemon's conformance client
// (scripts/conformance/client.ts). Every scenario's checks.json is read: a FAILURE or a WARNING
// (the harness fails scenarios on either) fails this test, listed by scenario, unless the scenario
// is in auth-expected-failures.yml (the harness's own baseline format); a listed scenario that
// passes fails it too, so the list cannot go stale.
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, dirname, join, resolve } from "node:path";
import { parse } from "yaml";

const REPO = resolve(import.meta.dir, "../..");
const HARNESS = join(REPO, "node_modules/@modelcontextprotocol/conformance/dist/index.js");
const BASELINE = join(import.meta.dir, "auth-expected-failures.yml");
const SUITE_SIZE = 14;

interface Check {
  id: string;
  name?: string;
  description?: string;
  status: "SUCCESS" | "FAILURE" | "WARNING" | "INFO" | string;
  errorMessage?: string;
}

let out: string | null = null;
afterAll(async () => {
  if (out !== null) await rm(out, { recursive: true, force: true });
});

/** Scenario name of a result directory: `auth/<name>-<ISO timestamp with dashes>`. */
const scenarioOf = (dir: string) => dir.replace(/-\d{4}-\d{2}-\d{2}T[\d-]+Z$/, "");

async function expectedFailures(): Promise<string[]> {
  if (!existsSync(BASELINE)) return [];
  const doc = parse(await readFile(BASELINE, "utf8")) as { client?: unknown } | null;
  return Array.isArray(doc?.client) ? doc.client.map(String) : [];
}

describe.skipIf(!existsSync(HARNESS))("MCP conformance: client --suite auth", () => {
  test("every auth scenario passes (or is a listed expected failure)", async () => {
    out = await mkdtemp(join(tmpdir(), "lemon-conformance-out-"));
    // The harness splits --command on spaces and runs it through a shell: `bun` is found on PATH.
    const env = { ...process.env, PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ""}` };
    const proc = Bun.spawn(
      [
        process.execPath,
        HARNESS,
        "client",
        "--command",
        "bun scripts/conformance/client.ts",
        "--suite",
        "auth",
        "-o",
        out,
      ],
      { cwd: REPO, env, stdin: "ignore", stdout: "pipe", stderr: "pipe" },
    );
    const [stdout] = await Promise.all([
      new Response(proc.stdout).text(),
      new Response(proc.stderr).text(),
      proc.exited,
    ]);

    const results = new Map<string, Check[]>();
    for await (const file of new Bun.Glob("**/checks.json").scan({ cwd: out })) {
      const checks = JSON.parse(await readFile(join(out, file), "utf8")) as Check[];
      results.set(scenarioOf(dirname(file).replaceAll("\\", "/")), checks);
    }
    const expected = new Set(await expectedFailures());
    const failing = new Map<string, string[]>();
    for (const [scenario, checks] of results) {
      const bad = checks.filter((c) => c.status === "FAILURE" || c.status === "WARNING");
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

if (!existsSync(HARNESS))
  console.log("conformance: @modelcontextprotocol/conformance is not installed; auth suite skipped");
