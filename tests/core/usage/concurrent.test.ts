// Issue 12 §5: many concurrent processes recording loads lose no count. Eight real processes each
// load skills 125 times through lemon.readSkill (the sidecar updated under its lock per load).
import { expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { sandbox } from "../../support/sandbox.ts";

const INDEX = join(import.meta.dir, "../../../src/core/index.ts");

const WORKER = `
import { createLemon } from ${JSON.stringify(INDEX)};
const [cwd, agentDir, n, id] = process.argv.slice(2);
const lemon = createLemon({ cwd, agentDir, env: { PATH: process.env.PATH }, curator: false, readConfigFile: false });
let diagnostics = 0;
lemon.events.on("diagnostic", () => diagnostics++);
for (let i = 0; i < Number(n); i++) {
  const key = i % 2 === 0 ? "global-skill" : "project-skill";
  const r = await lemon.readSkill({ key, view: "summary" }, { toolCallId: id + "-" + i });
  if (r.isError) throw new Error(JSON.stringify(r.content));
}
await lemon.close();
if (diagnostics > 0) throw new Error(diagnostics + " loads not recorded");
`;

test("1,000 loads from 8 concurrent processes: every one counted, in both scopes", async () => {
  await using box = await sandbox();
  await box.skill(join(box.agentDir, "skill"), "global-skill");
  await box.skill(join(box.project, ".lemon/skill"), "project-skill");
  const script = await box.write("load-worker.ts", WORKER);
  const children = Array.from({ length: 8 }, (_, i) =>
    Bun.spawn([process.execPath, script, box.project, box.agentDir, "125", String(i)], {
      stdout: "ignore",
      stderr: "inherit",
    }),
  );
  expect(await Promise.all(children.map((c) => c.exited))).toEqual(Array(8).fill(0));
  const global = JSON.parse(readFileSync(join(box.agentDir, "skills.usage.json"), "utf8"));
  const project = JSON.parse(readFileSync(join(box.project, ".lemon/skills.usage.json"), "utf8"));
  // Even iterations load the global skill: 63 of each process's 125, the other 62 the project one.
  expect(global.skills["global-skill"].load_count).toBe(8 * 63);
  expect(project.skills["project-skill"].load_count).toBe(8 * 62);
  expect(global.skills["global-skill"].last_view).toBe("summary");
  // Nothing left behind: no lock directory, no temp file.
  expect(existsSync(join(box.agentDir, "skills.usage.json.lock"))).toBe(false);
  expect(readdirSync(box.agentDir).filter((n) => n.includes(".tmp-") || n.includes(".lock"))).toEqual([]);
  expect(readdirSync(join(box.project, ".lemon")).filter((n) => n.includes(".tmp-") || n.includes(".lock"))).toEqual(
    [],
  );
}, 120_000);
