// The host's own layers over scripted connections: discovery and filters, list_changed debounce,
// retirement, the reconnect ladder and the breaker (delays injected, no real waits), approvals and
// call errors. The transports are exercised against real servers in real-servers.test.ts.
import { describe, expect, test } from "bun:test";
import { createContext } from "../../../../src/core/context.ts";
import { LemonError } from "../../../../src/core/errors.ts";
import { createMcpClient, type McpClientOptions } from "../../../../src/core/mcp/client/api.ts";
import { argumentsPreview, truncateText } from "../../../../src/core/mcp/client/call.ts";
import { sandbox, type Sandbox } from "../../../support/sandbox.ts";
import { fakeConnector, fakeServer, tick, until, type FakeServer } from "./fake.ts";

async function setup(
  box: Sandbox,
  servers: unknown[],
  fakes: Record<string, FakeServer>,
  more: Partial<McpClientOptions> = {},
) {
  await box.write(`${box.project}/.lemon/mcp.json`, JSON.stringify({ servers }));
  const ctx = createContext({ cwd: box.project, env: box.env });
  const states: string[] = [];
  const calls: string[] = [];
  const client = createMcpClient({
    ctx,
    config: {},
    trusted: async () => true,
    connect: fakeConnector(fakes) as McpClientOptions["connect"],
    delays: [1, 1, 1, 1],
    debounceMs: 5,
    events: {
      serverState: (e) => states.push(`${e.server}:${e.state}:${e.lastError}`),
      toolCall: (e) => calls.push(`${e.name}:${e.result}:${e.errorCode ?? ""}`),
    },
    ...more,
  });
  return { client, states, calls };
}

const stdio = (name: string, extra: Record<string, unknown> = {}) => ({ name, command: "fake", ...extra });

describe("discovery and calls", () => {
  test("filters, utilities, approval OR policy, one request, errors", async () => {
    await using box = await sandbox();
    const a = fakeServer(["read", "write", "drop"], {
      resources: [{ uri: "demo://a" }, { uri: "demo://b" }],
      prompts: [],
    });
    const approvals: unknown[] = [];
    const { client, calls } = await setup(
      box,
      [
        stdio("a", {
          block_tools: ["drop"],
          block_resources: ["demo://b"],
          approval: "never",
          tool_approvals: { write: "always" },
        }),
      ],
      { a },
      { approve: async (r) => approvals.push(r) > 0 },
    );
    const tools = await client.getTools();
    const labels = tools.map((t) => t.label).sort();
    expect(labels).toEqual([
      "MCP prompts/get",
      "MCP prompts/list",
      "MCP read",
      "MCP resources/list",
      "MCP resources/read",
      "MCP write",
    ]);
    const byLabel = (l: string) => tools.find((t) => t.label === l)!;
    expect(byLabel("MCP write").requiresApproval).toBe(true);
    expect(byLabel("MCP read").requiresApproval).toBe(false);

    await client.callTool(byLabel("MCP read").name, { x: 1 });
    expect(approvals).toHaveLength(0);
    const r = await client.callTool(byLabel("MCP write").name, { path: "f", api_key: "sk-123", note: "a\u001b[31m" });
    expect(r.isError).toBe(false);
    expect(approvals).toEqual([
      {
        kind: "mcp_tool",
        server: "a",
        tool: "write",
        name: byLabel("MCP write").name,
        transport: "stdio",
        argumentsPreview: '{"api_key":"[redacted]","note":"a[31m","path":"f"}',
      },
    ]);
    expect(a.calls.at(-1)).toEqual({
      method: "tools/call",
      params: { name: "write", arguments: { path: "f", api_key: "sk-123", note: "a\u001b[31m" } },
    });

    await expect(client.callTool(byLabel("MCP resources/read").name, {})).rejects.toMatchObject({
      code: "INVALID_PARAMS",
      message: "missing parameter 'uri'",
    });
    await expect(client.callTool(byLabel("MCP resources/read").name, { uri: "demo://b" })).rejects.toMatchObject({
      code: "FORBIDDEN",
    });
    await expect(client.callTool("mcp_nope_x_0123456789abcdef", {})).rejects.toMatchObject({
      code: "NOT_FOUND",
      message: "MCP tool 'mcp_nope_x_0123456789abcdef' not found",
    });
    const st = await client.status();
    expect(st.servers.a).toMatchObject({ state: "connected", tool_count: 2, resource_count: 1, prompt_count: 0 });
    expect(calls.length).toBeGreaterThanOrEqual(2);
    await client.close();
  });

  test("policy: require_approval ORs with never; deny is FORBIDDEN; a denied approval asks once", async () => {
    await using box = await sandbox();
    const a = fakeServer(["t"]);
    let asked = 0;
    const { client } = await setup(
      box,
      [stdio("a", { approval: "always" })],
      { a },
      {
        approve: async () => ++asked < 0,
        toolPolicy: (c) => (c.tool === "t" ? "require_approval" : "allow"),
      },
    );
    const [t] = await client.getTools();
    await expect(client.callTool(t!.name, {})).rejects.toMatchObject({ code: "FORBIDDEN", message: "approval denied" });
    expect(asked).toBe(1);
    expect(a.calls).toHaveLength(0);
    const r = await t!.execute({}, {});
    expect(r).toMatchObject({ isError: true, content: [{ type: "text", text: "approval denied" }] });
    await client.close();
  });

  test("list_changed re-lists after the debounce; removed tools become retired names", async () => {
    await using box = await sandbox();
    const a = fakeServer(["one"]);
    const { client } = await setup(box, [stdio("a")], { a });
    const [one] = await client.getTools();
    a.tools = [{ name: "two" }];
    a.live[0]!.notify("notifications/tools/list_changed");
    a.live[0]!.notify("notifications/tools/list_changed");
    await tick(30);
    const names = (await client.getTools()).map((t) => t.label);
    expect(names).toEqual(["MCP two"]);
    await expect(client.callTool(one!.name, {})).rejects.toMatchObject({
      code: "NOT_FOUND",
      message: `MCP tool '${one!.name}' is no longer available; refresh tools`,
    });
    await client.close();
  });

  test("a changed configuration retires the old connection and its names", async () => {
    await using box = await sandbox();
    const a = fakeServer(["t"]);
    const { client } = await setup(box, [stdio("a", { args: ["1"] })], { a });
    const [old] = await client.getTools();
    await box.write(`${box.project}/.lemon/mcp.json`, JSON.stringify({ servers: [stdio("a", { args: ["2"] })] }));
    const [fresh] = await client.getTools({ refresh: true });
    expect(fresh!.name).not.toBe(old!.name);
    expect(a.live[0]!.closed).toBe(true);
    await expect(client.callTool(old!.name, {})).rejects.toMatchObject({ code: "NOT_FOUND" });
    await client.close();
  });
});

describe("timeouts (mcp.md §9)", () => {
  test("a timed-out call fails with the fixed message and is never replayed", async () => {
    await using box = await sandbox();
    const a = fakeServer(["slow"], {
      answer: () => {
        throw new LemonError("TIMEOUT", "MCP request timed out after 300 ms");
      },
    });
    const { client } = await setup(box, [stdio("a", { tool_timeout_ms: 300 })], { a });
    const [t] = await client.getTools();
    await expect(client.callTool(t!.name, {})).rejects.toMatchObject({
      code: "TIMEOUT",
      message: "MCP tool call timed out after 300 ms",
    });
    expect(a.calls).toHaveLength(1);
    await client.close();
  });
});

describe("reconnect ladder and breaker (mcp.md §8)", () => {
  test("a crash reconnects and re-lists; in-flight calls are not replayed", async () => {
    await using box = await sandbox();
    const a = fakeServer(["t"]);
    const { client, states } = await setup(box, [stdio("a")], { a });
    const [t] = await client.getTools();
    a.live[0]!.crash();
    await until(() => a.connects === 2 && states.at(-1) === "a:connected:null");
    expect(states).toContain("a:reconnecting:connection closed");
    const r = await client.callTool(t!.name, {});
    expect(r.isError).toBe(false);
    expect(a.calls).toHaveLength(1);
    await client.close();
  });

  test("ladder exhausted: unavailable with the fixed reason; only that server; refresh resets", async () => {
    await using box = await sandbox();
    const a = fakeServer(["t"]);
    const b = fakeServer(["u"]);
    const { client } = await setup(box, [stdio("a"), stdio("b")], { a, b }, { crashLimit: 100 });
    const [t] = (await client.getTools()).filter((x) => x.label === "MCP t");
    a.failConnect = (n) => n > 1;
    a.live[0]!.crash();
    await until(() => a.connects === 5);
    await tick(10);
    let st = await client.status();
    expect(st.servers.a).toMatchObject({
      state: "unavailable",
      last_error: "server unavailable: reconnect attempts exhausted",
    });
    expect(st.servers.b!.state).toBe("connected");
    await expect(client.callTool(t!.name, {})).rejects.toMatchObject({
      code: "UNAVAILABLE",
      message: "MCP server 'a' is not connected",
    });
    expect((await client.getTools()).map((x) => x.label)).toEqual(["MCP u"]);
    a.failConnect = () => false;
    await client.refresh("a");
    st = await client.status();
    expect(st.servers.a).toMatchObject({ state: "connected", last_error: null, crashes_30s: 0 });
    await client.close();
  });

  test("more than five crashes in 30 s trip the breaker", async () => {
    await using box = await sandbox();
    const a = fakeServer(["t"]);
    const { client } = await setup(box, [stdio("a")], { a });
    await client.getTools();
    for (let i = 0; i < 6; i++) {
      await until(() => a.live.length === i + 1);
      await until(() => a.live[i]!.closed === false);
      await tick(5);
      a.live[i]!.crash();
    }
    await tick(20);
    const st = await client.status();
    expect(st.servers.a).toMatchObject({ state: "unavailable", last_error: "server unavailable: too many crashes" });
    await client.close();
  });
});

describe("pure helpers", () => {
  test("arguments preview is cut to 1,024 characters", () => {
    expect(argumentsPreview({ s: "x".repeat(5000) })).toHaveLength(1024);
    expect(argumentsPreview({ nested: { Password: "p", ok: [1, { token: "t" }] } })).toBe(
      '{"nested":{"Password":"[redacted]","ok":[1,{"token":"[redacted]"}]}}',
    );
  });
  test("results beyond max_result_chars are cut with the marker", () => {
    expect(truncateText([{ type: "text", text: "abcdef" }], 4)).toEqual([
      { type: "text", text: "abcd" },
      { type: "text", text: "[truncated: showing 4 of 6 characters]" },
    ]);
  });
});
