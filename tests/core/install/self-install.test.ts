// Installing a directory that holds lemon's own state (a project that is also a skill, adv-install
// #10): the bundle never takes `.git` (install.md §7.1), `.lemon` (P, the lockfile, installed
// skills), the destination root or A, so a re-install does not nest a copy of itself.
import { expect, test } from "bun:test";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { createLemon } from "../../../src/core/index.ts";
import { sandbox } from "../../support/sandbox.ts";

test("a project installed as its own skill bundles none of lemon's state, however often it is re-installed", async () => {
  await using box = await sandbox();
  await box.write(
    join(box.project, "SKILL.md"),
    "---\nname: project\ndescription: A project that is also a skill.\n---\n\n# P\n",
  );
  await box.write(join(box.project, ".git", "config"), "[core]\n");
  await box.write(join(box.project, ".hidden.md"), "kept: hidden files are part of a bundle\n");
  await using lemon = createLemon({ cwd: box.project, env: box.env, curator: false });
  const first = await lemon.skills.install(".", { approve: true, global: false });
  const again = await lemon.skills.install(".", { approve: true, global: false, force: true });
  const dest = join(box.project, ".lemon", "skill", "project");
  expect(again.lock.bundle_hash).toBe(first.lock.bundle_hash);
  expect(readdirSync(dest).sort()).toEqual([".hidden.md", "SKILL.md"]);
  // Into another tool's project root: that root is inside the source and stays out too.
  const claude = await lemon.skills.install(".", { approve: true, global: false, agent: "claude", as: "p2" });
  const claudeDest = join(box.project, ".claude", "skills", "p2");
  expect(readdirSync(claudeDest).sort()).toEqual([".hidden.md", "SKILL.md"]);
  expect(claude.lock.bundle_hash).toBe(first.lock.bundle_hash);
  const twice = await lemon.skills.install(".", {
    approve: true,
    global: false,
    agent: "claude",
    as: "p2",
    force: true,
  });
  expect(twice.lock.bundle_hash).toBe(first.lock.bundle_hash);
  expect(existsSync(join(claudeDest, ".claude"))).toBe(false);
});
