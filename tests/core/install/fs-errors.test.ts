// Internal file-system failures surface as one line that says what is wrong (adv-install #6):
// never a raw Node syscall string, never NOT_FOUND (which is for a missing skill, ref or source).
import { expect, test } from "bun:test";
import { join } from "node:path";
import { createContext } from "../../../src/core/context.ts";
import { createLemon, LemonError } from "../../../src/core/index.ts";
import { updateSkill } from "../../../src/core/skills/install/update.ts";
import { singleSkillRepo, skillMd } from "../../support/git-repos.ts";
import { sandbox } from "../../support/sandbox.ts";

async function rejection(p: Promise<unknown>): Promise<LemonError> {
  try {
    await p;
  } catch (err) {
    if (LemonError.is(err)) return err;
    throw err;
  }
  throw new Error("expected a rejection");
}

test("a TMPDIR that does not exist: OPERATION_FAILED naming the temp dir, not NOT_FOUND", async () => {
  await using box = await sandbox();
  const repo = await singleSkillRepo(box.root, "up");
  await using lemon = createLemon({ cwd: box.project, env: box.env, curator: false });
  await lemon.skills.install(repo.url, { approve: true });
  await repo.commit({ "SKILL.md": skillMd("up", "second") });
  const ctx = createContext({ cwd: box.project, env: { ...box.env, TMPDIR: "/nonexistent" }, homeDir: box.home }, "t");
  const err = await rejection(updateSkill(ctx, "up", { global: true, approve: true, force: false, check: true }));
  expect(err.code).toBe("OPERATION_FAILED");
  expect(err.message).toBe("cannot create a temporary directory in /nonexistent");
});

test("A/skill being a regular file: one line naming it, not ENOTDIR", async () => {
  await using box = await sandbox();
  await box.write(join(box.agentDir, "skill"), "not a dir\n");
  await box.skill(join(box.root, "src"), "hello");
  await using lemon = createLemon({ cwd: box.project, env: box.env, curator: false });
  const err = await rejection(lemon.skills.install(join(box.root, "src", "hello"), { approve: true }));
  expect([err.code, err.message]).toEqual(["CONFLICT", `${join(box.agentDir, "skill")} is not a directory`]);
});
