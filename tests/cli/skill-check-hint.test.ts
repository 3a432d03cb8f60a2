// `lemon skill check`'s updates line points at a command that works as written: installs never
// checked upstream name `lemon skill update --all --check` (and its --local form for project
// installs), and running exactly those records the check that the next `check` reports.
import { expect, test } from "bun:test";
import { join } from "node:path";
import { sandbox } from "../support/sandbox.ts";

const HINT = "run 'lemon skill update --all --check' to look upstream, with --local for project installs";

test("the never-checked hint names commands that exit 0 and clear it", async () => {
  await using box = await sandbox();
  await box.skill(join(box.root, "src"), "mine");
  await box.skill(join(box.root, "src"), "ours");
  const src = (k: string) => join(box.root, "src", k);
  expect((await box.cli(["skill", "install", src("mine"), "--approve"])).code).toBe(0);
  expect((await box.cli(["skill", "install", src("ours"), "--local", "--approve"])).code).toBe(0);
  const before = await box.cli(["skill", "check"]);
  expect(before.code).toBe(0);
  expect(before.stdout).toContain(`updates: unknown, never checked (${HINT})\n`);
  // The hint's commands, word for word (the leading `lemon` is the CLI itself).
  const command = /run '([^']+)'/.exec(HINT)![1]!.split(" ").slice(1);
  for (const argv of [command, [...command, "--local"]]) {
    const r = await box.cli(argv);
    expect({ argv, code: r.code, stderr: r.stderr }).toEqual({ argv, code: 0, stderr: "" });
  }
  const after = await box.cli(["skill", "check"]);
  expect(after.stdout).toContain("updates: 0 available as of the last check\n");
  expect(after.stdout).not.toContain("never checked");
});
