// skills.md §2.1: a project root whose real path is a global root's (cwd = home) is that global
// root only (adv-install #5). A --local install, update or remove there is refused, so two
// scopes never claim one directory.
import { expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { createLemon } from "../../../src/core/index.ts";
import { sandbox } from "../../support/sandbox.ts";

test("--local --agent claude with cwd = home is refused; the global install of that root works", async () => {
  await using box = await sandbox();
  const src = join(box.root, "src");
  await box.skill(src, "good");
  await using lemon = createLemon({ cwd: box.home, env: box.env, curator: false });
  const err = await lemon.skills
    .install(join(src, "good"), { approve: true, global: false, agent: "claude" })
    .catch((e: { code: string; message: string }) => e);
  expect(err).toMatchObject({ code: "CONFLICT" });
  expect((err as { message: string }).message).toContain("global");
  expect(existsSync(join(box.home, ".claude", "skills", "good"))).toBe(false);
  expect(existsSync(join(box.home, ".lemon", "skills.lock.json"))).toBe(false);
  await lemon.skills.install(join(src, "good"), { approve: true, agent: "claude" });
  // The project scope has no record there and may not take the global one.
  await expect(lemon.skills.uninstall("good", { approve: true, global: false })).rejects.toBeDefined();
  expect(existsSync(join(box.home, ".claude", "skills", "good"))).toBe(true);
});
