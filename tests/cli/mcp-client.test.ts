// `lemon mcp status`, `tools`, `call` and `test` against the real server-everything over stdio
// (each CLI run starts its own server: the CLI discovers once per invocation), plus the trust
// gate: an untrusted project server is listed but never started.
import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { freePort } from "../core/mcp/client/peers.ts";
import { sandbox, type Sandbox } from "../support/sandbox.ts";

const EVERYTHING = resolve(import.meta.dir, "../../node_modules/@modelcontextprotocol/server-everything/dist/index.js");
const everything = (extra: Record<string, unknown> = {}) => ({
  name: "everything",
  command: process.execPath,
  args: [EVERYTHING, "stdio"],
  ...extra,
});

async function globalServers(box: Sandbox, servers: unknown[]) {
  await box.write(join(box.agentDir, "mcp.json"), JSON.stringify({ servers }));
}

describe("a global (user-trusted) server", () => {
  test("status, tools, call (text, image, isError, JSON), approvals, test", async () => {
    await using box = await sandbox();
    await globalServers(box, [everything({ approval: "never", tool_approvals: { "get-sum": "always" } })]);

    const st = await box.cli(["mcp", "status", "--json"]);
    expect(st.code).toBe(0);
    const doc = st.json() as { ok: boolean; servers: Record<string, Record<string, unknown>> };
    expect(doc.ok).toBe(true);
    expect(doc.servers.everything).toMatchObject({
      name: "everything",
      source: "lemon:global",
      transport: "stdio",
      state: "connected",
      connected: true,
      server_info: { name: "mcp-servers/everything", version: "2.0.0" },
      capabilities: { tools: true, resources: true, prompts: true },
      resource_count: 7,
      prompt_count: 4,
      auth: { type: "none" },
      last_error: null,
    });
    expect(st.stdout).not.toContain(EVERYTHING);

    const tools = await box.cli(["mcp", "tools", "everything", "--json"]);
    const list = (tools.json() as { tools: { name: string; label: string; server: string }[] }).tools;
    const echo = list.find((t) => t.label === "MCP echo");
    expect(echo?.name).toMatch(/^mcp_everything_echo_[0-9a-f]{16}$/);
    expect(list.some((t) => t.label === "MCP resources/read")).toBe(true);

    const call = await box.cli(["mcp", "call", "everything", "echo", '{"message":"hello"}']);
    expect(call.code).toBe(0);
    expect(call.stdout).toBe("Echo: hello\n");

    const img = await box.cli(["mcp", "call", "everything", "get-tiny-image"]);
    expect(img.stdout).toMatch(/^\[image image\/png \d+ bytes\]$/m);

    const json = await box.cli(["mcp", "call", "everything", "echo", '{"message":"x"}', "--json"]);
    expect(json.json()).toMatchObject({
      ok: true,
      name: "everything",
      tool: "echo",
      is_error: false,
      content: [{ type: "text", text: "Echo: x" }],
      structured_content: null,
    });

    const bad = await box.cli(["mcp", "call", "everything", "echo", '{"message":5}', "--json"]);
    expect(bad.code).toBe(1);
    expect(bad.json()).toMatchObject({ ok: false, is_error: true });

    const denied = await box.cli(["mcp", "call", "everything", "get-sum", '{"a":1,"b":2}']);
    expect(denied.code).toBe(1);
    expect(denied.stderr).toContain("error [FORBIDDEN]: approval required: run with --approve or from a terminal");
    // On a terminal the call is a [y/N] question; no means Aborted. and nothing is called.
    const no = await box.cli(["mcp", "call", "everything", "get-sum", '{"a":1,"b":2}'], { answers: ["n"] });
    expect([no.code, no.stdout]).toEqual([1, ""]);
    expect(no.stderr).toContain(
      "Call MCP tool 'get-sum' of server 'everything' (stdio) with {\"a\":1,\"b\":2}? [y/N] ",
    );
    expect(no.stderr).toEndWith("Aborted.\n");
    const yes = await box.cli(["mcp", "call", "everything", "get-sum", '{"a":1,"b":2}'], { answers: ["y"] });
    expect(yes.code).toBe(0);
    const sum = await box.cli(["mcp", "call", "everything", "get-sum", '{"a":1,"b":2}', "--approve"]);
    expect(sum.code).toBe(0);
    expect(sum.stdout).toContain("3");

    const res = await box.cli([
      "mcp",
      "call",
      "everything",
      "resources/read",
      '{"uri":"demo://resource/static/document/architecture.md"}',
    ]);
    expect(res.code).toBe(0);

    // A project entry claiming the name (untrusted) wins in the project scope; --global skips it.
    await box.write(join(box.project, ".lemon", "mcp.json"), JSON.stringify({ servers: [everything()] }));
    const shadowed = await box.cli(["mcp", "call", "everything", "echo", '{"message":"g"}']);
    expect(shadowed.code).toBe(1);
    expect(shadowed.stderr).toContain("is not trusted");
    const global = await box.cli(["mcp", "call", "everything", "echo", '{"message":"g"}', "--global"]);
    expect(global.stdout).toBe("Echo: g\n");
    await box.write(join(box.project, ".lemon", "mcp.json"), JSON.stringify({ servers: [] }));

    const missing = await box.cli(["mcp", "call", "everything", "nope"]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("error [NOT_FOUND]: MCP tool 'nope' not found");
    const args = await box.cli(["mcp", "call", "everything", "echo", "[1]"]);
    expect(args.code).toBe(2);

    const t = await box.cli(["mcp", "test", "everything", "--global", "--json", "--list-tools"]);
    expect(t.code).toBe(0);
    expect(t.json()).toMatchObject({
      ok: true,
      name: "everything",
      source: "lemon:global",
      transport: "stdio",
      protocol_version: expect.any(String),
      counts: { resources: 7, prompts: 4 },
      error: null,
    });
    expect((t.json() as { tools: string[] }).tools).toContain(echo!.name);
    const human = await box.cli(["mcp", "test", "everything", "--global"]);
    expect(human.stdout).toMatch(
      /^everything: ok\n {2}transport {2}stdio\n {2}server {5}mcp-servers\/everything 2\.0\.0\n/,
    );
    expect(human.stdout).toMatch(/\n {2}timing {5}connect \d+ ms, initialize \d+ ms, list \d+ ms, total \d+ ms\n/);
  }, 60_000);
});

describe("trust gate and failures", () => {
  test("an untrusted project server never runs: status, tools, call, test", async () => {
    await using box = await sandbox();
    const marker = join(box.root, "marker");
    await box.write(
      join(box.project, ".mcp.json"),
      JSON.stringify({ mcpServers: { evil: { command: "touch", args: [marker] } } }),
    );
    const st = await box.cli(["mcp", "status", "--json"]);
    expect((st.json() as { servers: Record<string, { state: string }> }).servers.evil?.state).toBe("untrusted");
    const tools = await box.cli(["mcp", "tools", "--json"]);
    expect(tools.json()).toEqual({ ok: true, tools: [] });
    const call = await box.cli(["mcp", "call", "evil", "x"]);
    expect(call.code).toBe(1);
    expect(call.stderr).toContain("FORBIDDEN");
    await box.write(
      join(box.project, ".lemon", "mcp.json"),
      JSON.stringify({ servers: [{ name: "evil2", command: "touch", args: [marker] }] }),
    );
    const t = await box.cli(["mcp", "test", "evil2"]);
    expect(t.code).toBe(1);
    expect(t.stderr).toContain(
      "error [FORBIDDEN]: project MCP server 'evil2' is not trusted; review it with 'lemon mcp list --all' and run 'lemon mcp trust evil2'",
    );
    expect(existsSync(marker)).toBe(false);
    // A terminal user who confirms trusts it (recorded), and then the test runs the program.
    await box.write(
      join(box.project, ".lemon", "mcp.json"),
      JSON.stringify({ servers: [{ name: "ok", command: process.execPath, args: [EVERYTHING, "stdio"] }] }),
    );
    const declined = await box.cli(["mcp", "test", "ok"], { answers: ["n"] });
    expect(declined.code).toBe(1);
    expect(declined.stderr).toContain("project MCP server 'ok' is not trusted");
    const confirmed = await box.cli(["mcp", "test", "ok"], { answers: ["y"] });
    expect(confirmed.stdout).toStartWith("ok: ok\n");
    expect((await box.cli(["mcp", "status", "--json"])).json()).toMatchObject({
      servers: { ok: { state: "connected" } },
    });
  }, 30_000);

  test("test of a missing name, a refused URL, and a server that fails to start", async () => {
    await using box = await sandbox();
    await globalServers(box, [{ name: "gone", command: join(box.root, "no-such-binary") }]);
    const nf = await box.cli(["mcp", "test", "nope", "--global"]);
    expect(nf.code).toBe(1);
    expect(nf.stderr).toContain(`MCP server 'nope' not found in ${join(box.agentDir, "mcp.json")}`);
    const gone = await box.cli(["mcp", "test", "gone", "--global", "--json"]);
    expect(gone.code).toBe(1);
    expect(gone.json()).toMatchObject({ ok: false, error: { message: expect.stringMatching(/^spawn failed/) } });
    const st = await box.cli(["mcp", "status", "--json"]);
    const s = (st.json() as { servers: Record<string, { state: string; last_error: string }> }).servers.gone;
    expect(s?.state).toBe("error");
    expect(s?.last_error).toMatch(/^spawn failed/);
    // Refused at connect is `connection failed` (mcp.md §13), over either HTTP transport;
    // `connection closed` is for a connection that was up.
    const port = await freePort();
    for (const transport of ["http", "sse"]) {
      const url = await box.cli([
        "mcp",
        "test",
        "--url",
        `http://127.0.0.1:${port}/mcp`,
        "--transport",
        transport,
        "--json",
      ]);
      expect(url.code).toBe(1);
      expect(url.json()).toMatchObject({
        ok: false,
        transport,
        error: { code: "UNAVAILABLE", message: "connection failed" },
      });
    }
  }, 30_000);
});
