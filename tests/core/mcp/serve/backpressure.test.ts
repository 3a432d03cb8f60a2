// A stdio client that sends requests but does not read the answers (issue #17 F6): the server
// stops reading its requests while the unsent answers pass the bound, and goes on once they
// leave, so one client's backlog never grows without limit.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { PassThrough, Writable } from "node:stream";
import { createLemon, type Lemon } from "../../../../src/core/index.ts";
import { serveSkills } from "../../../../src/core/mcp/index.ts";
import { sandbox, type Sandbox } from "../../../support/sandbox.ts";

let box: Sandbox;
let lemon: Lemon;

beforeAll(async () => {
  box = await sandbox();
  box.env.LEMON_SNAPSHOT_WORKER = "never";
  for (let i = 0; i < 40; i++)
    await box.skill(`${box.agentDir}/skill`, `s${i}`, {
      name: `s${i}`,
      description: `Use this skill number ${i} for ${"padding ".repeat(100)}`,
    });
  lemon = createLemon({ cwd: box.project, env: box.env, curator: false });
});

afterAll(async () => {
  await lemon?.close();
  await box?.[Symbol.asyncDispose]();
});

/** A pipe end the test drains only when told to, as a client that stopped reading would. */
function stalledOut() {
  const chunks: Buffer[] = [];
  let release: (() => void) | null = null;
  let flowing = false;
  const out = new Writable({
    highWaterMark: 16 * 1024,
    write(chunk: Buffer, _enc, cb) {
      chunks.push(chunk);
      if (flowing) cb();
      else release = cb;
    },
  });
  return {
    out,
    text: () => Buffer.concat(chunks).toString("utf8"),
    flow() {
      flowing = true;
      const r = release;
      release = null;
      r?.();
    },
  };
}

describe("stdio backpressure", () => {
  test("requests stop being read while answers wait unsent, and are all answered once the client reads", async () => {
    const stdin = new PassThrough();
    const sink = stalledOut();
    const server = await serveSkills(lemon, { transport: "stdio", stdin, stdout: sink.out });
    const init = {
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "x", version: "1" } },
    };
    stdin.write(
      `${JSON.stringify(init)}\n${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`,
    );
    const N = 200;
    let accepted = 0;
    for (let i = 1; i <= N; i++) {
      stdin.write(
        `${JSON.stringify({ jsonrpc: "2.0", id: i, method: "prompts/get", params: { name: "skills_listing" } })}\n`,
      );
      accepted++;
      if (i % 20 === 0) await Bun.sleep(5);
    }
    // Unread answers beyond the bound: the server no longer takes requests off the pipe.
    while (!stdin.isPaused()) await Bun.sleep(5);
    expect(stdin.isPaused()).toBe(true);
    expect(sink.out.writableLength).toBeLessThan(4 * 1024 * 1024);
    sink.flow();
    const ids = () =>
      new Set(
        sink
          .text()
          .split("\n")
          .filter(Boolean)
          .map((l) => (JSON.parse(l) as { id: number }).id),
      );
    while (ids().size < N + 1) await Bun.sleep(10);
    expect(ids().size).toBe(accepted + 1);
    stdin.end();
    await server.closed;
  });
});
