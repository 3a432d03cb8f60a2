// The conformance client's per-scenario configuration (scripts/conformance/scenarios.ts): a
// client-credentials scenario must run the client_credentials grant with the harness's
// pre-registered credentials, the pre-registration scenario the authorization code flow. The
// harness's `auth/client-credentials-basic` scenario (outside `--suite auth`) is run for real.
import { describe, expect, test } from "bun:test";
import { scenarioEntry } from "../../scripts/conformance/scenarios.ts";
import { harnessInstalled, isBad, runHarness } from "./harness.ts";

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

describe.skipIf(!harnessInstalled)("MCP conformance: auth/client-credentials-basic", () => {
  test("every check passes", async () => {
    const { results } = await runHarness(["--scenario", "auth/client-credentials-basic"]);
    const checks = [...results.values()].flat();
    expect(checks.length).toBeGreaterThan(0);
    const bad = checks.filter(isBad);
    expect(bad.map((c) => `${c.id}: ${c.errorMessage ?? ""}`)).toEqual([]);
  }, 120_000);
});
