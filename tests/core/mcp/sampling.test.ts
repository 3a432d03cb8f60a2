// Sampling (mcp.md §10) against the real server-everything over stdio: its
// `trigger-sampling-request` tool exists only when the client advertises `sampling`, and asks the
// client for `sampling/createMessage`. One lemon instance with a delegate runs four servers (model,
// reviewed, deny, none); a second one without a delegate shows the capability is never offered.
// The policy's pure parts (model choice from hints, summary, deny) are tested directly too.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { resolve } from "node:path";
import { createLemon, type Lemon, type ToolDefinition } from "../../../src/core/index.ts";
import type { ApprovalRequest } from "../../../src/core/skills/install/approval.ts";
import {
  answerSampling,
  chooseModel,
  samplingMode,
  summarize,
  type SamplingRequest,
  type SamplingSummary,
} from "../../../src/core/mcp/client/sampling.ts";
import { sandbox, type Sandbox } from "../../support/sandbox.ts";

const EVERYTHING = resolve(
  import.meta.dir,
  "../../../node_modules/@modelcontextprotocol/server-everything/dist/index.js",
);
const TRIGGER = "trigger-sampling-request";

const server = (name: string, sampling?: Record<string, unknown>) => ({
  name,
  command: process.execPath,
  args: [EVERYTHING, "stdio"],
  ...(sampling !== undefined ? { sampling } : {}),
});

let box: Sandbox;
let withDelegate: Lemon;
let without: Lemon;
const delegated: { params: SamplingRequest; summary: SamplingSummary }[] = [];
const approvals: ApprovalRequest[] = [];
let approveSampling = true;

beforeAll(async () => {
  box = await sandbox();
  withDelegate = createLemon({
    cwd: box.project,
    env: box.env,
    curator: false,
    readConfigFile: false,
    config: {
      mcp: {
        servers: [
          server("model", { mode: "model", max_tokens: 50, allowed_models: ["m-small", "m-big"] }),
          server("reviewed", { mode: "reviewed_model" }),
          server("deny", { mode: "deny" }),
          server("none"),
        ],
      },
    },
    approve: async (r) => {
      if (r.kind !== "mcp_sampling") return false;
      approvals.push(r);
      return approveSampling;
    },
    sampling: async (params, summary) => {
      delegated.push({ params, summary });
      return {
        role: "assistant",
        content: { type: "text", text: "canned answer" },
        model: params.model ?? "host-model",
      };
    },
  });
  without = createLemon({
    cwd: box.project,
    env: box.env,
    curator: false,
    readConfigFile: false,
    config: { mcp: { servers: [server("model", { mode: "model" }), server("none")] } },
    approve: async () => true,
  });
});

afterAll(async () => {
  await withDelegate?.close();
  await without?.close();
  await box[Symbol.asyncDispose]();
});

/** The server's tools once its post-initialize registrations (list_changed) are in. */
async function toolsOf(lemon: Lemon, name: string, expectTrigger: boolean): Promise<ToolDefinition[]> {
  const end = Date.now() + 15_000;
  for (;;) {
    const all = await lemon.mcp.getTools();
    const mine = all.filter((t) => t.name.startsWith(`mcp_${name}_`));
    const has = mine.some((t) => t.label === `MCP ${TRIGGER}`);
    // Conditional tools arrive with list_changed: wait until the listing has settled past the base set.
    if (mine.length > 12 && has === expectTrigger) return mine;
    if (Date.now() > end) return mine;
    await Bun.sleep(50);
    await lemon.mcp.refresh(name);
  }
}

const trigger = (tools: ToolDefinition[]) => tools.find((t) => t.label === `MCP ${TRIGGER}`);
const text = (r: { content: { type: string; text?: string }[] }) => r.content.map((c) => c.text ?? "").join("\n");

describe("sampling through server-everything (stdio)", () => {
  test("advertised only with a delegate and a model mode: one more tool than without", async () => {
    const model = await toolsOf(withDelegate, "model", true);
    const none = await toolsOf(withDelegate, "none", false);
    const deny = await toolsOf(withDelegate, "deny", false);
    expect(trigger(model)).toBeDefined();
    expect(trigger(none)).toBeUndefined();
    expect(trigger(deny)).toBeUndefined();
    expect(model.length).toBe(none.length + 1);
    expect(deny.length).toBe(none.length);
  }, 60_000);

  test("allowed: the delegate gets the request with the chosen model and a redacted summary", async () => {
    delegated.length = 0;
    const t = trigger(await toolsOf(withDelegate, "model", true))!;
    const r = await withDelegate.mcp.callTool(t.name, { prompt: "say hi", maxTokens: 20 });
    expect(r.isError).toBe(false);
    expect(text(r)).toContain("canned answer");
    expect(text(r)).toContain('"model": "m-small"');
    expect(delegated).toHaveLength(1);
    const { params, summary } = delegated[0]!;
    expect(params).toMatchObject({ server: "model", model: "m-small", maxTokens: 20 });
    expect(JSON.stringify(params.messages)).toContain("say hi");
    expect(summary).toMatchObject({
      message_count: 1,
      roles: ["user"],
      content_kinds: { text: 1 },
      max_tokens: 20,
      model: "m-small",
    });
    expect(summary.request_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(summary.text_chars).toBeGreaterThan("say hi".length);
    expect(JSON.stringify(summary)).not.toContain("say hi");
    expect(approvals).toHaveLength(0);
  }, 60_000);

  test("maxTokens above max_tokens is refused with −1 before the delegate runs", async () => {
    delegated.length = 0;
    const t = trigger(await toolsOf(withDelegate, "model", true))!;
    const r = await withDelegate.mcp.callTool(t.name, { prompt: "long", maxTokens: 51 });
    expect(r.isError).toBe(true);
    expect(text(r)).toContain("-1");
    expect(text(r)).toContain("sampling request denied");
    expect(delegated).toHaveLength(0);
  }, 60_000);

  test("reviewed_model: approve sees only the summary; yes runs the delegate, no refuses", async () => {
    const t = trigger(await toolsOf(withDelegate, "reviewed", true))!;
    approvals.length = 0;
    delegated.length = 0;
    approveSampling = true;
    const ok = await withDelegate.mcp.callTool(t.name, { prompt: "secret prompt text", maxTokens: 30 });
    expect(ok.isError).toBe(false);
    expect(approvals).toHaveLength(1);
    expect(approvals[0]).toMatchObject({ kind: "mcp_sampling", server: "reviewed", summary: { max_tokens: 30 } });
    expect(JSON.stringify(approvals[0])).not.toContain("secret prompt text");
    expect(delegated).toHaveLength(1);
    // No allowed_models: the model is the host's choice.
    expect(delegated[0]!.params.model).toBeNull();

    approveSampling = false;
    delegated.length = 0;
    const no = await withDelegate.mcp.callTool(t.name, { prompt: "again", maxTokens: 30 });
    expect(no.isError).toBe(true);
    expect(text(no)).toContain("sampling request denied");
    expect(approvals).toHaveLength(2);
    expect(delegated).toHaveLength(0);
    approveSampling = true;
  }, 60_000);

  test("without a delegate: never advertised, same tools as an entry without sampling, status warns", async () => {
    const model = await toolsOf(without, "model", false);
    const none = await toolsOf(without, "none", false);
    expect(trigger(model)).toBeUndefined();
    expect(model.length).toBe(none.length);
    const st = await without.mcp.status();
    expect(st.servers.model?.warnings).toContain("sampling configured but no delegate");
    expect(st.servers.none?.warnings).not.toContain("sampling configured but no delegate");
    const withSt = await withDelegate.mcp.status();
    expect(withSt.servers.model?.warnings).not.toContain("sampling configured but no delegate");
  }, 60_000);
});

describe("sampling policy", () => {
  const params = {
    messages: [
      { role: "user", content: { type: "text", text: "hello" } },
      {
        role: "assistant",
        content: [
          { type: "text", text: "abc" },
          { type: "image", data: "AAAA", mimeType: "image/png" },
        ],
      },
    ],
    systemPrompt: "sys",
    maxTokens: 10,
    modelPreferences: { hints: [{ name: "nope" }, { name: "m-big" }] },
  };
  const host = (approve?: boolean) => ({
    delegate: async (p: SamplingRequest) => ({ content: { type: "text", text: "x" }, model: p.model ?? "h" }),
    ...(approve !== undefined ? { approve: async () => approve } : {}),
  });

  test("model: the first hint in allowed_models, else the first allowed, else the host's", () => {
    expect(chooseModel(params, ["m-small", "m-big"])).toBe("m-big");
    expect(chooseModel({ modelPreferences: { hints: [{ name: "zzz" }] } }, ["m-small", "m-big"])).toBe("m-small");
    expect(chooseModel({}, ["m-small"])).toBe("m-small");
    expect(chooseModel(params, undefined)).toBeNull();
  });

  test("summary: counts and a hash, no text", () => {
    const s = summarize(params, "m-big");
    expect(s).toMatchObject({
      message_count: 2,
      roles: ["user", "assistant"],
      content_kinds: { text: 2, image: 1 },
      // The hint names reach the delegate too.
      text_chars: "sys".length + "hello".length + "abc".length + "nope".length + "m-big".length,
      max_tokens: 10,
      model: "m-big",
    });
    // Canonical: key order does not change the hash.
    const reordered = Object.fromEntries(Object.entries(params).reverse());
    expect(summarize(reordered, "m-big").request_hash).toBe(s.request_hash);
  });

  test("summary: text_chars counts every text the delegate sees, nested kinds are counted", () => {
    const big = "x".repeat(1000);
    const s = summarize(
      {
        messages: [
          {
            role: "user",
            content: [
              { type: "tool_use", id: "1", name: "nm", input: { prompt: big } },
              { type: "tool_result", toolUseId: "1", content: [{ type: "text", text: big }] },
            ],
          },
        ],
        maxTokens: 5,
        stopSequences: [big],
        metadata: { p: big },
      },
      null,
    );
    expect(s.content_kinds).toEqual({ tool_use: 1, tool_result: 1, text: 1 });
    expect(s.text_chars).toBeGreaterThanOrEqual(4 * 1000);
    expect(JSON.stringify(s)).not.toContain(big);
  });

  test("project scope: mode model is reviewed; lemon config, global and env keep model", () => {
    const e = { sampling: { mode: "model" as const } };
    expect(samplingMode(e, "lemon:project")).toBe("reviewed_model");
    expect(samplingMode(e, "claude:project")).toBe("reviewed_model");
    for (const src of ["lemon:global", "lemon:config", "lemon:env", undefined])
      expect(samplingMode(e, src)).toBe("model");
    expect(samplingMode({ sampling: { mode: "deny" } }, "lemon:project")).toBe("deny");
  });

  test("modes: require_approval makes model reviewed; deny and no delegate refuse with −1", async () => {
    expect(samplingMode({})).toBeNull();
    expect(samplingMode({ sampling: { mode: "model", require_approval: true } })).toBe("reviewed_model");
    expect(samplingMode({ sampling: { mode: "deny", require_approval: true } })).toBe("deny");
    const deny = { code: -1, message: "sampling request denied" };
    await expect(answerSampling("s", { sampling: { mode: "deny" } }, host(), params)).rejects.toMatchObject(deny);
    await expect(answerSampling("s", { sampling: { mode: "model" } }, undefined, params)).rejects.toMatchObject(deny);
    await expect(
      answerSampling("s", { sampling: { mode: "reviewed_model" } }, host(), params), // no approver: denied
    ).rejects.toMatchObject(deny);
    await expect(
      answerSampling("s", { sampling: { mode: "model", max_tokens: 9 } }, host(), params),
    ).rejects.toMatchObject(deny);
    const ok = await answerSampling("s", { sampling: { mode: "model", allowed_models: ["m-big"] } }, host(), params);
    expect(ok).toEqual({ role: "assistant", content: { type: "text", text: "x" }, model: "m-big" });
  });

  test("a failing or malformed delegate is −32603 'sampling failed', its text never reaches the server", async () => {
    const bad = { delegate: async () => ({ content: "nope" }) as never };
    const boom = {
      delegate: async () => {
        throw new Error("host secret detail");
      },
    };
    const failed = { code: -32603, message: "sampling failed" };
    await expect(answerSampling("s", { sampling: { mode: "model" } }, bad, params)).rejects.toMatchObject(failed);
    await expect(answerSampling("s", { sampling: { mode: "model" } }, boom, params)).rejects.toMatchObject(failed);
  });
});
