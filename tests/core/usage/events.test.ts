// The event API (cli.md §9, skills.md §11): on/once/unsubscribe, isolated listeners, persisting
// subscribers before listeners, the built-in sidecar recorder, and the events core emits itself.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createContext } from "../../../src/core/context.ts";
import { createLemon, type PromptRenderEvent, type RefreshEvent } from "../../../src/core/index.ts";
import type { Diagnostic } from "../../../src/core/diagnostics.ts";
import {
  EventHub,
  sessionFields,
  type SkillLoadEvent,
  type SkillWriteEvent,
} from "../../../src/core/skills/usage/events.ts";
import { instanceEvents } from "../../../src/core/skills/usage/recorder.ts";
import { sandbox } from "../../support/sandbox.ts";

const TS = "2026-08-29T10:15:00Z";
const loadEvent = (over: Partial<SkillLoadEvent> = {}): SkillLoadEvent => ({
  ts: TS,
  key: "k",
  scope: "global",
  view: "full",
  result: "ok",
  chars: 3,
  duration_ms: 1,
  ...over,
});
const refreshEvent = (count: number): RefreshEvent => ({ ts: TS, scope: "global", count, duration_ms: 0 });

describe("EventHub", () => {
  test("on delivers until unsubscribed; once delivers one event; the same function twice is two subscriptions", () => {
    const hub = new EventHub();
    const seen: number[] = [];
    const listener = (e: RefreshEvent) => seen.push(e.count);
    const off = hub.on("skills.refresh", listener);
    const off2 = hub.on("skills.refresh", listener);
    hub.once("skills.refresh", (e) => seen.push(e.count * 100));
    hub.emit("skills.refresh", refreshEvent(1));
    off2();
    hub.emit("skills.refresh", refreshEvent(2));
    off();
    off();
    hub.emit("skills.refresh", refreshEvent(3));
    expect(seen).toEqual([1, 1, 100, 2]);
  });

  test("an unsubscribed once listener never runs", () => {
    const hub = new EventHub();
    let ran = false;
    const off = hub.once("skills.refresh", () => {
      ran = true;
    });
    off();
    hub.emit("skills.refresh", refreshEvent(1));
    expect(ran).toBe(false);
  });

  test("a throwing listener is logged and isolated: later listeners still run, emit returns", () => {
    const logged: string[] = [];
    const hub = new EventHub({ log: (e) => logged.push(`${e.level}: ${e.message}`) });
    const seen: number[] = [];
    hub.on("skills.refresh", () => {
      throw new Error("listener bug");
    });
    hub.on("skills.refresh", (e) => seen.push(e.count));
    expect(() => hub.emit("skills.refresh", refreshEvent(5))).not.toThrow();
    expect(seen).toEqual([5]);
    expect(logged).toEqual(["warn: event listener for skills.refresh threw: listener bug"]);
  });

  test("a listener subscribing or unsubscribing during delivery does not change that delivery", () => {
    const hub = new EventHub();
    const seen: string[] = [];
    let offB = () => {};
    hub.on("skills.refresh", () => {
      seen.push("a");
      offB();
      hub.on("skills.refresh", () => seen.push("late"));
    });
    offB = hub.on("skills.refresh", () => seen.push("b"));
    hub.emit("skills.refresh", refreshEvent(1));
    expect(seen).toEqual(["a", "b"]);
  });

  test("a listener that is not a function is refused", () => {
    const hub = new EventHub();
    expect(() => hub.on("skills.refresh", 5 as never)).toThrow(TypeError);
  });

  test("publish awaits persisting handlers before listeners; a failing one is a diagnostic, never a rejection", async () => {
    await using box = await sandbox();
    const ctx = createContext({ cwd: box.project, env: box.env });
    const hub = new EventHub();
    const order: string[] = [];
    hub.persist("skill.load", async () => {
      await Bun.sleep(5);
      order.push("persisted");
    });
    hub.persist("skill.load", async () => {
      throw new Error("disk full");
    });
    const diags: Diagnostic[] = [];
    hub.on("diagnostic", (d) => diags.push(d));
    hub.on("skill.load", () => order.push("listener"));
    await hub.publish("skill.load", loadEvent(), ctx);
    expect(order).toEqual(["persisted", "listener"]);
    expect(diags).toEqual([{ level: "warn", code: "usage_update_failed", message: "usage not recorded: disk full" }]);
  });

  test("wants says whether anything would receive an event", () => {
    const hub = new EventHub();
    expect(hub.wants("skill.prompt_render")).toBe(false);
    const off = hub.on("skill.prompt_render", () => {});
    expect(hub.wants("skill.prompt_render")).toBe(true);
    off();
    expect(hub.wants("skill.prompt_render")).toBe(false);
  });

  test("sessionFields snake-cases the tool-call context and keeps only strings", () => {
    expect(sessionFields({ toolCallId: "c", sessionKey: "s", runId: "r", agentId: "a" })).toEqual({
      tool_call_id: "c",
      session_key: "s",
      run_id: "r",
      agent_id: "a",
    });
    expect(sessionFields({ toolCallId: 5 as never })).toEqual({});
    expect(sessionFields(undefined)).toEqual({});
  });
});

describe("the built-in sidecar recorder", () => {
  test("skill.load and skill.write update the sidecar of the event's scope before listeners run", async () => {
    await using box = await sandbox();
    const ctx = createContext({ cwd: box.project, env: box.env });
    const hub = instanceEvents(ctx, { eventLog: async () => false });
    const file = join(box.agentDir, "skills.usage.json");
    let countSeen: number | null = null;
    hub.on("skill.load", () => {
      countSeen = JSON.parse(readFileSync(file, "utf8")).skills.k.load_count;
    });
    await hub.publish("skill.load", loadEvent(), ctx);
    expect(countSeen === null ? null : Number(countSeen)).toBe(1);
    const write = { ts: TS, action: "create", name: "n", scope: "project" as const, result: "ok" as const };
    await hub.publish("skill.write", { ...write, duration_ms: 3, agent_id: "ag" }, ctx);
    const rec = JSON.parse(readFileSync(join(box.project, ".lemon/skills.usage.json"), "utf8")).skills.n;
    expect(rec).toMatchObject({
      write_count: 1,
      created_by: "agent",
      created_via: "skill_manage",
      created_by_agent_id: "ag",
    });
  });

  test("a corrupt sidecar: the load still succeeds, the file stays, a diagnostic says why", async () => {
    await using box = await sandbox();
    const ctx = createContext({ cwd: box.project, env: box.env });
    const file = await box.write(join(box.agentDir, "skills.usage.json"), "{oops");
    const hub = instanceEvents(ctx, { eventLog: async () => false });
    const diags: Diagnostic[] = [];
    const loads: SkillLoadEvent[] = [];
    hub.on("diagnostic", (d) => diags.push(d));
    hub.on("skill.load", (e) => loads.push(e));
    await hub.publish("skill.load", loadEvent(), ctx);
    expect(loads).toHaveLength(1);
    expect(diags).toHaveLength(1);
    expect(diags[0]!.message).toStartWith(`usage not recorded: refusing to overwrite invalid ${file}: `);
    expect(readFileSync(file, "utf8")).toBe("{oops");
  });
});

describe("events of a lemon instance", () => {
  test("renderPrompt emits skill.prompt_render with the listed keys, count and characters, never the text", async () => {
    await using box = await sandbox();
    await box.skill(join(box.agentDir, "skill"), "beta", { description: "Use for beta ünïcödé tasks." });
    await box.skill(join(box.agentDir, "skill"), "alpha", { description: "Use for alpha tasks." });
    await using lemon = createLemon({ cwd: box.project, env: box.env, curator: false, now: () => new Date(TS) });
    const seen: PromptRenderEvent[] = [];
    lemon.events.on("skill.prompt_render", (e) => seen.push(e));
    const text = await lemon.renderPrompt();
    expect(seen).toEqual([{ ts: TS, kind: "listing", keys: ["alpha", "beta"], count: 2, chars: [...text].length }]);
    const entries = await lemon.skills.findRelevant("beta tasks");
    const block = lemon.renderRelevant(entries);
    expect(seen[1]).toEqual({
      ts: TS,
      kind: "relevant",
      keys: entries.map((e) => e.key),
      count: entries.length,
      chars: [...block].length,
    });
    expect(JSON.stringify(seen)).not.toContain("Use for");
  });

  test("an empty listing renders no keys", async () => {
    await using box = await sandbox();
    await using lemon = createLemon({ cwd: box.project, env: box.env, curator: false });
    const seen: PromptRenderEvent[] = [];
    lemon.events.on("skill.prompt_render", (e) => seen.push(e));
    expect(await lemon.renderPrompt()).toBe("");
    expect(seen[0]).toMatchObject({ keys: [], count: 0, chars: 0 });
  });

  test("refresh emits skills.refresh per scope with the refreshed counts", async () => {
    await using box = await sandbox();
    await box.skill(join(box.agentDir, "skill"), "g1");
    await box.skill(join(box.agentDir, "skill"), "g2");
    await box.skill(join(box.project, ".lemon/skill"), "p1");
    await using lemon = createLemon({ cwd: box.project, env: box.env, curator: false, now: () => new Date(TS) });
    const seen: RefreshEvent[] = [];
    lemon.events.on("skills.refresh", (e) => seen.push(e));
    await lemon.skills.refresh();
    expect(seen.map((e) => [e.scope, e.count])).toEqual([
      ["global", 2],
      ["project", 1],
    ]);
    expect(seen.every((e) => e.ts === TS && Number.isInteger(e.duration_ms) && e.duration_ms >= 0)).toBe(true);
  });

  test("a throwing listener never affects the operation", async () => {
    await using box = await sandbox();
    await box.skill(join(box.agentDir, "skill"), "g1");
    const logged: string[] = [];
    await using lemon = createLemon({
      cwd: box.project,
      env: box.env,
      curator: false,
      log: (e) => logged.push(e.message),
    });
    lemon.events.on("skill.prompt_render", () => {
      throw new Error("boom");
    });
    expect(await lemon.renderPrompt()).toContain('<skill key="g1">');
    expect(logged).toContain("event listener for skill.prompt_render threw: boom");
  });

  test("two instances never see each other's events; the public object cannot emit", async () => {
    await using box = await sandbox();
    await using a = createLemon({ cwd: box.project, env: box.env, curator: false });
    await using b = createLemon({ cwd: box.project, env: box.env, curator: false });
    let bSaw = 0;
    b.events.on("skill.prompt_render", () => bSaw++);
    await a.renderPrompt();
    expect(bSaw).toBe(0);
    expect(Object.keys(a.events).sort()).toEqual(["on", "once"]);
  });

  test("readSkill's skill.load reaches listeners after the sidecar counted it", async () => {
    await using box = await sandbox();
    await box.skill(join(box.project, ".lemon/skill"), "proj");
    await using lemon = createLemon({ cwd: box.project, env: box.env, curator: false });
    const file = join(box.project, ".lemon/skills.usage.json");
    const seen: [SkillLoadEvent, number][] = [];
    lemon.events.on("skill.load", (e) =>
      seen.push([e, existsSync(file) ? JSON.parse(readFileSync(file, "utf8")).skills.proj.load_count : 0]),
    );
    const r = await lemon.readSkill({ key: "proj" }, { toolCallId: "call-7", sessionKey: "s", agentId: "ag" });
    expect(r.isError).toBe(false);
    await lemon.readSkill({ key: "missing-skill" });
    expect(seen).toHaveLength(2);
    expect(seen[0]![1]).toBe(1);
    expect(seen[0]![0]).toMatchObject({
      key: "proj",
      scope: "project",
      result: "ok",
      tool_call_id: "call-7",
      session_key: "s",
      agent_id: "ag",
    });
    expect(seen[1]![0]).toMatchObject({ key: "missing-skill", result: "not_found", scope: null });
    const rec = JSON.parse(readFileSync(file, "utf8")).skills;
    expect(Object.keys(rec)).toEqual(["proj"]);
    expect(rec.proj).toMatchObject({ load_count: 1, last_tool_call_id: "call-7", last_session_key: "s" });
    expect(JSON.stringify(seen)).not.toContain("Do the thing carefully");
  });

  test("skillManage's skill.write: the sidecar counts it and records the agent's creation first", async () => {
    await using box = await sandbox();
    await using lemon = createLemon({ cwd: box.project, env: box.env, curator: false });
    const file = join(box.project, ".lemon/skills.usage.json");
    const seen: [SkillWriteEvent, Record<string, unknown>][] = [];
    lemon.events.on("skill.write", (e) => seen.push([e, JSON.parse(readFileSync(file, "utf8")).skills[e.name]]));
    const content =
      "---\nname: learned\ndescription: Use this when repeating the learned fix.\n---\n# Steps\n\nDo it.\n";
    const call = { toolCallId: "w1", sessionKey: "s", runId: "r", agentId: "agent-7" };
    const created = await lemon.skillManage({ action: "create", name: "learned", content }, call);
    expect(created.isError).toBe(false);
    const failed = await lemon.skillManage(
      { action: "patch", name: "learned", old_string: "no such text", new_string: "x" },
      call,
    );
    expect(failed.isError).toBe(true);
    expect(seen).toHaveLength(2);
    expect(seen[0]![0]).toMatchObject({
      action: "create",
      name: "learned",
      scope: "project",
      result: "ok",
      tool_call_id: "w1",
      session_key: "s",
      run_id: "r",
      agent_id: "agent-7",
    });
    expect(seen[0]![1]).toMatchObject({
      write_count: 1,
      created_by: "agent",
      created_by_agent_id: "agent-7",
      created_via: "skill_manage",
    });
    expect(seen[1]![0]).toMatchObject({ action: "patch", result: "error" });
    expect(seen[1]![1]).toMatchObject({ write_count: 1, write_error_count: 1, last_action: "patch" });
    // Never the content or the patch strings.
    expect(JSON.stringify(seen.map(([e]) => e))).not.toContain("Do it.");
    expect(JSON.stringify(seen.map(([e]) => e))).not.toContain("no such text");
  });
});
