// A stdio line over the message bound (issue 16 adversarial F5): the SDK's ReadBuffer used to
// close the transport, so the server exited 0 and never answered again. Now the line is dropped
// as it streams past (never held whole), answered with a JSON-RPC error, and the session goes on;
// input that fails ends the server as a failure. HTTP keeps its 413 at the default 4 MiB bound.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { PassThrough, Writable } from "node:stream";
import { createLemon, type Lemon } from "../../../../src/core/index.ts";
import { serveSkills } from "../../../../src/core/mcp/index.ts";
import { frameLines, type Oversized } from "../../../../src/core/mcp/serve/stdio-lines.ts";
import { sandbox, type Sandbox } from "../../../support/sandbox.ts";
import { childEnv, lemonCmd } from "../../../cli/mcp-serve-support.ts";

let box: Sandbox;
let lemon: Lemon;

beforeAll(async () => {
  box = await sandbox();
  box.env.LEMON_SNAPSHOT_WORKER = "never";
  await box.skill(`${box.agentDir}/skill`, "k8s-rollout", {
    name: "k8s-rollout",
    description: "Use this skill to roll out kubernetes deployments safely.",
  });
  lemon = createLemon({ cwd: box.project, env: box.env, curator: false });
});

afterAll(async () => {
  await lemon?.close();
  await box?.[Symbol.asyncDispose]();
});

const INIT = {
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "x", version: "1" } },
};
const line = (m: unknown) => `${JSON.stringify(m)}\n`;
/** A find_skills call whose id comes last, as the SDK's client serialises it. */
const bigCall = (id: unknown, chars: number) =>
  `{"method":"tools/call","params":{"name":"find_skills","arguments":{"query":"${'deploy {k8s} \\"quoted\\" '.repeat(Math.ceil(chars / 24))}"}},"jsonrpc":"2.0"${id === undefined ? "" : `,"id":${JSON.stringify(id)}`}}\n`;

/** Every line an output stream received, parsed. */
function collector() {
  const chunks: Buffer[] = [];
  const out = new Writable({
    write(chunk: Buffer, _enc, cb) {
      chunks.push(chunk);
      cb();
    },
  });
  const messages = () =>
    Buffer.concat(chunks)
      .toString("utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { id?: unknown; result?: unknown; error?: { code: number; message: string } });
  return { out, messages };
}

async function until<T>(f: () => T | undefined): Promise<T> {
  for (;;) {
    const v = f();
    if (v !== undefined) return v;
    await Bun.sleep(5);
  }
}

describe("frameLines", () => {
  test("a line over the bound is dropped in constant memory and reported with its id; others pass whole", async () => {
    const input = new PassThrough();
    const seen: Oversized[] = [];
    const framed = frameLines(input, 1024, (o) => seen.push(o));
    const passed: string[] = [];
    framed.lines.on("data", (d: Buffer) => passed.push(d.toString("utf8")));
    framed.start();
    const big = bigCall(7, 20_000);
    input.write(`${line({ jsonrpc: "2.0", id: 1, method: "ping" })}${big.slice(0, 300)}`);
    let most = 0;
    for (let i = 300; i < big.length; i += 97) {
      input.write(big.slice(i, i + 97));
      most = Math.max(most, framed.held());
    }
    input.write(line({ jsonrpc: "2.0", id: 2, method: "ping" }));
    await until(() => (passed.join("").split("\n").length > 2 ? true : undefined));
    expect(most).toBeLessThanOrEqual(1024);
    expect(seen).toEqual([{ id: 7, request: true, bytes: big.length - 1 }]);
    expect(passed.join("")).toBe(
      `${line({ jsonrpc: "2.0", id: 1, method: "ping" })}${line({ jsonrpc: "2.0", id: 2, method: "ping" })}`,
    );
    framed.stop();
  });

  test("the id is read at the top level only: nested ids, ids in strings, answers and batches", () => {
    const cases: [string, Oversized["id"], boolean][] = [
      [`{"jsonrpc":"2.0","id":"abc","method":"x","params":{"pad":"${"y".repeat(3000)}"}}`, "abc", true],
      [`{"method":"x","params":{"id":5,"pad":"${"y".repeat(3000)}"}}`, null, true],
      [`{"method":"x","params":{"q":"\\"id\\":9 } {","pad":"${"y".repeat(3000)}"},"id":4}`, 4, true],
      [`{"jsonrpc":"2.0","id":3,"result":{"pad":"${"y".repeat(3000)}"}}`, 3, false],
      [`[{"jsonrpc":"2.0","id":1,"method":"x","params":{"pad":"${"y".repeat(3000)}"}}]`, null, false],
      [`{"id":{"x":1},"method":"x","pad":"${"y".repeat(3000)}"}`, null, true],
      [`not json ${"y".repeat(3000)}`, null, false],
    ];
    for (const [text, id, request] of cases) {
      const input = new PassThrough();
      const seen: Oversized[] = [];
      const framed = frameLines(input, 1024, (o) => seen.push(o));
      framed.start();
      input.emit("data", Buffer.from(`${text}\r\n`));
      expect([text.slice(0, 40), seen]).toEqual([text.slice(0, 40), [{ id, request, bytes: text.length + 1 }]]);
      framed.stop();
    }
  });
});

describe("stdio serve", () => {
  test("an oversized request gets an error answer and later requests are still served", async () => {
    const stdin = new PassThrough();
    const sink = collector();
    const logs: string[] = [];
    const server = await serveSkills(lemon, {
      transport: "stdio",
      stdin,
      stdout: sink.out,
      maxMessageBytes: 64 * 1024,
      log: (l) => logs.push(l),
    });
    stdin.write(line(INIT) + line({ jsonrpc: "2.0", method: "notifications/initialized" }));
    stdin.write(bigCall(7, 200_000));
    stdin.write(bigCall(undefined, 100_000));
    stdin.write(
      line({
        jsonrpc: "2.0",
        id: 8,
        method: "tools/call",
        params: { name: "find_skills", arguments: { query: "roll out kubernetes" } },
      }),
    );
    const byId = (id: unknown) => sink.messages().find((m) => m.id === id);
    const eight = await until(() => byId(8));
    expect(JSON.stringify(eight.result)).toContain("k8s-rollout");
    expect(byId(7)?.error).toMatchObject({ code: -32600 });
    expect(byId(7)?.error?.message).toContain("65536");
    expect(byId(null)?.error).toMatchObject({ code: -32700 });
    expect(logs.filter((l) => l.includes("dropped a message")).length).toBe(2);
    stdin.end();
    await server.closed;
    expect(server.failure).toBeNull();
  });

  test("input that fails ends the server as a failure", async () => {
    const stdin = new PassThrough();
    const sink = collector();
    const server = await serveSkills(lemon, { transport: "stdio", stdin, stdout: sink.out, log: () => {} });
    stdin.write(line(INIT));
    await until(() => sink.messages().find((m) => m.id === 0));
    stdin.destroy(new Error("EIO: i/o error, read"));
    await server.closed;
    expect(server.failure).toContain("EIO");
  });

  test("`lemon mcp serve`: a line over the default 8 MiB is answered, the next request too, and EOF exits 0", async () => {
    const proc = Bun.spawn([...lemonCmd(), "mcp", "serve"], {
      cwd: box.project,
      env: childEnv(box),
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe",
    });
    proc.stdin.write(line(INIT) + line({ jsonrpc: "2.0", method: "notifications/initialized" }));
    proc.stdin.write(bigCall(2, 8.5 * 1024 * 1024));
    proc.stdin.write(line({ jsonrpc: "2.0", id: 3, method: "tools/list" }));
    await proc.stdin.end();
    const [out, err, code] = await Promise.all([
      new Response(proc.stdout).text(),
      new Response(proc.stderr).text(),
      proc.exited,
    ]);
    const msgs = out
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { id: number; error?: { code: number }; result?: { tools?: unknown[] } });
    expect(msgs.find((m) => m.id === 2)?.error?.code).toBe(-32600);
    expect(msgs.find((m) => m.id === 3)?.result?.tools?.length).toBeGreaterThan(0);
    expect(err).toContain("dropped a message");
    expect(code).toBe(0);
  });
});

describe("http", () => {
  test("a body over the default 4 MiB is 413", async () => {
    const server = await serveSkills(lemon, { transport: "http", port: 0, token: "t0123456789abcdef" });
    try {
      const body = JSON.stringify({ ...INIT, pad: "x".repeat(4 * 1024 * 1024) });
      const r = await fetch(server.url!, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          authorization: "Bearer t0123456789abcdef",
        },
        body,
      });
      expect(r.status).toBe(413);
      await r.body?.cancel();
    } finally {
      await server.close();
    }
  });
});
