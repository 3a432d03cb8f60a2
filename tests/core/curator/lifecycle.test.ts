// The whole loop with the real pieces: an agent creates a skill with skill_manage, reads it with
// read_skill, goes quiet; the curator marks it stale, later archives it (disabled, never
// deleted), and skill_manage restore brings it back.
import { expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { createLemon } from "../../../src/core/index.ts";
import { sandbox } from "../../support/sandbox.ts";

const DAY = 86_400_000;
const T0 = new Date("2026-08-01T09:00:00Z");

test("skill_manage create, then the curator: stale after 30 idle days, archived after 90, restored", async () => {
  await using box = await sandbox();
  let now = T0;
  await using lemon = createLemon({ cwd: box.project, env: box.env, curator: false, now: () => now });
  const content = [
    "---",
    "name: flaky-ci-retry",
    "description: Use this when a CI job fails intermittently and needs a bounded retry.",
    "---",
    "",
    "Retry the failing job once; if it fails again, read the log before retrying.",
    "",
  ].join("\n");
  const created = await lemon.skillManage({ action: "create", name: "flaky-ci-retry", content }, { agentId: "a1" });
  expect(created.isError).toBe(false);
  const read = await lemon.readSkill({ key: "flaky-ci-retry" });
  expect(read.isError).toBe(false);

  now = new Date(T0.getTime() + 10 * DAY);
  let r = await lemon.skills.curator.run({ scope: "project" });
  expect(r.run!.summary).toBe("checked=1 stale=0 archived=0 reactivated=0");

  now = new Date(T0.getTime() + 40 * DAY);
  r = await lemon.skills.curator.run({ scope: "project" });
  expect(r.run!.marked_stale).toEqual(["flaky-ci-retry"]);
  expect(r.run!.review_required).toBe(true);
  expect(r.prompt).toBeNull();
  expect(await lemon.skills.curator.reviewPrompt({ scope: "project" })).toContain(
    "- flaky-ci-retry (state: stale; idle days: 40; stale candidate)",
  );

  now = new Date(T0.getTime() + 100 * DAY);
  r = await lemon.skills.curator.run({ scope: "project" });
  expect(r.run!.state_transitions).toEqual([{ name: "flaky-ci-retry", from: "stale", to: "archived" }]);
  const entry = await lemon.skills.get("flaky-ci-retry", { refresh: true });
  expect(entry?.activation_state).toBe("disabled");
  expect(existsSync(join(box.project, ".lemon", "skill", "flaky-ci-retry", "SKILL.md"))).toBe(true);

  const restored = await lemon.skillManage({ action: "restore", name: "flaky-ci-retry" });
  expect(restored.isError).toBe(false);
  expect((await lemon.skills.get("flaky-ci-retry", { refresh: true }))?.activation_state).toBe("active");
  const rows = (await lemon.skills.curator.status({ scope: "project" })).rows;
  expect(rows.map((x) => [x.name, x.lifecycle_state, x.agent_authored])).toEqual([["flaky-ci-retry", "active", true]]);
});
