// One run of the MCP conformance harness (@modelcontextprotocol/conformance) against lemon's
// conformance client (scripts/conformance/client.ts), shared by the conformance tests: they
// differ only in which scenarios they select and how they judge the checks.
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, dirname, join, resolve } from "node:path";

const REPO = resolve(import.meta.dir, "../..");
const HARNESS = join(REPO, "node_modules/@modelcontextprotocol/conformance/dist/index.js");

export const harnessInstalled = existsSync(HARNESS);

export interface Check {
  id: string;
  name?: string;
  description?: string;
  status: "SUCCESS" | "FAILURE" | "WARNING" | "INFO" | string;
  errorMessage?: string;
}

/** The harness fails a scenario on either. */
export const isBad = (c: Check) => c.status === "FAILURE" || c.status === "WARNING";

/**
 * Runs `client` with `select` (e.g. `["--suite", "auth"]`) and returns the harness's stdout and
 * every result directory's checks.json, keyed by the directory relative to the output root.
 */
export async function runHarness(
  select: readonly string[],
): Promise<{ stdout: string; results: Map<string, Check[]> }> {
  const out = await mkdtemp(join(tmpdir(), "lemon-conformance-out-"));
  try {
    // The harness splits --command on spaces and runs it through a shell: `bun` is found on PATH.
    const env = { ...process.env, PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ""}` };
    const proc = Bun.spawn(
      [process.execPath, HARNESS, "client", "--command", "bun scripts/conformance/client.ts", ...select, "-o", out],
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
      results.set(dirname(file).replaceAll("\\", "/"), checks);
    }
    return { stdout, results };
  } finally {
    await rm(out, { recursive: true, force: true });
  }
}
