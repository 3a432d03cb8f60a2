// A write killed at any step before its commit leaves the skill exactly as it was: a real child
// process runs skill_manage, pauses at a chosen step (LEMON_TEST_PAUSE_AT, read through the
// instance's env), and is SIGKILLed there. The next write recovers its lock and leftovers.
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { sandbox, type Sandbox } from "../../support/sandbox.ts";
import { lemonFor, projectRoot, skillText, textOf, tree } from "./manage-support.ts";

const REPO = join(import.meta.dir, "..", "..", "..");

const CHILD = `
import { createLemon } from ${JSON.stringify(join(REPO, "src/core/index.ts"))};
const lemon = createLemon({ cwd: process.argv[2], env: process.env });
const r = await lemon.skillManage(JSON.parse(process.argv[3]));
console.log(JSON.stringify(r));
await lemon.close();
`;

/** Runs skill_manage in a child that pauses at `step`; kills it there with SIGKILL. */
async function killAt(box: Sandbox, step: string, args: Record<string, unknown>): Promise<void> {
  const script = await box.write("child.ts", CHILD);
  const mark = join(box.root, `paused-${step}`);
  const child = Bun.spawn([process.execPath, script, box.project, JSON.stringify(args)], {
    env: { ...box.env, LEMON_TEST_HOOKS: "1", LEMON_TEST_PAUSE_AT: step, LEMON_TEST_PAUSE_FILE: mark },
    stdout: "pipe",
    stderr: "pipe",
  });
  // Bounded by the process, not the clock: a child that finishes without pausing fails the test.
  let exited = false;
  void child.exited.then(() => (exited = true));
  while (!existsSync(mark) && !exited) await Bun.sleep(10);
  if (!existsSync(mark)) {
    throw new Error(`child never paused at ${step}: ${await new Response(child.stdout).text()}`);
  }
  child.kill("SIGKILL");
  expect(await child.exited).not.toBe(0);
  expect(child.signalCode).toBe("SIGKILL");
}

const leftovers = (box: Sandbox) => readdirSync(projectRoot(box)).filter((n) => n.startsWith("."));

describe("skill_manage killed mid-write", () => {
  for (const step of ["staged", "audited"]) {
    test(`create killed after '${step}' leaves no skill; the next create succeeds`, async () => {
      await using box = await sandbox();
      await killAt(box, step, { action: "create", name: "c", content: skillText("c") });
      expect(tree(join(projectRoot(box), "c"))).toBeNull();
      expect(leftovers(box).length).toBeGreaterThan(0); // the dead writer's stage and lock
      await using lemon = lemonFor(box);
      expect(await lemon.skills.get("c")).toBeNull();
      const r = await lemon.skillManage({ action: "create", name: "c", content: skillText("c") });
      expect(textOf(r)).toStartWith("Created skill 'c'");
      // The dead writer's stage is removed and its lock recovered by the next write.
      expect(leftovers(box)).toEqual([]);
    });

    for (const [what, args] of [
      ["edit", { action: "edit", content: skillText("s", "Use this after the edit.") }],
      ["patch", { action: "patch", old_string: "Run the tests", new_string: "Skip the tests" }],
      ["write_file", { action: "write_file", file_path: "references/r.md", file_content: "new\n" }],
      ["remove_file", { action: "remove_file", file_path: "assets/a.txt" }],
    ] as const) {
      test(`${what} killed after '${step}' leaves the skill as it was`, async () => {
        await using box = await sandbox();
        const setup = lemonFor(box);
        await setup.skillManage({ action: "create", name: "s", content: skillText("s") });
        await setup.skillManage({ action: "write_file", name: "s", file_path: "assets/a.txt", file_content: "a\n" });
        await setup.skillManage({
          action: "write_file",
          name: "s",
          file_path: "references/r.md",
          file_content: "old\n",
        });
        await setup.close();
        const dir = join(projectRoot(box), "s");
        const before = tree(dir);
        await killAt(box, step, { name: "s", ...args });
        expect(tree(dir)).toEqual(before);
        await using lemon = lemonFor(box);
        expect((await lemon.skills.get("s"))?.description).toBe("Use this when working on s.");
        const again = await lemon.skillManage({ name: "s", ...args });
        expect(again.isError).toBe(false);
        expect(leftovers(box)).toEqual([]);
      });
    }
  }

  test("killed right after the commit, the write is whole: the new SKILL.md, nothing partial", async () => {
    await using box = await sandbox();
    const setup = lemonFor(box);
    await setup.skillManage({ action: "create", name: "s", content: skillText("s") });
    await setup.close();
    const next = skillText("s", "Use this after the edit.");
    await killAt(box, "committed", { action: "edit", name: "s", content: next });
    expect(tree(join(projectRoot(box), "s"))).toEqual({ "SKILL.md": next });
  });

  test("delete killed after its rename: the skill is gone whole, the next write removes the trash", async () => {
    await using box = await sandbox();
    const setup = lemonFor(box);
    await setup.skillManage({ action: "create", name: "s", content: skillText("s") });
    await setup.close();
    await killAt(box, "trashed", { action: "delete", name: "s" });
    expect(tree(join(projectRoot(box), "s"))).toBeNull();
    await using lemon = lemonFor(box);
    expect(await lemon.skills.get("s")).toBeNull();
    expect((await lemon.skillManage({ action: "create", name: "t", content: skillText("t") })).isError).toBe(false);
    // The dead writer's lock of 's' waits for the next write of 's', which recovers it.
    expect(leftovers(box)).toEqual([".s.lock"]);
  });
});
