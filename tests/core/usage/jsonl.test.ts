// The JSONL event log (skills.md §11): on with `[skills] event_log = true`, typed records, bounded
// lines, whole lines from concurrent processes, and never on by default.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { createLemon } from "../../../src/core/index.ts";
import { eventLine, MAX_LINE_BYTES, recordType } from "../../../src/core/skills/usage/jsonl.ts";
import { sandbox } from "../../support/sandbox.ts";

const TS = "2026-08-29T10:15:00Z";
const logOf = (agentDir: string) => join(agentDir, "logs", "skill-events.jsonl");
const lines = (file: string) =>
  readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe("lines", () => {
  test("loads and writes are typed *_observed, other events by their name", () => {
    expect(recordType("skill.load")).toBe("skill_load_observed");
    expect(recordType("skill.write")).toBe("skill_write_observed");
    expect(recordType("skills.refresh")).toBe("skills.refresh");
    const line = eventLine("skill.load", {
      ts: TS,
      key: "k",
      scope: null,
      view: "summary",
      result: "not_found",
      chars: 0,
      duration_ms: 1,
    });
    expect(line.endsWith("\n")).toBe(true);
    expect(JSON.parse(line)).toEqual({
      type: "skill_load_observed",
      ts: TS,
      key: "k",
      scope: null,
      view: "summary",
      result: "not_found",
      chars: 0,
      duration_ms: 1,
    });
  });

  test("a huge string field is clamped and a huge key list cut, so a line stays bounded", () => {
    const big = eventLine("skill.load", {
      ts: TS,
      key: "k",
      scope: "global",
      view: "section",
      section: "x".repeat(100_000),
      result: "error",
      chars: 0,
      duration_ms: 1,
    });
    expect(Buffer.byteLength(big)).toBeLessThanOrEqual(MAX_LINE_BYTES);
    expect((JSON.parse(big).section as string).length).toBeLessThan(1000);
    const keys = Array.from({ length: 2000 }, (_, i) => `skill-key-number-${i}`);
    const listing = eventLine("skill.prompt_render", { ts: TS, kind: "listing", keys, count: 2000, chars: 1 });
    const parsed = JSON.parse(listing);
    expect(Buffer.byteLength(listing)).toBeLessThanOrEqual(MAX_LINE_BYTES);
    expect(parsed.count).toBe(2000);
    expect(parsed.keys_truncated).toBe(true);
    expect(parsed.keys.length).toBeGreaterThan(0);
    expect(parsed.keys).toEqual(keys.slice(0, parsed.keys.length));
  });
});

describe("the log file", () => {
  test("event_log = true in config.toml appends every event; close() waits for the queued lines", async () => {
    await using box = await sandbox();
    await box.write(join(box.agentDir, "config.toml"), "[skills]\nevent_log = true\n");
    await box.skill(join(box.agentDir, "skill"), "g", { description: "Use for g tasks." });
    const lemon = createLemon({ cwd: box.project, env: box.env, curator: false, now: () => new Date(TS) });
    await lemon.renderPrompt();
    const r = await lemon.readSkill({ key: "g", view: "summary" }, { toolCallId: "t1" });
    expect(r.isError).toBe(false);
    await lemon.readSkill({ key: "nope" });
    await lemon.close();
    const file = logOf(box.agentDir);
    const recs = lines(file);
    expect(recs.map((l) => l.type)).toEqual(["skill.prompt_render", "skill_load_observed", "skill_load_observed"]);
    expect(recs[0]).toMatchObject({ ts: TS, kind: "listing", keys: ["g"], count: 1 });
    expect(recs[1]).toMatchObject({ key: "g", scope: "global", view: "summary", result: "ok", tool_call_id: "t1" });
    expect(recs[2]).toMatchObject({ key: "nope", result: "not_found" });
    expect(readFileSync(file, "utf8")).not.toContain("Do the thing carefully");
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  test("the module option config.skills.event_log turns it on too; false in the option wins over the file", async () => {
    await using box = await sandbox();
    await box.write(join(box.agentDir, "config.toml"), "[skills]\nevent_log = true\n");
    const off = createLemon({
      cwd: box.project,
      env: box.env,
      curator: false,
      config: { skills: { event_log: false } },
    });
    await off.renderPrompt();
    await off.close();
    expect(existsSync(logOf(box.agentDir))).toBe(false);
    const on = createLemon({
      cwd: box.project,
      env: box.env,
      curator: false,
      readConfigFile: false,
      config: { skills: { event_log: true } },
    });
    await on.renderPrompt();
    await on.close();
    expect(lines(logOf(box.agentDir)).map((l) => l.type)).toEqual(["skill.prompt_render"]);
  });

  test("a published load is in the log when the call returns, even without close()", async () => {
    await using box = await sandbox();
    await box.write(join(box.agentDir, "config.toml"), "[skills]\nevent_log = true\n");
    await box.skill(join(box.agentDir, "skill"), "g");
    await using lemon = createLemon({ cwd: box.project, env: box.env, curator: false });
    await lemon.readSkill({ key: "g" });
    expect(lines(logOf(box.agentDir)).map((l) => [l.type, l.key])).toEqual([["skill_load_observed", "g"]]);
  });

  test("the CLI appends too (lemon skill prompt, lemon tool read_skill)", async () => {
    await using box = await sandbox();
    await box.write(join(box.agentDir, "config.toml"), "[skills]\nevent_log = true\n");
    await box.skill(join(box.agentDir, "skill"), "g");
    expect((await box.cli(["skill", "prompt"])).code).toBe(0);
    expect((await box.cli(["tool", "read_skill", '{"key":"g","view":"summary"}'])).code).toBe(0);
    const recs = lines(logOf(box.agentDir));
    expect(recs.map((l) => l.type)).toEqual(["skill.prompt_render", "skill_load_observed"]);
    expect(recs[1]).toMatchObject({ key: "g", view: "summary", result: "ok", scope: "global" });
  });

  test("off by default: nothing is written", async () => {
    await using box = await sandbox();
    await box.skill(join(box.agentDir, "skill"), "g");
    const lemon = createLemon({ cwd: box.project, env: box.env, curator: false });
    await lemon.renderPrompt();
    await lemon.readSkill({ key: "g" });
    await lemon.close();
    expect(existsSync(join(box.agentDir, "logs"))).toBe(false);
  });

  test("an unwritable log never fails the operation: one warning, then it stays off", async () => {
    await using box = await sandbox();
    await box.write(join(box.agentDir, "config.toml"), "[skills]\nevent_log = true\n");
    // The log path is a directory: every open for append fails.
    await box.write(join(logOf(box.agentDir), "x"), "");
    const logged: string[] = [];
    const lemon = createLemon({ cwd: box.project, env: box.env, curator: false, log: (e) => logged.push(e.message) });
    expect(await lemon.renderPrompt()).toBe("");
    expect(await lemon.renderPrompt()).toBe("");
    await lemon.close();
    expect(logged.filter((m) => m.startsWith("event log disabled: "))).toHaveLength(1);
  });

  test("8 processes appending at once interleave whole lines only", async () => {
    await using box = await sandbox();
    const file = join(box.root, "logs", "events.jsonl");
    const script = await box.write(
      "append.ts",
      `import { jsonlSink } from ${JSON.stringify(join(import.meta.dir, "../../../src/core/skills/usage/jsonl.ts"))};
const sink = await jsonlSink(${JSON.stringify(file)});
const id = process.argv[2];
// About 6 KiB a line: more than PIPE_BUF, still one write.
const pad = Array.from({ length: 12 }, () => "k".repeat(500));
for (let i = 0; i < 200; i++)
  sink.write("skill.prompt_render", { ts: "${TS}", kind: "listing", keys: [id + "-" + i, ...pad], count: 13, chars: i });
`,
    );
    const children = Array.from({ length: 8 }, (_, i) =>
      Bun.spawn([process.execPath, script, String(i)], { stdout: "ignore", stderr: "inherit" }),
    );
    expect(await Promise.all(children.map((c) => c.exited))).toEqual([0, 0, 0, 0, 0, 0, 0, 0]);
    const recs = lines(file);
    expect(recs).toHaveLength(1600);
    const ids = new Set(recs.map((r) => (r.keys as string[])[0]));
    expect(ids.size).toBe(1600);
  });
});
