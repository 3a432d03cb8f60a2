// Free turns in a long-lived process (issue 16 item 4): while the watch worker vouches for a
// scope the stat pass is skipped, and a change is still seen by the next turn 60 ms later; the
// watch falls back to the stat check when it fails, and skills.watch tells listeners.
import { describe, expect, test } from "bun:test";
import { mkdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createLemon } from "../../../../src/core/index.ts";
import type { LogEntry } from "../../../../src/core/context.ts";
import { resolvePaths } from "../../../../src/core/paths.ts";
import { resolveRoots } from "../../../../src/core/skills/roots.ts";
import { WatchHub, WatchState } from "../../../../src/core/skills/search/watcher.ts";
import { sandbox } from "../../../support/sandbox.ts";
import { armed, keys, lemonFor, md, storeOf, turn, until } from "./watch-helpers.ts";

describe("watched identity check", () => {
  test("an armed watch skips the stat pass; an edited SKILL.md is seen by the next turn 60 ms later", async () => {
    await using box = await sandbox();
    await box.skill("g", "alpha", md("alpha", "Zebra grooming."));
    await box.skill("g/cat", "beta", md("beta", "Walrus feeding."));
    await using l = lemonFor(box);
    const store = await armed(l);
    // Nothing changed: turns 60 ms apart run no identity check.
    const checks = store.counts.checks;
    for (let i = 0; i < 3; i++) {
      await turn();
      expect(await keys(l, "zebra")).toEqual(["alpha"]);
    }
    expect(store.counts.checks).toBe(checks);
    // In place, deep in a category (recursive watch on Linux), then by rename.
    writeFileSync(join(box.root, "g/cat/beta/SKILL.md"), md("beta", "Zebra feeding."));
    await turn();
    expect((await keys(l, "zebra")).sort()).toEqual(["alpha", "beta"]);
    writeFileSync(join(box.root, "g/alpha/x"), md("alpha", "Okapi grooming."));
    renameSync(join(box.root, "g/alpha/x"), join(box.root, "g/alpha/SKILL.md"));
    await turn();
    expect(await keys(l, "okapi")).toEqual(["alpha"]);
    // A new skill, and the lockfile (outside the roots: stat'ed every call).
    await box.skill("g/cat", "gamma", md("gamma", "Okapi feeding."));
    await turn();
    expect((await keys(l, "okapi")).sort()).toEqual(["alpha", "gamma"]);
  });

  test("recursive fs.watch on Linux: an event two levels below a watched root arrives", async () => {
    await using box = await sandbox();
    mkdirSync(join(box.root, "w/cat/skill"), { recursive: true });
    const hub = new WatchHub(() => {});
    try {
      const w = hub.watch({ recursive: [join(box.root, "w")], single: [] }, "k")!;
      await until(() => w.state === WatchState.Armed, "armed");
      const before = w.events;
      writeFileSync(join(box.root, "w/cat/skill/SKILL.md"), "x");
      await until(() => w.events > before, "the event");
    } finally {
      hub.close();
    }
  });

  test("the lockfile is stat'ed on every watched call: a new or rewritten one is a change", async () => {
    await using box = await sandbox();
    await box.skill("g", "alpha", md("alpha", "Zebra grooming."));
    await using l = lemonFor(box);
    const store = await armed(l);
    const checks = store.counts.checks;
    writeFileSync(resolvePaths(l.context).global.lockfile, "{}\n");
    await turn();
    await l.skills.findRelevant("zebra").catch(() => []);
    expect(store.counts.checks).toBeGreaterThan(checks);
  });

  test("refresh: true still forces a rebuild while watched", async () => {
    await using box = await sandbox();
    await box.skill("g", "alpha", md("alpha", "Zebra grooming."));
    await using l = lemonFor(box);
    const store = await armed(l);
    const checks = store.counts.checks;
    await l.skills.findRelevant("zebra", { refresh: true });
    expect(store.counts.checks).toBe(checks + 1);
  });

  test("a watched category removed or renamed, and the root itself, under a running process", async () => {
    await using box = await sandbox();
    await box.skill("g/cat", "alpha", md("alpha", "Zebra grooming."));
    await box.skill("g", "beta", md("beta", "Zebra feeding."));
    await using l = lemonFor(box);
    await armed(l);
    renameSync(join(box.root, "g/cat"), join(box.root, "g/kat"));
    await turn();
    expect((await keys(l, "zebra")).sort()).toEqual(["alpha", "beta"]);
    rmSync(join(box.root, "g/kat"), { recursive: true });
    await turn();
    expect(await keys(l, "zebra")).toEqual(["beta"]);
    // The root renamed away, then a new one at its path: both seen, and watched again later.
    renameSync(join(box.root, "g"), join(box.root, "g-old"));
    await turn();
    expect(await keys(l, "zebra")).toEqual([]);
    await box.skill("g", "delta", md("delta", "Zebra painting."));
    await turn();
    expect(await keys(l, "zebra")).toEqual(["delta"]);
    await armed(l);
    await box.skill("g", "epsilon", md("epsilon", "Zebra singing."));
    await turn();
    expect((await keys(l, "zebra")).sort()).toEqual(["delta", "epsilon"]);
    rmSync(join(box.root, "g"), { recursive: true });
    mkdirSync(join(box.root, "g"));
    await box.skill("g", "zeta", md("zeta", "Zebra racing."));
    await turn();
    expect(await keys(l, "zebra")).toEqual(["zeta"]);
  });

  test("a root that is a symlink, and skill directories linked from outside it", async () => {
    await using box = await sandbox();
    await box.skill("real", "alpha", md("alpha", "Zebra grooming."));
    await box.skill("outside", "beta", md("beta", "Walrus feeding."));
    await box.skill("outside-cat/sub", "gamma", md("gamma", "Walrus racing."));
    symlinkSync(join(box.root, "real"), join(box.root, "g"));
    symlinkSync(join(box.root, "outside/beta"), join(box.root, "real/beta"));
    symlinkSync(join(box.root, "outside-cat/sub"), join(box.root, "real/linked-cat"));
    await using l = lemonFor(box);
    const store = await armed(l);
    const w = store.watchOf(resolveRoots(l.context).global)!;
    expect(w.plan.recursive).toEqual([]);
    expect(await w.paths()).toContain(join(box.root, "real"));
    expect(await w.paths()).toContain(join(box.root, "outside/beta"));
    writeFileSync(join(box.root, "outside/beta/SKILL.md"), md("beta", "Zebra feeding."));
    await turn();
    expect((await keys(l, "zebra")).sort()).toEqual(["alpha", "beta"]);
    writeFileSync(join(box.root, "outside-cat/sub/gamma/SKILL.md"), md("gamma", "Zebra racing."));
    await turn();
    expect((await keys(l, "zebra")).sort()).toEqual(["alpha", "beta", "gamma"]);
    await box.skill("outside-cat/sub", "delta", md("delta", "Zebra dancing."));
    await turn();
    expect((await keys(l, "zebra")).sort()).toEqual(["alpha", "beta", "delta", "gamma"]);
  });

  test("10,000 changes in a burst: no crash, one watch, the final state seen 60 ms after the burst", async () => {
    await using box = await sandbox();
    await box.skill("g", "alpha", md("alpha", "Zebra grooming."));
    await using l = lemonFor(box);
    const store = await armed(l);
    const watch = store.watchOf(resolveRoots(l.context).global)!;
    const rss = process.memoryUsage().rss;
    const file = join(box.root, "g/alpha/SKILL.md");
    for (let i = 0; i < 10_000; i++) {
      if (i % 1000 === 0) await l.skills.findRelevant("zebra");
      writeFileSync(file, md("alpha", `Zebra grooming ${i}.`));
      if (i % 10 === 0) writeFileSync(join(box.root, "g/alpha", `f${i % 100}`), String(i));
    }
    writeFileSync(file, md("alpha", "Narwhal grooming."));
    await turn();
    expect(await keys(l, "narwhal")).toEqual(["alpha"]);
    // The events were counted, not queued: memory stays flat (a loose bound, not a timing).
    expect(watch.events).toBeGreaterThan(0);
    expect(process.memoryUsage().rss - rss).toBeLessThan(256 * 1024 * 1024);
  });

  test("a watcher that errors (closed under us) falls back to the stat check, logged once", async () => {
    await using box = await sandbox();
    await box.skill("g", "alpha", md("alpha", "Zebra grooming."));
    await box.skill(".", "proj", md("proj", "Zebra project."));
    const logs: LogEntry[] = [];
    await using l = lemonFor(box, logs);
    const store = await armed(l);
    const watch = store.watchOf(resolveRoots(l.context).global)!;
    watch.sever();
    await until(() => watch.state === WatchState.Failed, "the watch to fail");
    const checks = store.counts.checks;
    await turn();
    await l.skills.findRelevant("zebra");
    expect(store.counts.checks).toBeGreaterThan(checks);
    writeFileSync(join(box.root, "g/alpha/SKILL.md"), md("alpha", "Okapi grooming."));
    await turn();
    expect(await keys(l, "okapi")).toEqual(["alpha"]);
    for (let i = 0; i < 3; i++) {
      await turn();
      await l.skills.findRelevant("okapi");
    }
    expect(store.watchOf(resolveRoots(l.context).global)).toBeNull();
    const warned = logs.filter((e) => e.message.startsWith("skill watcher unavailable"));
    expect(warned.length).toBe(1);
    expect(warned[0]!.message).toContain("checking skills by stat");
  });
});

describe("skills.watch", () => {
  test("tells the listener which scope changed, coalesced; unsubscribe stops it", async () => {
    await using box = await sandbox();
    await box.skill("g", "alpha", md("alpha", "Zebra grooming."));
    await using l = lemonFor(box);
    const got: { cwd: string; scopes: string[] }[] = [];
    const stop = l.skills.watch((c) => got.push(c));
    const store = await storeOf(l);
    await until(() => store.watchOf(resolveRoots(l.context).global)?.state === WatchState.Armed, "armed");
    await Bun.sleep(50);
    for (let i = 0; i < 20; i++) writeFileSync(join(box.root, "g/alpha/SKILL.md"), md("alpha", `Zebra ${i}.`));
    await until(() => got.length > 0, "a change");
    expect(got[0]).toEqual({ cwd: box.project, scopes: ["global"] });
    // The listener's snapshot is current: the next turn finds the new text without a rebuild of its own.
    expect(await keys(l, "zebra")).toEqual(["alpha"]);
    await Bun.sleep(300);
    const n = got.length;
    expect(n).toBeLessThanOrEqual(2);
    // skills.json and the project scope.
    writeFileSync(join(box.agentDir, "skills.json"), JSON.stringify({ disabled: ["alpha"] }));
    await until(() => got.length > n, "a skills.json change");
    await box.skill("project/.claude/skills", "proj", md("proj", "Zebra project."));
    await until(() => got.some((c) => c.scopes.includes("project")), "a project change");
    stop();
    const m = got.length;
    await box.skill("g", "beta", md("beta", "Zebra feeding."));
    await Bun.sleep(400);
    expect(got.length).toBe(m);
  });

  test("falls back to polling when the watcher fails", async () => {
    await using box = await sandbox();
    await box.skill("g", "alpha", md("alpha", "Zebra grooming."));
    const logs: LogEntry[] = [];
    await using l = lemonFor(box, logs);
    const got: string[][] = [];
    const stop = l.skills.watch((c) => got.push(c.scopes));
    const store = await storeOf(l);
    const roots = resolveRoots(l.context).global;
    await until(() => store.watchOf(roots)?.state === WatchState.Armed, "armed");
    store.watchOf(roots)!.sever();
    await until(() => logs.some((e) => e.message.startsWith("skill watcher unavailable")), "the fallback log");
    await Bun.sleep(300);
    writeFileSync(join(box.root, "g/alpha/SKILL.md"), md("alpha", "Okapi grooming."));
    await until(() => got.length > 0, "a polled change");
    expect(got[0]).toEqual(["global"]);
    stop();
  });

  test("lemon.close() ends subscriptions, even one made just before it", async () => {
    await using box = await sandbox();
    await box.skill("g", "alpha", md("alpha", "Zebra grooming."));
    const l = lemonFor(box);
    const got: string[][] = [];
    l.skills.watch((c) => got.push(c.scopes));
    await l.close();
    const late = lemonFor(box);
    late.skills.watch((c) => got.push(c.scopes));
    await late.skills.findRelevant("zebra");
    await late.close();
    await box.skill("g", "beta", md("beta", "Zebra feeding."));
    await Bun.sleep(400);
    expect(got).toEqual([]);
    expect(() => l.skills.watch("nope" as unknown as () => void)).toThrow("skills.watch: listener");
  });

  test("never keeps the process alive: a child that subscribes and unsubscribes exits", async () => {
    await using box = await sandbox();
    await box.skill("g", "alpha", md("alpha", "Zebra grooming."));
    const script = join(box.root, "child.ts");
    const core = join(import.meta.dir, "../../../../src/core/index.ts");
    writeFileSync(
      script,
      `import { createLemon } from ${JSON.stringify(core)};\n` +
        `const l = createLemon({ cwd: ${JSON.stringify(box.project)}, agentDir: ${JSON.stringify(box.agentDir)}, ` +
        `env: ${JSON.stringify({ ...box.env, LEMON_SNAPSHOT_WORKER: "never" })}, curator: false, ` +
        `skillRoots: { agents: null, omp: null, codex: null, claude: ${JSON.stringify(join(box.root, "g"))} } });\n` +
        `const stop = l.skills.watch(() => {});\n` +
        `await l.skills.findRelevant("zebra");\nawait Bun.sleep(300);\nawait l.skills.findRelevant("zebra");\n` +
        `await Bun.sleep(300);\nstop();\nconsole.log("done");\n`,
    );
    const p = Bun.spawn([process.execPath, script], { stdout: "pipe", stderr: "pipe" });
    const killer = setTimeout(() => p.kill(), 20_000);
    const code = await p.exited;
    clearTimeout(killer);
    expect(await new Response(p.stdout).text()).toContain("done");
    expect(code).toBe(0);
  });
});

describe("watched root resolution", () => {
  test("a project root created, a .git appearing and a root link retargeted are seen by the next turn", async () => {
    await using box = await sandbox();
    await box.skill("g", "alpha", md("alpha", "Zebra grooming."));
    await box.skill("other", "omega", md("omega", "Zebra racing."));
    await using l = lemonFor(box);
    await armed(l);
    for (let i = 0; i < 4; i++) {
      await turn();
      await l.skills.findRelevant("zebra");
    }
    await box.skill("project/.claude/skills", "proj", md("proj", "Zebra project."));
    await turn();
    expect(await keys(l, "zebra")).toEqual(["proj", "alpha"]);
    // The cwd moves into a sub-directory of its own repository: its .git hides the parent's roots.
    const sub = join(box.project, "sub");
    mkdirSync(sub);
    await using s = createLemon({
      cwd: sub,
      agentDir: box.agentDir,
      env: { ...box.env, LEMON_SNAPSHOT_WORKER: "never" },
      skillRoots: { agents: null, omp: null, claude: join(box.root, "g"), codex: null },
      curator: false,
    });
    for (let i = 0; i < 4; i++) {
      await turn();
      await s.skills.findRelevant("zebra");
    }
    expect(await keys(s, "zebra")).toEqual(["proj", "alpha"]);
    mkdirSync(join(sub, ".git"));
    await turn();
    expect(await keys(s, "zebra")).toEqual(["alpha"]);
    // The global root becomes a link, then the link is retargeted.
    renameSync(join(box.root, "g"), join(box.root, "g-real"));
    symlinkSync(join(box.root, "g-real"), join(box.root, "g"));
    await turn();
    expect(await keys(s, "zebra")).toEqual(["alpha"]);
    for (let i = 0; i < 4; i++) {
      await turn();
      await s.skills.findRelevant("zebra");
    }
    rmSync(join(box.root, "g"));
    symlinkSync(join(box.root, "other"), join(box.root, "g"));
    await turn();
    expect(await keys(s, "zebra")).toEqual(["omega"]);
  });
});
