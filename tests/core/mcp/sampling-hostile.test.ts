// Sampling (mcp.md §10) against a hostile stdio server (tests/fixtures/mcp-servers/sampler.ts) that
// sends raw `sampling/createMessage` requests: malformed and tool-enabled requests, maxTokens ≤ 0,
// `allowed_models: []`, bursts over the in-flight cap, cancellation, a server dying while a request
// waits for approval or runs, lemon closing, and a project-scope `mode: "model"` entry.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdir, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { createLemon, type Lemon } from "../../../src/core/index.ts";
import type { SamplingCallOptions, SamplingRequest } from "../../../src/core/mcp/client/sampling.ts";
import { sandbox, type Sandbox } from "../../support/sandbox.ts";

const SAMPLER = resolve(import.meta.dir, "../../fixtures/mcp-servers/sampler.ts");
const server = (name: string, sampling: Record<string, unknown>) => ({
  name,
  command: process.execPath,
  args: [SAMPLER],
  sampling,
});

const ok = { messages: [{ role: "user", content: { type: "text", text: "hi" } }], maxTokens: 10 };
const DENIED = { error: { code: -1, message: "sampling request denied" } };

let box: Sandbox;
let lemon: Lemon;
const approvals: unknown[] = [];
const delegated: { params: SamplingRequest; options?: SamplingCallOptions }[] = [];
/** When set, approve and the delegate wait on these gates (resolved by the test). */
let approveGate: Promise<boolean> | null = null;
let delegateGate: Promise<void> | null = null;
let onApprove: (() => void) | null = null;
let onDelegate: (() => void) | null = null;

function makeLemon(servers: unknown[], cwd?: string): Lemon {
  return createLemon({
    cwd: cwd ?? box.project,
    env: box.env,
    curator: false,
    readConfigFile: false,
    mcp: { trust: "trusted" },
    config: { mcp: { servers: servers as never } },
    approve: async (r) => {
      if (r.kind !== "mcp_sampling") return false;
      approvals.push(r);
      onApprove?.();
      return approveGate ? await approveGate : true;
    },
    sampling: (async (params: SamplingRequest, _summary: unknown, options?: SamplingCallOptions) => {
      delegated.push({ params, ...(options ? { options } : {}) });
      onDelegate?.();
      if (delegateGate) await delegateGate;
      return { content: { type: "text", text: "fine" }, model: "m" };
    }) as never,
  });
}

beforeAll(async () => {
  box = await sandbox();
  lemon = makeLemon([
    server("model", { mode: "model", max_tokens: 100 }),
    server("reviewed", { mode: "reviewed_model" }),
    server("nomodels", { mode: "model", allowed_models: [] }),
  ]);
});

afterAll(async () => {
  await lemon?.close();
  await box[Symbol.asyncDispose]();
});

function reset(): void {
  approvals.length = 0;
  delegated.length = 0;
  approveGate = delegateGate = null;
  onApprove = onDelegate = null;
}

async function call(l: Lemon, srv: string, tool: string, args: Record<string, unknown> = {}): Promise<unknown> {
  const tools = await l.mcp.getTools();
  const t = tools.find((x) => x.name.startsWith(`mcp_${srv}_${tool}_`));
  if (t === undefined) throw new Error(`no tool ${srv}/${tool}`);
  const r = await l.mcp.callTool(t.name, args);
  const body = r.content.map((c) => ("text" in c ? c.text : "")).join("");
  if (r.isError) throw new Error(body);
  return JSON.parse(body);
}

const fire = async (srv: string, params: unknown, more: Record<string, unknown> = {}) =>
  ((await call(lemon, srv, "fire", { params, ...more })) as { answers: unknown[] }).answers;

describe("malformed and out-of-policy requests answer −1 'sampling request denied'", () => {
  test("non-object, missing, schema-invalid params: −1 with no validation dump, nothing reaches the delegate", async () => {
    reset();
    const bad: unknown[] = [
      [1, 2],
      "x",
      null,
      "__none__",
      { messages: [{ role: "system", content: { type: "text", text: "x" } }], maxTokens: 5 },
      { messages: [{ role: "user", content: { type: "bogus" } }], maxTokens: 5 },
      { messages: [{ role: "user", content: { type: "text" } }], maxTokens: 5 },
      { ...ok, includeContext: "everything" },
      { ...ok, modelPreferences: { hints: [{ name: 7 }] } },
      { messages: ok.messages },
    ];
    for (const params of bad) expect(await fire("model", params, { wait_ms: 5_000 })).toEqual([DENIED]);
    expect(delegated).toHaveLength(0);
  }, 60_000);

  test("maxTokens must be a positive integer", async () => {
    reset();
    for (const maxTokens of [0, -5, 1.5, "10"]) expect(await fire("model", { ...ok, maxTokens })).toEqual([DENIED]);
    expect(await fire("model", { ...ok, maxTokens: 101 })).toEqual([DENIED]);
    expect(delegated).toHaveLength(0);
    expect(await fire("model", ok)).toEqual([
      { result: { role: "assistant", content: { type: "text", text: "fine" }, model: "m" } },
    ]);
  }, 60_000);

  test("tools / toolChoice are refused (lemon does not advertise sampling.tools)", async () => {
    reset();
    const tools = [{ name: "t", description: "d", inputSchema: { type: "object" } }];
    expect(await fire("model", { ...ok, tools })).toEqual([DENIED]);
    expect(await fire("model", { ...ok, toolChoice: { mode: "auto" } })).toEqual([DENIED]);
    const caps = (await call(lemon, "model", "caps")) as { sampling?: Record<string, unknown> };
    expect(caps.sampling).toEqual({});
    expect(delegated).toHaveLength(0);
  }, 60_000);

  test("deep nesting is refused, no stack overflow text reaches the server", async () => {
    reset();
    let deep: unknown = 1;
    for (let i = 0; i < 20_000; i++) deep = { a: deep };
    expect(await fire("model", { ...ok, metadata: deep })).toEqual([DENIED]);
    expect(delegated).toHaveLength(0);
  }, 60_000);

  test("allowed_models: [] allows no model", async () => {
    reset();
    expect(await fire("nomodels", ok)).toEqual([DENIED]);
    expect(delegated).toHaveLength(0);
  }, 60_000);

  test("at most 4 in flight per server: a burst of 6 gets 2 refusals at once", async () => {
    reset();
    let release = () => {};
    delegateGate = new Promise<void>((r) => {
      release = r;
    });
    let four = () => {};
    const fourIn = new Promise<void>((r) => {
      four = r;
    });
    onDelegate = () => {
      if (delegated.length === 4) four();
    };
    // The two over the cap are answered while the four still run: poll the server's inbox.
    const answered = async () => Object.keys((await call(lemon, "model", "answers")) as object).length;
    const before = await answered();
    const burst = fire("model", ok, { count: 6 });
    await fourIn;
    for (let i = 0; i < 400 && (await answered()) < before + 2; i++) await Bun.sleep(10);
    release();
    const answers = await burst;
    expect(answers.filter((a) => JSON.stringify(a) === JSON.stringify(DENIED))).toHaveLength(2);
    expect(answers.filter((a) => (a as { result?: unknown }).result !== undefined)).toHaveLength(4);
    expect(delegated).toHaveLength(4);
  }, 60_000);
});

describe("a cancelled request, a dead server, a closing lemon: no approval answer is acted on", () => {
  test("notifications/cancelled while approval is pending: the delegate never runs, the server gets no answer", async () => {
    reset();
    let answer = (_: boolean) => {};
    approveGate = new Promise<boolean>((r) => {
      answer = r;
    });
    const asked = new Promise<void>((r) => {
      onApprove = r;
    });
    const { id } = (await call(lemon, "reviewed", "send", { params: ok })) as { id: string };
    await asked;
    await call(lemon, "reviewed", "cancel");
    answer(true);
    // A later request round-trips after the cancelled one's handler finished.
    approveGate = null;
    expect(await fire("reviewed", ok)).toHaveLength(1);
    expect(delegated).toHaveLength(1);
    const seen = (await call(lemon, "reviewed", "answers")) as Record<string, unknown>;
    expect(seen[id]).toBeUndefined();
  }, 60_000);

  test("the server dies while approval is pending: the delegate never runs", async () => {
    reset();
    const l = makeLemon([server("dies", { mode: "reviewed_model" })]);
    try {
      let answer = (_: boolean) => {};
      approveGate = new Promise<boolean>((r) => {
        answer = r;
      });
      const asked = new Promise<void>((r) => {
        onApprove = r;
      });
      await call(l, "dies", "send", { params: ok });
      await asked;
      await call(l, "dies", "die").catch(() => {});
      for (let i = 0; i < 400 && (await l.mcp.status()).servers.dies?.state === "connected"; i++) await Bun.sleep(25);
      answer(true);
      await Bun.sleep(50);
      expect(delegated).toHaveLength(0);
    } finally {
      await l.close();
    }
  }, 60_000);

  test("the delegate gets a signal that aborts when its server dies", async () => {
    reset();
    const l = makeLemon([server("dies2", { mode: "model" })]);
    try {
      delegateGate = new Promise<void>(() => {});
      const running = new Promise<void>((r) => {
        onDelegate = r;
      });
      await call(l, "dies2", "send", { params: ok });
      await running;
      const signal = delegated[0]?.options?.signal;
      expect(signal).toBeDefined();
      expect(signal?.aborted).toBe(false);
      await call(l, "dies2", "die").catch(() => {});
      await new Promise<void>((r) => (signal?.aborted ? r() : signal?.addEventListener("abort", () => r())));
      expect(signal?.aborted).toBe(true);
    } finally {
      await l.close();
    }
  }, 60_000);

  test("a request that arrives while lemon closes is never approved nor delegated", async () => {
    reset();
    const l = makeLemon([server("closing", { mode: "reviewed_model" })]);
    await call(l, "closing", "arm_eof", { params: ok });
    await l.close();
    expect(approvals).toHaveLength(0);
    expect(delegated).toHaveLength(0);
  }, 60_000);
});

describe("project scope", () => {
  test("a project entry's mode: model is reviewed: every request asks approve", async () => {
    reset();
    const dir = join(box.root, "cloned");
    await mkdir(join(dir, ".lemon"), { recursive: true });
    await mkdir(join(dir, ".git"), { recursive: true });
    await writeFile(join(dir, ".lemon", "mcp.json"), JSON.stringify({ servers: [server("proj", { mode: "model" })] }));
    const l = makeLemon([], dir);
    try {
      approveGate = Promise.resolve(false);
      const answers = ((await call(l, "proj", "fire", { params: ok })) as { answers: unknown[] }).answers;
      expect(answers).toEqual([DENIED]);
      expect(approvals).toHaveLength(1);
      expect(delegated).toHaveLength(0);
      approveGate = null;
      const yes = ((await call(l, "proj", "fire", { params: ok })) as { answers: unknown[] }).answers;
      expect((yes[0] as { result?: unknown }).result).toBeDefined();
      expect(approvals).toHaveLength(2);
    } finally {
      await l.close();
    }
  }, 60_000);
});
