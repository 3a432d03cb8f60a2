// createLemon's MCP client against the real server-everything over stdio (one server for the file):
// getTools, callTool with events, status, the ToolRegistry's precedence and shadowing report,
// close(); and `lemon mcp list` loading no SDK.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join, resolve } from "node:path";
import { createLemon, type Lemon, type ToolDefinition } from "../../../../src/core/index.ts";
import { sandbox, type Sandbox } from "../../../support/sandbox.ts";

const EVERYTHING = resolve(
  import.meta.dir,
  "../../../../node_modules/@modelcontextprotocol/server-everything/dist/index.js",
);

let box: Sandbox;
let lemon: Lemon;
const events: string[] = [];

beforeAll(async () => {
  box = await sandbox();
  await box.write(
    join(box.agentDir, "mcp.json"),
    JSON.stringify({ servers: [{ name: "everything", command: process.execPath, args: [EVERYTHING, "stdio"] }] }),
  );
  lemon = createLemon({ cwd: box.project, env: box.env, curator: false });
  lemon.events.on("mcp.tool_call", (e) => events.push(`${e.tool}:${e.result}`));
  lemon.events.on("mcp.server_state", (e) => events.push(`state:${e.state}`));
});

afterAll(async () => {
  await lemon.close();
  await box[Symbol.asyncDispose]();
});

describe("createLemon().mcp", () => {
  test("getTools, callTool, status and events", async () => {
    const tools = await lemon.mcp.getTools();
    const echo = tools.find((t) => t.label === "MCP echo")!;
    expect(echo).toMatchObject({ source: "mcp", requiresApproval: false });
    expect(echo.parameters.type).toBe("object");
    const r = await lemon.mcp.callTool(echo.name, { message: "hi" }, { toolCallId: "c1" });
    expect(r).toMatchObject({ isError: false, content: [{ type: "text", text: "Echo: hi" }] });
    expect(await echo.execute({ message: "again" }, {})).toMatchObject({ isError: false });
    const st = await lemon.mcp.status();
    expect(st.servers.everything).toMatchObject({ state: "connected", source: "lemon:global" });
    expect(st.cached_tools).toBeGreaterThan(10);
    expect(events).toContain("echo:ok");
    expect(events).toContain("state:connected");
    await expect(lemon.mcp.callTool("mcp_x_y_0000000000000000", {})).rejects.toMatchObject({ code: "NOT_FOUND" });
  }, 30_000);

  test("the ToolRegistry: builtin > wasm > extension > mcp, shadowing reported", async () => {
    const mcpTools = await lemon.mcp.getTools();
    const echo = mcpTools.find((t) => t.label === "MCP echo")!;
    const own = (name: string, source: ToolDefinition["source"]): ToolDefinition => ({
      name,
      label: name,
      description: "",
      parameters: { type: "object", properties: {} },
      source,
      execute: async () => ({ content: [{ type: "text", text: source }], isError: false, details: {} }),
    });
    const reg = lemon.createToolRegistry({
      builtin: [own("read", "builtin")],
      wasm: [own("read", "wasm")],
      extension: [own(echo.name, "extension")],
    });
    const { tools, shadowed } = await reg.getTools();
    expect(shadowed).toEqual([
      { name: "read", kept: "builtin", dropped: "wasm" },
      { name: echo.name, kept: "extension", dropped: "mcp" },
    ]);
    expect(tools.filter((t) => t.name === echo.name).map((t) => t.source)).toEqual(["extension"]);
    expect(await reg.callTool(echo.name, {})).toMatchObject({ content: [{ text: "extension" }] });
    const sum = mcpTools.find((t) => t.label === "MCP get-sum")!;
    expect(await reg.callTool(sum.name, { a: 2, b: 3 })).toMatchObject({ isError: false });
  }, 30_000);
});

test("openSession: in-memory servers, approval always by default, one request per call", async () => {
  const asked: string[] = [];
  await using session = await (async () => {
    const l = createLemon({
      cwd: box.project,
      env: box.env,
      curator: false,
      approve: async (r) => {
        if (r.kind === "mcp_tool") asked.push(`${r.server}/${r.tool}`);
        return r.kind === "mcp_tool" && r.tool === "echo";
      },
    });
    const s = await l.mcp.openSession([{ name: "mine", command: process.execPath, args: [EVERYTHING, "stdio"] }]);
    return { s, [Symbol.asyncDispose]: () => l.close() };
  })();
  const tools = await session.s.getTools();
  const echo = tools.find((t) => t.label === "MCP echo")!;
  expect(echo.name).toMatch(/^mcp_mine_echo_[0-9a-f]{16}$/);
  expect(echo.requiresApproval).toBe(true);
  expect(await session.s.callTool(echo.name, { message: "s" })).toMatchObject({ content: [{ text: "Echo: s" }] });
  const sum = tools.find((t) => t.label === "MCP get-sum")!;
  const denied = await session.s.callTool(sum.name, { a: 1, b: 2 }).catch((e: unknown) => e);
  expect(denied).toMatchObject({ code: "FORBIDDEN", message: "approval denied" });
  expect(asked).toEqual(["mine/echo", "mine/get-sum"]);
  // Nothing was written: the session's entry lives in memory only.
  expect(await Bun.file(join(box.project, ".lemon", "mcp.json")).exists()).toBe(false);
  const bad = await createLemon({ cwd: box.project, env: box.env, curator: false })
    .mcp.openSession([{ name: "x", url: "ftp://nope" }])
    .catch((e: unknown) => e);
  expect(bad).toMatchObject({ code: "INVALID_PARAMS", message: "servers[0]: invalid HTTP URL" });
}, 30_000);

test("lemon mcp list loads no MCP SDK and no host", async () => {
  const script = `
    const { runCli } = await import(${JSON.stringify(resolve(import.meta.dir, "../../../../src/cli/run.ts"))});
    const { memoryIo } = await import(${JSON.stringify(resolve(import.meta.dir, "../../../../src/cli/io.ts"))});
    const m = memoryIo({ env: ${JSON.stringify(box.env)}, cwd: ${JSON.stringify(box.project)} });
    await runCli(["mcp", "list", "--all"], m.io);
    const heavy = ["@modelcontextprotocol", "mcp/client/api.ts", "mcp/client/host.ts", "mcp/client/link.ts", "mcp/client/call.ts", "mcp/client/connect.ts", "mcp/client/transport"];
    const loaded = Object.keys(require.cache).filter((k) => heavy.some((h) => k.includes(h)));
    console.log(JSON.stringify(loaded));
  `;
  const p = Bun.spawnSync([process.execPath, "-e", script], { env: box.env as Record<string, string> });
  expect(p.stdout.toString().trim()).toBe("[]");
});
