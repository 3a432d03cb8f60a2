// The conformance client's per-scenario configuration (scripts/conformance/scenarios.ts): a
// client-credentials scenario must run the client_credentials grant with the harness's
// pre-registered credentials, the pre-registration scenario the authorization code flow. The
// harness's `auth/client-credentials-basic` scenario (outside `--suite auth`) is run for real.
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, dirname, join, resolve } from "node:path";
import { scenarioEntry } from "../../scripts/conformance/scenarios.ts";

const REPO = resolve(import.meta.dir, "../..");
const HARNESS = join(REPO, "node_modules/@modelcontextprotocol/conformance/dist/index.js");
const URL_ = "http://127.0.0.1:1/mcp";
const creds = JSON.stringify({ client_id: "cid", client_secret: "sec" });

describe("scenarioEntry", () => {
  test("client-credentials scenarios use the client_credentials flow with the context's credentials", () => {
    const e = scenarioEntry("auth/client-credentials-basic", URL_, creds);
    expect(e.oauth).toMatchObject({ flow: "client_credentials", client_id: "cid", client_secret: "sec" });
  });

  test("pre-registration keeps the authorization code flow", () => {
    const e = scenarioEntry("auth/pre-registration", URL_, creds);
    expect(e.oauth).toMatchObject({ flow: "authorization_code_pkce", client_id: "cid", client_secret: "sec" });
  });
});

let out: string | null = null;
afterAll(async () => {
  if (out !== null) await rm(out, { recursive: true, force: true });
});

describe.skipIf(!existsSync(HARNESS))("MCP conformance: auth/client-credentials-basic", () => {
  test("every check passes", async () => {
    out = await mkdtemp(join(tmpdir(), "lemon-conformance-cc-"));
    const env = { ...process.env, PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ""}` };
    const proc = Bun.spawn(
      [
        process.execPath,
        HARNESS,
        "client",
        "--command",
        "bun scripts/conformance/client.ts",
        "--scenario",
        "auth/client-credentials-basic",
        "-o",
        out,
      ],
      { cwd: REPO, env, stdin: "ignore", stdout: "pipe", stderr: "pipe" },
    );
    await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    const checks: { id: string; status: string; errorMessage?: string }[] = [];
    for await (const file of new Bun.Glob("**/checks.json").scan({ cwd: out }))
      checks.push(...JSON.parse(await readFile(join(out, file), "utf8")));
    expect(checks.length).toBeGreaterThan(0);
    const bad = checks.filter((c) => c.status === "FAILURE" || c.status === "WARNING");
    expect(bad.map((c) => `${c.id}: ${c.errorMessage ?? ""}`)).toEqual([]);
  }, 120_000);
});
