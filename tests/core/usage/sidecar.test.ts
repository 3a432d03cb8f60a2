// The usage sidecar (skills.md §12.1–§12.2): every field each update sets, the skipped loads,
// creation put-if-absent, unknown fields kept, a corrupt file left in place, project confinement.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { createContext, type LemonContext } from "../../../src/core/context.ts";
import { LemonError } from "../../../src/core/errors.ts";
import type { SkillLoadEvent, SkillWriteEvent } from "../../../src/core/skills/usage/events.ts";
import { readUsage, recordLoad, recordWrite, setLifecycle, usageFile } from "../../../src/core/skills/usage/sidecar.ts";
import { sandbox, type Sandbox } from "../../support/sandbox.ts";

const T1 = "2026-08-29T10:15:00Z";
const T2 = "2026-08-30T11:00:00Z";

function ctxOf(box: Sandbox, now = new Date(T2)): LemonContext {
  return createContext({ cwd: box.project, env: box.env, now: () => now });
}

function load(over: Partial<SkillLoadEvent> = {}): SkillLoadEvent {
  return {
    ts: T1,
    key: "k",
    scope: "global",
    view: "summary",
    result: "ok",
    chars: 10,
    duration_ms: 1,
    ...over,
  };
}

function write(over: Partial<SkillWriteEvent> = {}): SkillWriteEvent {
  return { ts: T1, action: "patch", name: "k", scope: "global", result: "ok", duration_ms: 2, ...over };
}

const doc = (file: string) => JSON.parse(readFileSync(file, "utf8"));

describe("loads", () => {
  test("an ok load sets load_count, last_loaded_at, last_view and the run context", async () => {
    await using box = await sandbox();
    const ctx = ctxOf(box);
    const e = load({ tool_call_id: "call-1", session_key: "sess", run_id: "run-9", agent_id: "ag" });
    await recordLoad(ctx, "global", e);
    await recordLoad(ctx, "global", { ...e, ts: T2, view: "full", tool_call_id: "call-2" });
    const file = usageFile(ctx, "global");
    expect(file).toBe(join(box.agentDir, "skills.usage.json"));
    expect(doc(file)).toEqual({
      version: 1,
      skills: {
        k: {
          load_count: 2,
          last_loaded_at: T2,
          last_view: "full",
          last_tool_call_id: "call-2",
          last_session_key: "sess",
          last_run_id: "run-9",
        },
      },
    });
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  test("not_found and error loads, and loads without a scope, are not recorded and create nothing", async () => {
    await using box = await sandbox();
    const ctx = ctxOf(box);
    await recordLoad(ctx, "global", load({ result: "not_found" }));
    await recordLoad(ctx, "global", load({ result: "error", error_code: "read_failed" }));
    await recordLoad(ctx, null, load({ scope: null }));
    expect(existsSync(usageFile(ctx, "global"))).toBe(false);
    expect(await readUsage(usageFile(ctx, "global"))).toEqual({ ok: true, skills: {} });
  });

  test("a project load goes to P/skills.usage.json, the global one to A", async () => {
    await using box = await sandbox();
    const ctx = ctxOf(box);
    await recordLoad(ctx, "project", load({ scope: "project", key: "p" }));
    expect(Object.keys(doc(join(box.project, ".lemon/skills.usage.json")).skills)).toEqual(["p"]);
    expect(existsSync(join(box.agentDir, "skills.usage.json"))).toBe(false);
  });

  test("event times are stored as UTC seconds with Z; an unparsable one becomes the clock's", async () => {
    await using box = await sandbox();
    const ctx = ctxOf(box);
    await recordLoad(ctx, "global", load({ ts: "2026-08-29T12:15:00.987+02:00" }));
    expect(doc(usageFile(ctx, "global")).skills.k.last_loaded_at).toBe(T1);
    await recordWrite(ctx, "global", write({ ts: "garbage", action: "create" }), { via: "skill_manage" });
    expect(doc(usageFile(ctx, "global")).skills.k).toMatchObject({ last_write_at: T2, created_at: T2 });
  });

  test("a run-context field absent from the latest load is cleared (absent = null)", async () => {
    await using box = await sandbox();
    const ctx = ctxOf(box);
    await recordLoad(ctx, "global", load({ session_key: "s1" }));
    await recordLoad(ctx, "global", load());
    expect(doc(usageFile(ctx, "global")).skills.k.last_session_key).toBeUndefined();
  });
});

describe("writes", () => {
  test("ok and error writes count apart; last write facts and run context are set", async () => {
    await using box = await sandbox();
    const ctx = ctxOf(box);
    await recordWrite(ctx, "global", write({ agent_id: "a1", file_path: "SKILL.md", tool_call_id: "c1" }));
    await recordWrite(
      ctx,
      "global",
      write({ ts: T2, action: "write_file", result: "error", error_code: "path_invalid", agent_id: "a2", run_id: "r" }),
    );
    expect(doc(usageFile(ctx, "global")).skills.k).toEqual({
      write_count: 1,
      write_error_count: 1,
      last_write_at: T2,
      last_action: "write_file",
      last_writer_agent_id: "a2",
      last_run_id: "r",
    });
  });

  test("created_* is set by a successful create only, put-if-absent", async () => {
    await using box = await sandbox();
    const ctx = ctxOf(box);
    await recordWrite(ctx, "global", write({ action: "create", result: "error" }), { via: "skill_manage" });
    expect(doc(usageFile(ctx, "global")).skills.k.created_at).toBeUndefined();
    await recordWrite(ctx, "global", write({ action: "create", agent_id: "ag" }), {
      via: "skill_manage",
      agentId: "ag",
    });
    await recordWrite(ctx, "global", write({ ts: T2, action: "create" }), { via: "draft", agentId: "other" });
    const rec = doc(usageFile(ctx, "global")).skills.k;
    expect(rec).toMatchObject({
      created_at: T1,
      created_by: "agent",
      created_by_agent_id: "ag",
      created_via: "skill_manage",
      write_count: 2,
      write_error_count: 1,
    });
  });

  test("a draft publish records created_via draft", async () => {
    await using box = await sandbox();
    const ctx = ctxOf(box);
    await recordWrite(ctx, "project", write({ action: "publish", scope: "project" }), { via: "draft" });
    expect(doc(usageFile(ctx, "project")).skills.k).toMatchObject({ created_by: "agent", created_via: "draft" });
  });
});

describe("hostile input", () => {
  test("a write or load whose name is no skill key records nothing", async () => {
    await using box = await sandbox();
    const ctx = ctxOf(box);
    await recordWrite(ctx, "global", write({ name: "bad\u200bname", result: "error" }));
    await recordWrite(ctx, "global", write({ name: " x", result: "error" }));
    await recordLoad(ctx, "global", load({ key: "k".repeat(500) }));
    expect(existsSync(usageFile(ctx, "global"))).toBe(false);
  });

  test("huge ids, views and paths are clamped before they are stored", async () => {
    await using box = await sandbox();
    const ctx = ctxOf(box);
    const huge = "x".repeat(100_000);
    const clamped = (f: string) => {
      const rec = doc(usageFile(ctx, "global")).skills.k as Record<string, string>;
      expect([...rec[f]!].length).toBeLessThanOrEqual(1024);
    };
    await recordWrite(ctx, "global", write({ file_path: huge, tool_call_id: huge, agent_id: huge, action: huge }));
    for (const f of ["file_path", "last_tool_call_id", "last_writer_agent_id", "last_action"]) clamped(f);
    await recordLoad(ctx, "global", load({ view: huge, session_key: huge }));
    for (const f of ["file_path", "last_writer_agent_id", "last_view", "last_session_key"]) clamped(f);
    expect(readFileSync(usageFile(ctx, "global")).length).toBeLessThan(10_000);
  });
});

describe("lifecycle", () => {
  test("setLifecycle sets the state, its time from the clock and the agent", async () => {
    await using box = await sandbox();
    const ctx = ctxOf(box);
    await recordLoad(ctx, "global", load());
    await setLifecycle(ctx, "global", "k", "pinned", "curator-agent");
    expect(doc(usageFile(ctx, "global")).skills.k).toMatchObject({
      lifecycle_state: "pinned",
      state_updated_at: T2,
      state_updated_by_agent_id: "curator-agent",
      load_count: 1,
    });
    await setLifecycle(ctx, "global", "k", "active");
    expect(doc(usageFile(ctx, "global")).skills.k.state_updated_by_agent_id).toBeUndefined();
  });
});

describe("the file", () => {
  test("fields are written in §12.1 order, unknown fields after them, keys sorted", async () => {
    await using box = await sandbox();
    const ctx = ctxOf(box);
    await recordWrite(ctx, "global", write({ name: "b", action: "create", agent_id: "x" }), {
      via: "skill_manage",
      agentId: "x",
    });
    await recordLoad(ctx, "global", load({ key: "b" }));
    await setLifecycle(ctx, "global", "b", "stale");
    await recordLoad(ctx, "global", load({ key: "a" }));
    const text = readFileSync(usageFile(ctx, "global"), "utf8");
    expect(Object.keys(JSON.parse(text).skills)).toEqual(["a", "b"]);
    expect(Object.keys(JSON.parse(text).skills.b)).toEqual([
      "lifecycle_state",
      "state_updated_at",
      "load_count",
      "last_loaded_at",
      "last_view",
      "write_count",
      "last_write_at",
      "last_action",
      "last_writer_agent_id",
      "created_at",
      "created_by",
      "created_by_agent_id",
      "created_via",
    ]);
    expect(text.endsWith("}\n")).toBe(true);
    expect(text).toContain('\n  "skills": {\n    "a": {\n      "load_count": 1,');
  });

  test("unknown top-level keys and unknown record fields of a future version survive", async () => {
    await using box = await sandbox();
    const ctx = ctxOf(box);
    const file = await box.write(
      usageFile(ctx, "global"),
      JSON.stringify({
        version: 1,
        future_top: { a: [1, 2] },
        skills: { k: { load_count: 4, future_field: "keep me", nested: { x: true } }, other: { z: 1 } },
      }),
    );
    await recordLoad(ctx, "global", load());
    const d = doc(file);
    expect(d.future_top).toEqual({ a: [1, 2] });
    expect(d.skills.k).toMatchObject({ load_count: 5, future_field: "keep me", nested: { x: true } });
    expect(d.skills.other).toEqual({ z: 1 });
  });

  test("a field of the wrong type reads as absent; the next update of it replaces it, others keep theirs", async () => {
    await using box = await sandbox();
    const ctx = ctxOf(box);
    const file = await box.write(
      usageFile(ctx, "global"),
      JSON.stringify({ version: 1, skills: { k: { load_count: "many", write_count: -3, lifecycle_state: "gone" } } }),
    );
    const read = await readUsage(file);
    expect(read).toEqual({ ok: true, skills: { k: {} } });
    await recordLoad(ctx, "global", load());
    const rec = doc(file).skills.k;
    expect(rec.load_count).toBe(1);
    expect(rec.write_count).toBe(-3);
    expect(rec.lifecycle_state).toBe("gone");
  });

  test("keys such as __proto__ are data", async () => {
    await using box = await sandbox();
    const ctx = ctxOf(box);
    const file = await box.write(
      usageFile(ctx, "global"),
      '{"version":1,"skills":{"__proto__":{"load_count":2},"constructor":{"load_count":1}}}',
    );
    await recordLoad(ctx, "global", load({ key: "__proto__" }));
    const read = await readUsage(file);
    expect(read.ok && Object.keys(read.skills).sort()).toEqual(["__proto__", "constructor"]);
    expect(readFileSync(file, "utf8")).toContain('"__proto__": {\n      "load_count": 3');
  });

  for (const [what, text] of [
    ["not JSON", "{not json"],
    ["a wrong top level", "[1,2]"],
    ["a future version", '{"version":2,"skills":{}}'],
    ["a record that is not an object", '{"version":1,"skills":{"k":5}}'],
    ["a duplicate key", '{"version":1,"skills":{"k":{"load_count":1},"k":{"load_count":9}}}'],
  ] as const) {
    test(`a corrupt sidecar (${what}) is reported and left in place, never replaced by an empty one`, async () => {
      await using box = await sandbox();
      const ctx = ctxOf(box);
      const file = await box.write(usageFile(ctx, "global"), text);
      const read = await readUsage(file);
      expect(read.ok).toBe(false);
      expect(read.ok ? "" : read.reason).not.toBe("");
      const err = (await recordLoad(ctx, "global", load()).catch((e) => e)) as LemonError;
      expect(LemonError.is(err)).toBe(true);
      expect(err.code).toBe("CONFLICT");
      expect(err.message).toStartWith(`refusing to overwrite invalid ${file}: `);
      await expect(recordWrite(ctx, "global", write())).rejects.toThrow("refusing to overwrite invalid");
      await expect(setLifecycle(ctx, "global", "k", "pinned")).rejects.toThrow("refusing to overwrite invalid");
      expect(readFileSync(file, "utf8")).toBe(text);
      expect(existsSync(`${file}.lock`)).toBe(false);
    });
  }

  test("a project sidecar whose .lemon leads outside the project is never written", async () => {
    await using box = await sandbox();
    const ctx = ctxOf(box);
    const outside = join(box.root, "outside");
    await box.write(join(outside, "keep.txt"), "x");
    await box.link(outside, join(box.project, ".lemon"));
    const err = (await recordLoad(ctx, "project", load({ scope: "project" })).catch((e) => e)) as LemonError;
    expect(err.code).toBe("FORBIDDEN");
    expect(existsSync(join(outside, "skills.usage.json"))).toBe(false);
  });

  test("a held lock of another live owner fails the update with the lock's CONFLICT", async () => {
    await using box = await sandbox();
    const ctx = ctxOf(box);
    const file = usageFile(ctx, "global");
    // A lock held by another live process: a child, so the in-process queue is not what waits.
    const holder = Bun.spawn(
      [
        process.execPath,
        "-e",
        `const { acquireLock } = await import(${JSON.stringify(join(import.meta.dir, "../../../src/core/fsx/lock.ts"))});
         await acquireLock(${JSON.stringify(file)}, { command: "holder" });
         console.log("held");
         await Bun.sleep(60000);`,
      ],
      { stdout: "pipe", stderr: "inherit" },
    );
    const reader = holder.stdout.getReader();
    await reader.read();
    try {
      const err = (await recordLoad(ctx, "global", load(), { lockTimeoutMs: 200 }).catch((e) => e)) as LemonError;
      expect(err.code).toBe("CONFLICT");
      expect(err.message).toContain(`${file} is locked by pid ${holder.pid}`);
    } finally {
      holder.kill();
      await holder.exited;
    }
  });
});
