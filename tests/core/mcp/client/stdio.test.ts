// stdio through the worker against the real npm servers (mcp.md §5.1, §5.4): one
// server-everything for the handshake, calls, progress, timeouts, notifications, the child env and
// the stderr ring; filesystem in roots mode; memory writing its file.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtemp, readFile, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { connectServer, type ServerConnection } from "../../../../src/core/mcp/client/connect.ts";
import { LemonError } from "../../../../src/core/errors.ts";
import { VERSION } from "../../../../src/core/build-info.ts";
import { BUN, EVERYTHING, FILESYSTEM, MEMORY, server, testContext } from "./peers.ts";

type CallResult = { content: { type: string; text?: string }[]; isError?: boolean };
const text = (r: unknown) => (r as CallResult).content.map((c) => c.text ?? "").join("");

let dir = "";
beforeAll(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), "lemon-mcp-stdio-")));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("server-everything over stdio", () => {
  let conn: ServerConnection;
  const notes: string[] = [];
  const project = () => join(dir, "project dir é");

  beforeAll(async () => {
    await Bun.write(join(project(), ".keep"), "");
    const ctx = testContext({
      LEMON_TEST_SECRET: "s3cret",
      COPIED_VAR: "copied",
      SHELL: "() { evil; }",
      LANG: "C.UTF-8",
    });
    const entry = {
      command: "bun",
      args: [EVERYTHING, "stdio"],
      env_vars: ["COPIED_VAR", "NOT_SET_ANYWHERE"],
      env: { EXPLICIT: "yes", LANG: "en_US.UTF-8" },
    };
    conn = await connectServer(server("stdio", entry, "everything"), { ctx, cwd: project(), timeoutMs: 20_000 });
    conn.onNotification((m) => notes.push(m));
  }, 30_000);
  afterAll(async () => {
    await conn?.close();
  });

  test("handshake: server info, negotiated version, capabilities", () => {
    expect(conn.serverInfo).toEqual({ name: "mcp-servers/everything", version: "2.0.0" });
    expect(conn.protocolVersion).toBe("2025-11-25");
    expect(conn.capabilities).toEqual({ tools: true, resources: true, prompts: true });
  });

  test("tools list without sampling or elicitation tools; list_changed arrives", async () => {
    const { items, truncated } = await conn.list("tools");
    const names = (items as { name: string }[]).map((t) => t.name);
    expect(truncated).toBe(false);
    expect(names).toContain("echo");
    expect(names).toContain("get-roots-list");
    expect(names).not.toContain("trigger-elicitation-request");
    expect(names).not.toContain("trigger-sampling-request");
    expect(notes).toContain("notifications/tools/list_changed");
  });

  test("resources (paginated) and prompts", async () => {
    const resources = await conn.list("resources");
    expect(resources.items.length).toBeGreaterThan(0);
    const prompts = await conn.list("prompts");
    expect((prompts.items as { name: string }[]).map((p) => p.name)).toContain("args-prompt");
  });

  test("client info is lemon's and roots/list answers the project's file URL", async () => {
    const r = text(await conn.request("tools/call", { name: "get-roots-list", arguments: {} }, { timeoutMs: 5_000 }));
    expect(r).toContain(pathToFileURL(project()).href);
    expect(r).toContain("project%20dir%20%C3%A9");
    expect(VERSION).toMatch(/^\d+\.\d+\.\d+/);
  });

  test("a call, a 2 MiB echo and progress that reaches the callback", async () => {
    expect(
      text(await conn.request("tools/call", { name: "echo", arguments: { message: "hi" } }, { timeoutMs: 5_000 })),
    ).toBe("Echo: hi");
    const big = "y".repeat(2 * 1024 * 1024);
    const r = text(
      await conn.request("tools/call", { name: "echo", arguments: { message: big } }, { timeoutMs: 20_000 }),
    );
    expect(r.length).toBe(big.length + "Echo: ".length);
    let progress = 0;
    const args = { duration: 1, steps: 3 };
    const done = await conn.request(
      "tools/call",
      { name: "trigger-long-running-operation", arguments: args },
      { timeoutMs: 10_000, onProgress: () => progress++ },
    );
    expect(text(done)).toContain("completed");
    expect(progress).toBeGreaterThanOrEqual(2);
  });

  test("timeouts and aborts are LemonErrors; the connection survives them", async () => {
    const slow = { name: "trigger-long-running-operation", arguments: { duration: 3, steps: 3 } };
    const err = await conn.request("tools/call", slow, { timeoutMs: 200 }).catch((e) => e);
    expect(LemonError.is(err) && err.code).toBe("TIMEOUT");
    expect((err as Error).message).toBe("MCP request timed out after 200 ms");
    const ac = new AbortController();
    const pending = conn.request("tools/call", slow, { timeoutMs: 10_000, signal: ac.signal });
    ac.abort();
    const aborted = await pending.catch((e) => e);
    expect(LemonError.is(aborted) && aborted.message).toBe("request aborted");
    expect(
      text(await conn.request("tools/call", { name: "echo", arguments: { message: "still" } }, { timeoutMs: 5_000 })),
    ).toBe("Echo: still");
  });

  test("a JSON-RPC error answer is an OPERATION_FAILED with the remote code", async () => {
    const err = await conn.request("no/such/method", {}, { timeoutMs: 5_000 }).catch((e) => e);
    expect(LemonError.is(err) && err.code).toBe("OPERATION_FAILED");
    expect((err as LemonError).details).toEqual({ rpc_code: -32601 });
  });

  test("child env: safe set, env_vars when set, env wins, nothing else, no () values", async () => {
    const env = JSON.parse(
      text(await conn.request("tools/call", { name: "get-env", arguments: {} }, { timeoutMs: 5_000 })),
    );
    expect(env.COPIED_VAR).toBe("copied");
    expect(env.EXPLICIT).toBe("yes");
    expect(env.LANG).toBe("en_US.UTF-8");
    expect(env.PATH).toBe(process.env.PATH);
    expect(env.LEMON_TEST_SECRET).toBeUndefined();
    expect(env.NOT_SET_ANYWHERE).toBeUndefined();
    expect(env.SHELL).toBeUndefined();
  });

  test("stderr and log notifications land in the ring", async () => {
    await conn.request("logging/setLevel", { level: "debug" }, { timeoutMs: 5_000 });
    expect(conn.stderrTail(64 * 1024)).toContain("Starting default (STDIO) server");
    expect(conn.stderrTail(5).length).toBeLessThanOrEqual(5);
  });
});

describe("filesystem and memory over stdio", () => {
  test("filesystem with no directories adopts the client's root (the project)", async () => {
    const project = join(dir, "fs-project");
    await Bun.write(join(project, "note.txt"), "hello from the project\n");
    const conn = await connectServer(server("stdio", { command: BUN, args: [FILESYSTEM] }), {
      ctx: testContext(),
      cwd: project,
      timeoutMs: 20_000,
    });
    try {
      // The server asks roots/list after initialized; a read outside every root is an isError result.
      let r: unknown;
      for (let i = 0; i < 50; i++) {
        r = await conn.request("tools/call", { name: "list_allowed_directories", arguments: {} }, { timeoutMs: 5_000 });
        if (text(r).includes(project)) break;
        await Bun.sleep(100);
      }
      expect(text(r)).toContain(project);
      const read = await conn.request(
        "tools/call",
        { name: "read_text_file", arguments: { path: join(project, "note.txt") } },
        { timeoutMs: 5_000 },
      );
      expect(text(read)).toBe("hello from the project\n");
      const outside = (await conn.request(
        "tools/call",
        { name: "read_text_file", arguments: { path: "/etc/hostname" } },
        { timeoutMs: 5_000 },
      )) as CallResult;
      expect(outside.isError).toBe(true);
    } finally {
      await conn.close();
    }
  }, 30_000);

  test("memory writes its knowledge graph where env says", async () => {
    const file = join(dir, "memory.jsonl");
    const conn = await connectServer(
      server("stdio", { command: BUN, args: [MEMORY], env: { MEMORY_FILE_PATH: file } }),
      {
        ctx: testContext(),
        cwd: dir,
        timeoutMs: 20_000,
      },
    );
    try {
      const entities = [{ name: "lemon", entityType: "project", observations: ["speaks MCP"] }];
      await conn.request("tools/call", { name: "create_entities", arguments: { entities } }, { timeoutMs: 5_000 });
      expect(await readFile(file, "utf8")).toContain('"name":"lemon"');
    } finally {
      await conn.close();
    }
  }, 30_000);
});
