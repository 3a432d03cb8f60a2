// A hostile stdio server (mcp.md §5.1, §5.4, §6.2, §9, §13): its error answers are its own, not
// the SDK's disconnect or timeout; an answer too deep to parse fails its call at once; serverInfo
// and descriptions arrive as one clean, short line; a log flood stays in the worker.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connectServer, type ServerConnection } from "../../../../src/core/mcp/client/connect.ts";
import { TextRing } from "../../../../src/core/mcp/client/transport/ring.ts";
import type { EffectiveServer } from "../../../../src/core/mcp/effective.ts";
import { BUN, REPO, server, testContext, failure } from "./peers.ts";

const HOSTILE = join(REPO, "tests/fixtures/mcp-servers/hostile.ts");
let dir = "";
beforeAll(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), "lemon-mcp-hostile-")));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const hostile = (mode: string) => server("stdio", { command: BUN, args: [HOSTILE, mode] }, mode);
const opts = (extra: { ring?: TextRing; timeoutMs?: number } = {}) => ({
  ctx: testContext(),
  cwd: dir,
  timeoutMs: 10_000,
  ...extra,
});

async function withConn<T>(mode: string, f: (c: ServerConnection) => Promise<T>): Promise<T> {
  const c = await connectServer(hostile(mode), opts());
  try {
    return await f(c);
  } finally {
    await c.close();
  }
}

const call = (c: ServerConnection, args: Record<string, unknown>, timeoutMs = 60_000) =>
  c.request("tools/call", { name: "echo", arguments: args }, { timeoutMs });

describe("error answers of the server are the server's", () => {
  test("-32000 and -32001 are server errors, not a disconnect or a timeout", async () => {
    await withConn("ok", async (c) => {
      expect(await failure(call(c, { code: -32000 }))).toEqual({
        code: "OPERATION_FAILED",
        message: "MCP server error -32000: plain failure",
      });
      expect(await failure(call(c, { code: -32001 }))).toEqual({
        code: "OPERATION_FAILED",
        message: "MCP server error -32001: plain failure",
      });
      expect((await failure(call(c, { code: -32603 }))).message).toBe("MCP server error -32603: plain failure");
      // The connection is still good afterwards.
      expect(await call(c, {})).toMatchObject({ content: [{ type: "text", text: "done" }] });
    });
  }, 30_000);

  test("an answer nested too deeply to parse fails its call with a protocol error, not the timeout", async () => {
    await withConn("ok", async (c) => {
      expect(await failure(call(c, { deep: 100_000 }, 120_000))).toEqual({
        code: "OPERATION_FAILED",
        message: "protocol error",
      });
      // Deeper still (~6 MB): the parser itself gives up; the id is found by a flat scan.
      expect(await failure(call(c, { deep: 1_000_000 }, 120_000))).toEqual({
        code: "OPERATION_FAILED",
        message: "protocol error",
      });
      expect(await call(c, { deep: 1_000 })).toHaveProperty("structuredContent");
      expect(await call(c, { deep: 10 })).toMatchObject({ structuredContent: { a: {} } });
    });
  }, 30_000);
});

describe("remote text is one clean, short line", () => {
  test("serverInfo: terminal sequences, bidi and newlines removed", async () => {
    await withConn("ansiinfo", async (c) => {
      expect(c.serverInfo).toEqual({ name: "srvRED", version: "1 2" });
    });
  }, 30_000);

  test("serverInfo: at most 256 characters", async () => {
    await withConn("hugeinfo", async (c) => {
      expect(c.serverInfo?.name.length).toBeLessThanOrEqual(256);
      expect(c.serverInfo?.name.startsWith("nnnn")).toBe(true);
    });
  }, 30_000);

  test("tool descriptions lose CR, LF, TAB, ESC sequences and bidi", async () => {
    const { publish } = await import("../../../../src/core/mcp/client/inventory.ts");
    await withConn("desc", async (c) => {
      const listing = await c.list("tools");
      const none = { items: [], truncated: false };
      const s = {
        name: "desc",
        named: true,
        source: "lemon:global",
        type: "stdio" as const,
        enabled: true,
        disabled_by: null,
        approval: "never" as const,
        shadowed: [],
        warnings: [],
        server: {
          name: "desc",
          source: "lemon:global",
          index: 0,
          entry: {},
          transport: "stdio" as const,
          vars: "lemon" as const,
          imported: false,
        },
      };
      const inv = publish(s as EffectiveServer, c.capabilities, listing, none, none);
      expect(inv.tools.find((t) => t.raw === "echo")?.description).toBe("first second third red");
    });
  }, 30_000);
});

describe("a flood of log notifications", () => {
  test("stays in the worker: the call completes, few posts cross, the ring stays at 64 KiB", async () => {
    const { startStdio } = await import("../../../../src/core/mcp/client/transport/stdio.ts");
    const { openSession } = await import("../../../../src/core/mcp/client/transport/session.ts");
    const s = hostile("ok");
    const o = opts();
    const started = startStdio(s, o);
    const c = await openSession(s, o, started);
    try {
      const before = process.memoryUsage().rss;
      const n = 200_000;
      expect(await call(c, { flood: n }, 240_000)).toMatchObject({ content: [{ type: "text", text: "done" }] });
      // ~60 MB of log lines went by; the main thread got a handful of stderr batches.
      expect(started.transport.posts).toBeLessThan(n / 100);
      // stderr batches post every 100 ms and flush when the child exits: read after the close.
      await c.close();
      const tail = c.stderrTail(1 << 20);
      expect(Buffer.byteLength(tail)).toBeLessThanOrEqual(64 * 1024);
      expect(tail).toContain("[log info] flood: xxxx");
      // Beyond 100 lines per 100 ms the worker counts instead of parsing; the count is kept.
      const dropped = [...tail.matchAll(/\[lemon\] (\d+) log notifications dropped/g)].map((m) => Number(m[1]));
      expect(dropped.length).toBeGreaterThan(0);
      expect(process.memoryUsage().rss - before).toBeLessThan(200 * 1024 * 1024);
    } finally {
      await c.close();
    }
  }, 240_000);
});

describe("stderr when the connection fails", () => {
  test("a handshake that hangs or a server that exits leaves its stderr in the caller's ring", async () => {
    const hang = new TextRing();
    expect((await failure(connectServer(hostile("stderr-hang"), opts({ ring: hang, timeoutMs: 800 })))).message).toBe(
      "handshake timed out",
    );
    expect(hang.tail()).toContain("hostile: stuck before the handshake");
    const exit = new TextRing();
    expect((await failure(connectServer(hostile("stderr-exit"), opts({ ring: exit })))).code).toBe("UNAVAILABLE");
    expect(exit.tail()).toContain("hostile: fatal config error");
  }, 30_000);
});
