// `notifications/tools/list_changed` from real stdio servers through the worker transport
// (mcp.md §6.4): the owning server's inventory is re-listed and the published names follow.
// server-everything sends list_changed right after initialize because lemon declares `roots`
// (mcp-test-peers.md §4, §7.3); the lively fixture adds a tool on each `grow` call, then notifies.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join, resolve } from "node:path";
import { createContext } from "../../../../src/core/context.ts";
import { createMcpClient, type McpClient } from "../../../../src/core/mcp/client/api.ts";
import { connectServer, type ListKind } from "../../../../src/core/mcp/client/connect.ts";
import { sandbox, type Sandbox } from "../../../support/sandbox.ts";
import { until } from "./fake.ts";

const LIVELY = resolve(import.meta.dir, "../../../fixtures/mcp-servers/lively.ts");
const EVERYTHING = resolve(
  import.meta.dir,
  "../../../../node_modules/@modelcontextprotocol/server-everything/dist/index.js",
);

let box: Sandbox;
let client: McpClient;
/** `<server>:<kind>` for every listing a connection made, in order. */
const lists: string[] = [];

beforeAll(async () => {
  box = await sandbox();
  await box.write(
    join(box.agentDir, "mcp.json"),
    JSON.stringify({
      servers: [
        { name: "lively", command: process.execPath, args: [LIVELY] },
        { name: "everything", command: process.execPath, args: [EVERYTHING, "stdio"] },
      ],
    }),
  );
  client = createMcpClient({
    ctx: createContext({ cwd: box.project, env: box.env }),
    config: {},
    trusted: async () => true,
    debounceMs: 20,
    // The real connection, with its listings counted.
    connect: async (s, o) => {
      const conn = await connectServer(s, o);
      const list = conn.list.bind(conn);
      return Object.assign(Object.create(conn) as typeof conn, {
        list: (kind: ListKind, lo?: { timeoutMs?: number }) => {
          lists.push(`${s.name}:${kind}`);
          return list(kind, lo);
        },
      });
    },
  });
});

afterAll(async () => {
  await client.close();
  await box[Symbol.asyncDispose]();
});

const names = async (prefix: string) =>
  (await client.getTools()).map((t) => t.name).filter((n) => n.startsWith(prefix));

describe("list_changed from real servers", () => {
  test("a tool added at run time is published after the server's list_changed", async () => {
    const before = await names("mcp_lively_");
    expect(before.some((n) => n.startsWith("mcp_lively_grow_"))).toBe(true);
    expect(before.some((n) => n.startsWith("mcp_lively_extra_"))).toBe(false);
    const grow = before.find((n) => n.startsWith("mcp_lively_grow_"))!;
    expect(await client.callTool(grow, {})).toMatchObject({ isError: false });
    // Nothing but the notification tells the host: no refresh is asked for here.
    let now: string[] = [];
    await until(() => {
      void names("mcp_lively_extra_1_").then((n) => {
        now = n;
      });
      return now.length === 1;
    }, 10_000);
    expect(lists.filter((l) => l === "lively:tools").length).toBe(2);
    expect(await client.callTool(now[0]!, {})).toMatchObject({ content: [{ type: "text", text: "extra-1 ok" }] });
  }, 30_000);

  test("server-everything: the list_changed after initialize re-lists its tools", async () => {
    await names("mcp_everything_");
    await until(() => lists.filter((l) => l === "everything:tools").length >= 2, 10_000);
    const st = await client.status();
    expect(st.servers.everything).toMatchObject({ state: "connected", tool_count: 14 });
    // Resources and prompts were not announced as changed: listed once, at discovery.
    expect(lists.filter((l) => l === "everything:prompts")).toEqual(["everything:prompts"]);
  }, 30_000);
});
