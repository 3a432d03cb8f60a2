// The review goes to a real agent command: a small script that records its stdin, arguments and
// environment, so the test sees exactly what an agent would receive.
import { describe, expect, test } from "bun:test";
import { chmodSync, existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createContext } from "../../../src/core/context.ts";
import { createLemon } from "../../../src/core/index.ts";
import { curatorScope } from "../../../src/core/skills/curator/api.ts";
import { CuratorManager } from "../../../src/core/skills/curator/manager.ts";
import { runCurator } from "../../../src/core/skills/curator/run.ts";
import { agentSkill, curatorBox, MIXED, NOW, writeUsage } from "./support.ts";
import type { Sandbox } from "../../support/sandbox.ts";

/** An agent script writing what it got into `<dir>/stdin`, `<dir>/args`, `<dir>/env`; exits `code`. */
async function agentScript(box: Sandbox, name: string, code = 0, sleep = 0): Promise<{ path: string; dir: string }> {
  const dir = join(box.root, name);
  const path = await box.write(
    join(dir, "agent.sh"),
    [
      "#!/bin/sh",
      `cat > "${dir}/stdin"`,
      `printf '%s\\n' "$@" > "${dir}/args"`,
      `env > "${dir}/env"`,
      sleep > 0 ? `sleep ${sleep}` : "",
      `exit ${code}`,
      "",
    ].join("\n"),
  );
  chmodSync(path, 0o755);
  return { path, dir };
}

const configToml = (box: Sandbox, text: string) => box.write(join(box.agentDir, "config.toml"), text);

describe("review submission (skills.md §13.5, install.md §13.4)", () => {
  test("review = true sends the prompt on stdin to [agents.<agent>] and records the submission", async () => {
    await using t = await curatorBox();
    const { box } = t;
    const agent = await agentScript(box, "reviewer");
    const env = { ...box.env, SECRET_TOKEN: "s3cr3t", ALLOWED: "yes" };
    await using lemon = createLemon({ cwd: box.project, env, curator: false, now: () => NOW });
    await configToml(
      box,
      [
        "[skills.curator]",
        "review = true",
        'agent = "rev"',
        "[agents.rev]",
        `command = ["${agent.path}", "--mode", "review"]`,
        'env = { EXTRA = "1" }',
        'env_vars = ["ALLOWED"]',
      ].join("\n"),
    );
    await writeUsage(box, box.agentDir, MIXED);
    await box.skill(join(box.agentDir, "skill"), "narrow-skill", undefined, "BODY-MUST-NOT-LEAK");
    const r = await lemon.skills.curator.run();
    const sub = r.run!.review_submission!;
    expect(sub.status).toBe("ok");
    expect(sub.submitted_at).toBe("2026-08-29T10:15:00Z");
    expect(sub.run_id).toMatch(/^[0-9a-f-]{36}$/);
    const stdin = readFileSync(join(agent.dir, "stdin"), "utf8");
    expect(stdin).toBe(await lemon.skills.curator.reviewPrompt());
    expect(stdin).toContain("global scope");
    expect(stdin).toContain("- narrow-skill (state: stale; idle days: 40; stale candidate)");
    // Archived by the pass: no longer needs a review.
    expect(stdin).not.toContain("old-skill");
    expect(stdin).not.toContain("BODY-MUST-NOT-LEAK");
    for (const rule of [
      "read_skill",
      "skill_manage",
      "Never delete",
      "pinned",
      "references/, templates/, scripts/ or assets/",
    ])
      expect(stdin).toContain(rule);
    expect(readFileSync(join(agent.dir, "args"), "utf8")).toBe("--mode\nreview\n");
    const childEnv = readFileSync(join(agent.dir, "env"), "utf8");
    expect(childEnv).toContain("EXTRA=1\n");
    expect(childEnv).toContain("ALLOWED=yes\n");
    expect(childEnv).toContain(`LEMON_CURATOR_RUN_ID=${sub.run_id}\n`);
    expect(childEnv).toContain("LEMON_CURATOR_SCOPE=global\n");
    expect(childEnv).not.toContain("s3cr3t");
    const md = readFileSync(join(r.report_path!, "..", "REPORT.md"), "utf8");
    expect(md).toEndWith(
      `## Review submission\n- Run id: ${sub.run_id}\n- Submitted: 2026-08-29T10:15:00Z\n- Status: ok\n`,
    );
    expect(JSON.parse(readFileSync(r.report_path!, "utf8")).review_submission).toEqual(sub);
  });

  test('prompt = "arg" appends the prompt; a failing agent is recorded as failed', async () => {
    await using t = await curatorBox();
    const { box, lemon } = t;
    const agent = await agentScript(box, "argagent", 3);
    await configToml(box, `[agents.default]\ncommand = ["${agent.path}"]\nprompt = "arg"\n`);
    await writeUsage(box, box.agentDir, { a: agentSkill(40) });
    const r = await lemon.skills.curator.run({ submitReview: true });
    expect(r.run!.review_submission!.status).toBe("failed");
    expect(readFileSync(join(agent.dir, "args"), "utf8")).toContain(
      "- a (state: stale; idle days: 40; stale candidate)",
    );
    expect(readFileSync(join(agent.dir, "stdin"), "utf8")).toBe("");
  });

  test("no review without candidates, without review/submitReview, or without a configured agent", async () => {
    await using t = await curatorBox();
    const { box, lemon } = t;
    const agent = await agentScript(box, "never");
    await configToml(box, `[agents.default]\ncommand = ["${agent.path}"]\n`);
    await writeUsage(box, box.agentDir, { a: agentSkill(1), b: agentSkill(100) });
    // b is archived by the pass, a is fresh: nothing left to review.
    const none = await lemon.skills.curator.run({ submitReview: true });
    expect([none.run!.review_required, none.run!.review_submission]).toEqual([false, null]);
    await writeUsage(box, box.agentDir, { c: agentSkill(40) });
    const off = await lemon.skills.curator.run();
    expect([off.run!.review_required, off.run!.review_submission]).toEqual([true, null]);
    expect(existsSync(join(agent.dir, "stdin"))).toBe(false);
    await configToml(box, '[skills.curator]\nreview = true\nagent = "missing"\n');
    const missing = await lemon.skills.curator.run();
    expect(missing.run!.review_submission).toBeNull();
    expect(missing.diagnostics.map((d) => d.message)).toEqual(["agent 'missing' is not configured"]);
  });

  test("an agent over its time limit is killed and recorded as timeout", async () => {
    await using t = await curatorBox();
    const { box } = t;
    const agent = await agentScript(box, "slow", 0, 30);
    await writeUsage(box, box.agentDir, { a: agentSkill(40) });
    const ctx = createContext({ cwd: box.project, env: box.env, now: () => NOW });
    const s = await curatorScope(
      ctx,
      "global",
      { readConfigFile: true },
      {
        reviewCommand: [agent.path],
        reviewTimeoutMs: 200,
      },
    );
    const r = await runCurator(s, { submitReview: true });
    expect(r.run!.review_submission!.status).toBe("timeout");
  });
});

describe("background curator (skills.md §13.6)", () => {
  test("a check is run --auto: gates apply, reviewCommand gets the prompt, close() stops the timer", async () => {
    await using t = await curatorBox();
    const { box } = t;
    const agent = await agentScript(box, "bg");
    await writeUsage(box, box.agentDir, { a: agentSkill(40) });
    const ctx = createContext({ cwd: box.project, env: box.env, now: () => NOW });
    const seen: unknown[] = [];
    const events: unknown[] = [];
    let activity: Date | null = new Date(NOW.getTime() - 60_000);
    const mgr = new CuratorManager(
      { ctx, host: { readConfigFile: true, emit: (e) => events.push(e) }, diagnostic: (d) => seen.push(d) },
      { reviewCommand: [agent.path], lastActivityAt: () => activity },
    );
    // The host was active a minute ago: not idle.
    expect((await mgr.check())?.gate).toBe("not_idle");
    activity = null;
    const r = await mgr.check();
    expect(r?.ran).toBe(true);
    expect(r?.run?.review_submission?.status).toBe("ok");
    expect(readFileSync(join(agent.dir, "stdin"), "utf8")).toContain("- a (state: stale;");
    expect(events).toEqual([
      {
        ts: "2026-08-29T10:15:00Z",
        scope: "global",
        counts: { checked: 1, marked_stale: 1, archived: 0, reactivated: 0 },
        review_required: true,
        report_path: r?.report_path,
      },
    ]);
    expect((await mgr.check())?.gate).toBe("interval");
    await mgr.close();
    expect(await mgr.check()).toBeNull();
    expect(seen).toEqual([]);
  });

  test("failures become diagnostics, never throws; one pass at a time; close waits for it", async () => {
    await using t = await curatorBox();
    const { box } = t;
    const agent = await agentScript(box, "slowbg", 0, 1);
    await writeUsage(box, box.agentDir, { a: agentSkill(40) });
    const ctx = createContext({ cwd: box.project, env: box.env, now: () => NOW });
    const seen: { code: string; message: string }[] = [];
    const mgr = new CuratorManager(
      { ctx, host: { readConfigFile: true }, diagnostic: (d) => seen.push(d) },
      { reviewCommand: [agent.path] },
    );
    const first = mgr.check();
    expect(await mgr.check()).toBeNull();
    const closing = mgr.close();
    await closing;
    expect((await first)?.run?.review_submission?.status).toBe("ok");
    // A corrupt sidecar: reported as a diagnostic, not thrown.
    await box.write(join(box.agentDir, "skills.usage.json"), "{");
    const other = new CuratorManager({ ctx, host: { readConfigFile: true }, diagnostic: (d) => seen.push(d) }, {});
    expect(await other.check()).toBeNull();
    expect(seen.map((d) => d.code)).toEqual(["curator_failed"]);
    expect(seen[0]!.message).toStartWith("background curator: cannot curate global skills: invalid ");
    await other.close();
  });

  test("createLemon starts it by default; its timer never keeps the process alive", async () => {
    await using t = await curatorBox();
    const { box } = t;
    const script = await box.write(
      "host.ts",
      [
        `import { createLemon } from ${JSON.stringify(join(import.meta.dir, "../../../src/core/index.ts"))};`,
        `const lemon = createLemon({ cwd: ${JSON.stringify(box.project)}, env: {} , home: ${JSON.stringify(join(box.root, "h"))} });`,
        "await lemon.skills.curator.status();",
        'console.log("started");',
        // No close(): an unref'd timer lets the process end by itself.
      ].join("\n"),
    );
    const proc = Bun.spawn([process.execPath, script], { stdout: "pipe", stderr: "pipe", env: box.env });
    const code = await proc.exited;
    expect(await new Response(proc.stdout).text()).toBe("started\n");
    expect(code).toBe(0);
  });
});
