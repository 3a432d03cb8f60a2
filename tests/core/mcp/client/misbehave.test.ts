// stdio servers that misbehave (mcp.md §5.1, §8, §13): each failure is a LemonError or a close
// reason from the fixed set, and a server that ignores everything is still reaped with its group.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtemp, readFile, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connectServer, type CloseReason } from "../../../../src/core/mcp/client/connect.ts";
import { BUN, MISBEHAVE, server, testContext, failure } from "./peers.ts";

let dir = "";
beforeAll(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), "lemon-mcp-bad-")));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const bad = (mode: string, extra: string[] = [], env: Record<string, string> = {}) =>
  server("stdio", { command: BUN, args: [MISBEHAVE, mode, ...extra], env }, mode);

const opts = (timeoutMs = 10_000) => ({ ctx: testContext(), cwd: dir, timeoutMs });
const call = { name: "ping", arguments: {} };

describe("connect failures carry a fixed reason and nothing of the command", () => {
  test("a command that is on no PATH", async () => {
    const s = server("stdio", { command: "lemon-no-such-server-xyz", args: ["--token", "hunter2"] });
    expect(await failure(connectServer(s, opts()))).toEqual({
      code: "UNAVAILABLE",
      message: "spawn failed: command not found",
    });
  });

  test("a relative path that does not exist", async () => {
    const s = server("stdio", { command: "./bin/nothing-here" });
    expect((await failure(connectServer(s, opts()))).message).toBe("spawn failed: command not found");
  });

  test("a cwd that does not exist is a spawn failure", async () => {
    const s = server("stdio", { command: BUN, args: [MISBEHAVE, "banner"], cwd: join(dir, "missing") });
    expect((await failure(connectServer(s, opts()))).message).toBe("spawn failed");
  });

  test("a server that exits at once", async () => {
    expect(await failure(connectServer(bad("crash-on-start"), opts()))).toEqual({
      code: "UNAVAILABLE",
      message: "connection closed",
    });
  });

  test("garbage on stdout never completes the handshake", async () => {
    expect(await failure(connectServer(bad("garbage"), opts(600)))).toEqual({
      code: "TIMEOUT",
      message: "handshake timed out",
    });
  });

  test("a hung server times out and the shutdown ladder kills its whole group", async () => {
    const pidFile = join(dir, "hang.pid");
    const f = await failure(connectServer(bad("hang", [], { HANG_PID_FILE: pidFile }), opts(600)));
    expect(f.message).toBe("handshake timed out");
    const pid = Number(await readFile(pidFile, "utf8"));
    expect(pid).toBeGreaterThan(0);
    let alive = true;
    for (let i = 0; i < 50 && alive; i++) {
      try {
        process.kill(pid, 0);
        await Bun.sleep(100);
      } catch {
        alive = false;
      }
    }
    expect(alive).toBe(false);
  }, 20_000);
});

describe("a working connection that then fails", () => {
  test("handshake details: lemon's client info, roots only, elicitation refused with -32601", async () => {
    const conn = await connectServer(bad("banner"), opts());
    try {
      expect(conn.serverInfo).toEqual({ name: "misbehave", version: "0.0.1" });
      expect(conn.capabilities).toEqual({ tools: true, resources: false, prompts: false });
      const r = (await conn.request("tools/call", { name: "probe", arguments: {} }, { timeoutMs: 5_000 })) as {
        content: { text: string }[];
      };
      const probe = JSON.parse(r.content[0]!.text);
      expect(probe.init.clientInfo.name).toBe("lemon");
      expect(probe.init.capabilities).toEqual({ roots: { listChanged: false } });
      expect(probe.elicitation.error.code).toBe(-32601);
      expect(probe.roots.result.roots).toEqual([{ uri: `file://${dir}`, name: dir.split("/").pop() }]);
    } finally {
      await conn.close();
    }
  });

  test("a crash after N calls fails the in-flight call and reports connection closed once", async () => {
    const conn = await connectServer(bad("crash-after", ["2"]), opts());
    const reasons: CloseReason[] = [];
    conn.onClose((r) => reasons.push(r));
    await conn.request("tools/call", call, { timeoutMs: 5_000 });
    await conn.request("tools/call", call, { timeoutMs: 5_000 });
    expect(await failure(conn.request("tools/call", call, { timeoutMs: 5_000 }))).toEqual({
      code: "OPERATION_FAILED",
      message: "MCP server disconnected during the call",
    });
    for (let i = 0; i < 50 && reasons.length === 0; i++) await Bun.sleep(20);
    expect(reasons).toEqual(["connection closed"]);
    expect((await failure(conn.request("tools/call", call, { timeoutMs: 5_000 }))).message).toBe(
      "MCP server disconnected during the call",
    );
    await conn.close();
    expect(reasons).toEqual(["connection closed"]);
  });

  test("a 20 MiB line closes the connection with the 8 MiB reason", async () => {
    const conn = await connectServer(bad("big"), opts());
    const reasons: CloseReason[] = [];
    conn.onClose((r) => reasons.push(r));
    expect((await failure(conn.request("tools/call", call, { timeoutMs: 10_000 }))).message).toBe(
      "MCP server disconnected during the call",
    );
    for (let i = 0; i < 100 && reasons.length === 0; i++) await Bun.sleep(20);
    expect(reasons).toEqual(["message exceeds 8 MiB limit"]);
    await conn.close();
  }, 20_000);

  test("close() of a healthy server reports nothing to onClose", async () => {
    const conn = await connectServer(bad("banner"), opts());
    const reasons: CloseReason[] = [];
    conn.onClose((r) => reasons.push(r));
    await conn.close();
    expect(reasons).toEqual([]);
  });
});
