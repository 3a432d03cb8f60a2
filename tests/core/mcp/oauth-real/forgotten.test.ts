// The SDK demo restarted (mcp-test-peers.md §7.8): it forgot every token and registration lemon
// stored (issue #14 P-A, P-B). A stored token it refuses is dead: call/tools say to log in, status
// stops saying "valid", and `mcp test --approve --headless-auth` runs the flow again; a forgotten
// registration is replaced once in a headless flow.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type SdkDemo, startSdkDemo } from "../../../support/oauth-peers.ts";
import { type Sandbox, sandbox } from "../../../support/sandbox.ts";

let demo: SdkDemo;
beforeAll(async () => {
  demo = await startSdkDemo();
});
afterAll(async () => {
  await demo?.stop();
});

/** The demo forgets everything it issued and registered; same ports. */
async function restart() {
  const { port, authPort } = demo;
  await demo.stop();
  demo = await startSdkDemo({ port, authPort });
}

const oauthDir = (box: Sandbox) => join(box.agentDir, "secrets", "mcp-oauth");
const list = (dir: string) => {
  try {
    return readdirSync(dir).filter((f) => f.endsWith(".json"));
  } catch {
    return [];
  }
};
const clientId = (box: Sandbox) => {
  const [f] = list(join(oauthDir(box), "clients"));
  return f === undefined
    ? null
    : (JSON.parse(readFileSync(join(oauthDir(box), "clients", f), "utf8")) as { client_id: string }).client_id;
};

async function loggedIn(oauth?: Record<string, unknown>) {
  const box = await sandbox();
  await box.write(
    join(box.agentDir, "mcp.json"),
    JSON.stringify({ servers: [{ name: "notes", type: "http", url: demo.mcpUrl, ...(oauth ? { oauth } : {}) }] }),
  );
  const login = await box.cli(["mcp", "login", "notes", "--global", "--headless-auth", "--approve", "--json"]);
  expect(login.code).toBe(0);
  return box;
}

describe("a server that forgot lemon's token and registration", () => {
  test("a refused stored token: call and tools say to log in, status is not valid, test --approve logs in again", async () => {
    await using box = await loggedIn();
    await restart();
    const status0 = await box.cli(["mcp", "status", "--json"], { cwd: box.home });
    const s0 = status0.json() as { servers: Record<string, { auth: { state: string } }> };
    expect(s0.servers.notes?.auth.state).not.toBe("valid");

    const call = await box.cli(["mcp", "call", "notes", "greet", '{"name":"x"}', "--global", "--approve"]);
    expect(call.code).toBe(1);
    expect(call.stderr).toBe("error [UNAUTHORIZED]: authorization required\nhint: run 'lemon mcp login notes'\n");
    const tools = await box.cli(["mcp", "tools", "notes", "--json"]);
    expect(tools.code).toBe(1);
    expect((tools.json() as { error: { code: string; message: string } }).error).toMatchObject({
      code: "UNAUTHORIZED",
      message: "authorization required",
    });
    const t = await box.cli(["mcp", "test", "notes", "--global", "--approve", "--headless-auth", "--json"]);
    expect(t.code).toBe(0);
    const again = await box.cli(["mcp", "call", "notes", "greet", '{"name":"x"}', "--global", "--approve"]);
    expect(again.code).toBe(0);
  }, 60_000);

  test("status right after the restart (token never refused yet in a call) is not valid either", async () => {
    await using box = await loggedIn();
    await restart();
    const status = await box.cli(["mcp", "status", "--json"], { cwd: box.home });
    const s = status.json() as { servers: Record<string, { auth: { state: string }; state: string }> };
    expect(s.servers.notes?.auth.state).toBe("needs_auth");
    expect(s.servers.notes?.state).toBe("needs_auth");
  }, 60_000);

  test("headless login with a forgotten registration registers again once and succeeds", async () => {
    await using box = await loggedIn();
    const first = clientId(box);
    await restart();
    const login = await box.cli(["mcp", "login", "notes", "--global", "--headless-auth", "--approve", "--json"]);
    expect(login.stderr).toBe("");
    expect(login.code).toBe(0);
    expect(clientId(box)).not.toBe(first);
    expect(list(join(oauthDir(box), "clients")).length).toBe(1);
  }, 60_000);

  test("with a browser: the server's error page for a forgotten registration ends in a hint to drop it; a terminal approval then logs in", async () => {
    await using box = await loggedIn({ authorization_timeout_ms: 1500 });
    const first = clientId(box);
    await restart();
    // A scripted "browser" that follows redirects like a real one; here it lands on the 400 page.
    const script = await box.write("browser.ts", "const r = await fetch(process.argv[2]); await r.text();\n");
    const env = { BROWSER: `${process.execPath} ${script}` };
    const login = await box.cli(["mcp", "login", "notes", "--global", "--approve"], { env });
    expect(login.code).toBe(1);
    expect(login.stderr).toEndWith(
      "error [UNAUTHORIZED]: authorization timed out\nhint: run 'lemon mcp logout notes --registration' and log in again\n",
    );
    expect(clientId(box)).toBe(first);
    const out = await box.cli(["mcp", "logout", "notes", "--global", "--registration"]);
    expect(out.code).toBe(0);
    expect(out.stdout).toBe("Logged out of MCP server 'notes': deleted its tokens and its client registration\n");
    const t = await box.cli(["mcp", "test", "notes", "--global"], { env, answers: ["y"] });
    expect(t.code).toBe(0);
    expect(clientId(box)).not.toBe(first);
  }, 60_000);
});
