// `lemon mcp login/logout/test` against the SDK's OAuth demo (PRM, DCR, PKCE; its /authorize
// auto-approves), run headless (cli.md §3.5, §3.6; mcp.md §11): login stores a token, `mcp test`
// and `mcp call` use it, logout deletes it, a second login reuses the registration (the demo
// matches redirect URIs exactly), and a busy recorded port means a new registration. Without a
// terminal and without --approve nothing is printed or opened and the command fails FORBIDDEN.
// No token ever appears in output.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
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

  test("a corrupt token file is set aside and mcp status says so in the server's warnings", async () => {
    await using box = await sandbox();
    await withDemoEntry(box, {});
    expect((await box.cli(["mcp", "login", "demo", "--global", "--headless-auth", "--approve", "--json"])).code).toBe(
      0,
    );
    const [file] = tokenFiles(box);
    await Bun.write(join(oauthDir(box), file ?? "none"), "{not json");
    const status = await box.cli(["mcp", "status", "--json"], { cwd: box.home });
    const s = status.json() as { servers: Record<string, { auth: { state: string }; warnings: string[] }> };
    expect(s.servers.demo?.auth.state).toBe("needs_auth");
    expect(s.servers.demo?.warnings).toContain("corrupt OAuth token file set aside; authorization required");
    expect(readdirSync(oauthDir(box)).some((n) => n.includes(".corrupt-"))).toBe(true);
  }, 60_000);

  test("logout deletes the token, keeps the registration; login again reuses it; a busy port registers anew", async () => {
    await using box = await sandbox();
    await withDemoEntry(box, {});
    const login = () => box.cli(["mcp", "login", "demo", "--global", "--headless-auth", "--approve", "--json"]);
    expect((await login()).code).toBe(0);
    const client = () =>
      JSON.parse(readFileSync(join(oauthDir(box), "clients", clientFiles(box)[0] ?? "none"), "utf8")) as {
        client_id: string;
        redirect_uris: string[];
      };
    const first = client();

    const out = await box.cli(["mcp", "logout", "demo", "--global", "--json"]);
    expect(out.code).toBe(0);
    expect(out.json()).toEqual({ ok: true, name: "demo", deleted: true });
    expect(tokenFiles(box)).toEqual([]);
    expect(clientFiles(box).length).toBe(1);
    // Without a token the server needs a flow, which `mcp test` cannot run without approval.
    const t = await box.cli(["mcp", "test", "demo", "--global", "--json"]);
    expect(t.code).toBe(1);
    expect((t.json() as { error: { code: string } }).error.code).toBe("FORBIDDEN");

    // The demo matches redirect URIs exactly: the second login must listen on the recorded port.
    const again = await login();
    expect(again.code).toBe(0);
    expect(client().client_id).toBe(first.client_id);
    expect((await box.cli(["mcp", "test", "demo", "--global", "--json"])).code).toBe(0);

    // The recorded port is taken: lemon registers again and replaces the stored registration.
    const port = Number(new URL(first.redirect_uris[0] ?? "").port);
    const blocker: Server = createServer();
    await new Promise<void>((ok) => blocker.listen(port, "127.0.0.1", ok));
    try {
      await box.cli(["mcp", "logout", "demo", "--global"]);
      const third = await login();
      expect(third.code).toBe(0);
      expect(client().client_id).not.toBe(first.client_id);
      expect(clientFiles(box).length).toBe(1);
    } finally {
      await new Promise<void>((ok) => blocker.close(() => ok()));
    }

    // --registration deletes the registration too; a second logout has nothing to delete.
    const both = await box.cli(["mcp", "logout", "demo", "--global", "--registration", "--json"]);
    expect(both.json()).toEqual({ ok: true, name: "demo", deleted: true });
    expect(clientFiles(box)).toEqual([]);
    const none = await box.cli(["mcp", "logout", "demo", "--global"]);
    expect(none.code).toBe(0);
    expect(none.stdout).toBe("No stored tokens for MCP server 'demo'\n");
    const noneBoth = await box.cli(["mcp", "logout", "demo", "--global", "--registration"]);
    expect(noneBoth.stdout).toBe("No stored tokens or client registration for MCP server 'demo'\n");
    // Only a registration left (a login elsewhere that the tokens were deleted after).
    expect((await login()).code).toBe(0);
    await box.cli(["mcp", "logout", "demo", "--global"]);
    const regOnly = await box.cli(["mcp", "logout", "demo", "--global", "--registration"]);
    expect(regOnly.stdout).toBe("Deleted the client registration of MCP server 'demo' (no stored tokens)\n");
    expect(clientFiles(box)).toEqual([]);
  }, 60_000);

  test("an http entry without oauth whose 401 names resource metadata is OAuth: login and test work", async () => {
    await using box = await sandbox();
    await withDemoEntry(box);
    const before = await box.cli(["mcp", "test", "demo", "--global", "--json"]);
    expect(before.code).toBe(1);
    expect((before.json() as { error: { code: string } }).error.code).toBe("FORBIDDEN");
    const login = await box.cli(["mcp", "login", "demo", "--global", "--headless-auth", "--approve", "--json"]);
    expect(login.code).toBe(0);
    const t = await box.cli(["mcp", "test", "demo", "--global", "--json"]);
    expect(t.code).toBe(0);
    // `mcp test` may drive the flow itself too.
    await box.cli(["mcp", "logout", "demo", "--global"]);
    const driven = await box.cli(["mcp", "test", "demo", "--global", "--headless-auth", "--approve", "--json"]);
    expect(driven.code).toBe(0);
    expect((driven.json() as { ok: boolean }).ok).toBe(true);
    const status = await box.cli(["mcp", "status", "--json"], { cwd: box.home });
    const s = status.json() as { servers: Record<string, { auth: { type: string; state: string } }> };
    expect(s.servers.demo?.auth.type).toBe("oauth");
    expect(s.servers.demo?.auth.state).toBe("valid");
    for (const tok of tokensOf(box))
      for (const o of [login, t, driven, status]) expect(o.stdout + o.stderr).not.toContain(tok);
  }, 60_000);

  test("mcp call without a token says to log in; login takes an imported server too", async () => {
    await using box = await sandbox();
    const dir = join(box.home, "claude-config");
    await box.write(
      join(dir, ".claude.json"),
      JSON.stringify({ mcpServers: { imported: { type: "http", url: demo.mcpUrl } } }),
    );
    box.env.CLAUDE_CONFIG_DIR = dir;
    const call = await box.cli(["mcp", "call", "imported", "greet", "{}", "--global"]);
    expect(call.code).toBe(1);
    expect(call.stderr).toBe("error [UNAUTHORIZED]: authorization required\nhint: run 'lemon mcp login imported'\n");
    const login = await box.cli(["mcp", "login", "imported", "--global", "--headless-auth", "--approve", "--json"]);
    expect(login.code).toBe(0);
    const again = await box.cli(["mcp", "call", "imported", "greet", '{"name":"x"}', "--global", "--approve"]);
    expect(again.code).toBe(0);
  }, 60_000);

  test("login of a stdio server or an unknown name fails before anything runs", async () => {
    await using box = await sandbox();
    const marker = join(box.root, "ran");
    await box.write(
      join(box.agentDir, "mcp.json"),
      JSON.stringify({ servers: [{ name: "local", command: "touch", args: [marker] }] }),
    );
    const stdio = await box.cli(["mcp", "login", "local", "--global", "--approve"]);
    expect(stdio.code).toBe(1);
    expect(stdio.stderr).toBe(
      "error [INVALID_REQUEST]: MCP server 'local' is a stdio server; OAuth applies to http and sse servers\n",
    );
    const missing = await box.cli(["mcp", "logout", "nope", "--global", "--json"]);
    expect(missing.code).toBe(1);
    expect((missing.json() as { error: { code: string } }).error.code).toBe("NOT_FOUND");
    expect(await Bun.file(marker).exists()).toBe(false);
  });

  test("a project entry: logout and login of an untrusted one fail FORBIDDEN; its token_secret never reaches the global token (issue #14 F2)", async () => {
    await using box = await sandbox();
    await withDemoEntry(box, {});
    expect((await box.cli(["mcp", "login", "demo", "--global", "--headless-auth", "--approve"])).code).toBe(0);
    const [globalFile] = tokenFiles(box);
    const id = globalFile!.replace(/\.json$/, "");
    const before = readFileSync(join(oauthDir(box), globalFile!), "utf8");
    const entry = { type: "http", url: `${demo.mcpUrl}?x=1`, oauth_token_secret: id, oauth: {} };
    await box.write(join(box.project, ".lemon", "mcp.json"), JSON.stringify({ mcpServers: { evil: entry } }));
    const message =
      "project MCP server 'evil' is not trusted; review it with 'lemon mcp list --all' and run 'lemon mcp trust evil'";
    for (const argv of [
      ["mcp", "logout", "evil", "--json"],
      ["mcp", "login", "evil", "--headless-auth", "--approve", "--json"],
    ]) {
      const r = await box.cli(argv);
      expect(r.code).toBe(1);
      expect((r.json() as { error: { code: string; message: string } }).error).toMatchObject({
        code: "FORBIDDEN",
        message,
      });
    }
    expect((await box.cli(["mcp", "trust", "evil", "--yes"])).code).toBe(0);
    expect((await box.cli(["mcp", "logout", "evil", "--json"])).json()).toEqual({
      ok: true,
      name: "evil",
      deleted: false,
    });
    expect(readFileSync(join(oauthDir(box), globalFile!), "utf8")).toBe(before);
  });

  test("without a terminal and without --approve: nothing printed or opened, FORBIDDEN at once", async () => {
    await using box = await sandbox();
    await withDemoEntry(box, {});
    const marker = join(box.root, "opened");
    const browser = await box.write("browser.sh", `#!/bin/sh\ntouch '${marker}'\n`);
    const { chmodSync } = await import("node:fs");
    chmodSync(browser, 0o755);
    const env = { BROWSER: browser };
    const login = await box.cli(["mcp", "login", "demo", "--global"], { env });
    expect(login.code).toBe(1);
    expect(login.stdout).toBe("");
    // The hint is the request the prompt would have shown: server, authorization server, scopes.
    const request = `the request: log in to MCP server 'demo' at ${new URL(demo.issuer).origin} for scopes mcp:tools (loopback redirect)`;
    expect(login.stderr).toBe(
      `error [FORBIDDEN]: approval required; re-run with --approve after reviewing the request\nhint: ${request}\n`,
    );
    const json = await box.cli(["mcp", "login", "demo", "--global", "--json"], { env });
    expect((json.json() as { error: { code: string; hint: string } }).error).toMatchObject({
      code: "FORBIDDEN",
      hint: request,
    });
    const t = await box.cli(["mcp", "test", "demo", "--global"], { env });
    expect(t.code).toBe(1);
    expect(t.stdout).toContain("error      FORBIDDEN: approval required");
    expect(t.stdout).toContain(`hint       ${request}\n`);
    expect(t.stderr).toBe("");
    const tj = await box.cli(["mcp", "test", "demo", "--global", "--json"], { env });
    expect((tj.json() as { error: { hint: string } }).error.hint).toBe(request);
    for (const out of [login.stderr, json.stdout, t.stdout]) expect(out).not.toContain("/authorize");
    expect(await Bun.file(marker).exists()).toBe(false);
    expect(tokenFiles(box)).toEqual([]);
  }, 20_000);

  test("mcp call off a terminal: FORBIDDEN names the tool call it would approve, not its arguments", async () => {
    await using box = await sandbox();
    await box.write(
      join(box.agentDir, "mcp.json"),
      JSON.stringify({ servers: [{ name: "demo", type: "http", url: demo.mcpUrl, approval: "always" }] }),
    );
    expect((await box.cli(["mcp", "login", "demo", "--global", "--headless-auth", "--approve"])).code).toBe(0);
    const call = await box.cli(["mcp", "call", "demo", "greet", '{"name":"s3cret"}', "--global"]);
    expect(call.code).toBe(1);
    expect(call.stderr).toBe(
      "error [FORBIDDEN]: approval required: run with --approve or from a terminal\nhint: the request: call MCP tool 'greet' of server 'demo' (http)\n",
    );
  }, 30_000);

  test("a terminal user approves; the URL goes to stderr and to BROWSER, which completes the flow", async () => {
    await using box = await sandbox();
    await withDemoEntry(box, {});
    // A scripted "browser": follows the authorization redirects like a real one would.
    const script = await box.write("browser.ts", "const r = await fetch(process.argv[2]); await r.text();\n");
    const env = { BROWSER: `${process.execPath} ${script}` };
    const login = await box.cli(["mcp", "login", "demo", "--global"], { env, answers: ["y"] });
    expect(login.stderr).toContain("Log in to MCP server 'demo' at http://localhost:");
    expect(login.stderr).toContain("Open this URL to authorize lemon:\n  http://localhost:");
    expect(login.code).toBe(0);
    expect(login.stdout).toMatch(/^Logged in to MCP server 'demo'/);
    expect(tokenFiles(box).length).toBe(1);
    for (const tok of tokensOf(box)) expect(login.stdout + login.stderr).not.toContain(tok);

    // Declining prints Aborted. and changes nothing.
    await box.cli(["mcp", "logout", "demo", "--global"]);
    const no = await box.cli(["mcp", "login", "demo", "--global"], { env, answers: ["n"] });
    expect(no.code).toBe(1);
    expect(no.stderr).toEndWith("Aborted.\n");
    expect(tokenFiles(box)).toEqual([]);
  }, 60_000);
});
