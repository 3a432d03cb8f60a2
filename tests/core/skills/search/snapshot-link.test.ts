// A symlink planted at a snapshot path (adversarial report F7): the cache is disposable, so lemon
// neither reads through the link nor writes into its target; the rebuilt snapshot replaces the link.
import { expect, test } from "bun:test";
import { lstatSync, readdirSync, readFileSync, statSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { registryOf } from "../../../../src/core/internals.ts";
import { SNAPSHOT_MAGIC } from "../../../../src/core/skills/search/format.ts";
import { sandbox } from "../../../support/sandbox.ts";
import { lemonFor } from "./lemon-for.ts";

test("a symlink at the snapshot path is not read: the rebuilt snapshot replaces the link", async () => {
  await using box = await sandbox();
  await box.skill("global-skills", "terraform", { name: "terraform", description: "Terraform modules." });
  const dir = join(box.agentDir, "cache", "skills");
  {
    await using l = lemonFor(box);
    expect((await l.skills.findRelevant("terraform")).map((e) => e.key)).toEqual(["terraform"]);
    await (await registryOf(l)).relevance().store.settled();
  }
  const name = readdirSync(dir).find((f) => f.endsWith(".snap"))!;
  const path = join(dir, name);
  const good = readFileSync(path);
  // The target holds the current snapshot: a read through the link would use it and write nothing.
  const precious = join(box.root, "precious");
  writeFileSync(precious, good);
  const ino = statSync(precious).ino;
  unlinkSync(path);
  symlinkSync(precious, path);
  {
    await using l = lemonFor(box);
    expect((await l.skills.findRelevant("terraform")).map((e) => e.key)).toEqual(["terraform"]);
    await (await registryOf(l)).relevance().store.settled();
  }
  expect(statSync(precious).ino).toBe(ino);
  expect(readFileSync(precious).equals(good)).toBe(true);
  expect(lstatSync(path).isFile()).toBe(true);
  expect(readFileSync(path).subarray(0, 7).toString()).toBe(SNAPSHOT_MAGIC);
});

test("a dangling symlink at the snapshot path creates nothing at its target", async () => {
  await using box = await sandbox();
  await box.skill("global-skills", "terraform", { name: "terraform", description: "Terraform modules." });
  const dir = join(box.agentDir, "cache", "skills");
  {
    await using l = lemonFor(box);
    await l.skills.findRelevant("terraform");
    await (await registryOf(l)).relevance().store.settled();
  }
  const path = join(dir, readdirSync(dir).find((f) => f.endsWith(".snap"))!);
  unlinkSync(path);
  const target = join(box.root, "planted");
  symlinkSync(target, path);
  await box.skill("global-skills", "ansible", { name: "ansible", description: "Ansible playbooks." });
  {
    await using l = lemonFor(box);
    expect((await l.skills.findRelevant("ansible playbooks")).map((e) => e.key)).toEqual(["ansible"]);
    await (await registryOf(l)).relevance().store.settled();
  }
  expect(readdirSync(box.root)).not.toContain("planted");
  expect(lstatSync(path).isFile()).toBe(true);
});
