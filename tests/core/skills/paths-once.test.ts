// A listing resolves the context into paths once (issue 10 "one to gain"): the registry hands its
// paths to the settings reader, the roots and the snapshot lookup instead of each resolving again.
import { expect, spyOn, test } from "bun:test";
import { join } from "node:path";
import * as paths from "../../../src/core/paths.ts";
import { createLemon } from "../../../src/core/index.ts";
import { sandbox } from "../../support/sandbox.ts";

test("skills.list resolves paths once per view", async () => {
  await using box = await sandbox();
  await box.skill(join(box.project, ".lemon/skill"), "s");
  await box.write(join(box.agentDir, "skills.json"), JSON.stringify({ disabled: [] }));
  const lemon = createLemon({ cwd: box.project, env: box.env, curator: false });
  await lemon.skills.list(); // loads the lazy modules and creates the relevance store first
  const spy = spyOn(paths, "resolvePaths");
  try {
    await lemon.skills.list();
    expect(spy).toHaveBeenCalledTimes(1);
    await lemon.skills.list({ refresh: true, scope: "project" });
    expect(spy).toHaveBeenCalledTimes(2);
  } finally {
    spy.mockRestore();
    await lemon.close();
  }
});
