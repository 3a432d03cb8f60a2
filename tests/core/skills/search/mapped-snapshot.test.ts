// A mapped snapshot damaged in place by another program (skills.md §7.3: bad bytes mean a
// rebuild, never a crash): the store stats the snapshot file before each use and drops a mapping
// whose file changed. Run in a child process: the failure this guards against is a SIGBUS.
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { sandbox, type Sandbox } from "../../../support/sandbox.ts";

const CHILD = join(import.meta.dir, "fixtures", "mapped-child.ts");

async function skills(box: Sandbox, n: number): Promise<void> {
  for (let i = 0; i < n; i++)
    await box.skill(
      "global-skills",
      `zebra-${String(i).padStart(3, "0")}`,
      { name: `zebra-${i}`, description: `Zebra grooming, stripe count ${i}.` },
      `# zebra ${i}\n\n${"Brushes, combs and hooves. ".repeat(200)}\n`,
    );
}

async function run(mode: string): Promise<{ code: number; out: string; err: string }> {
  await using box = await sandbox();
  await skills(box, 80);
  const cfg = {
    cwd: box.project,
    agentDir: box.agentDir,
    root: join(box.root, "global-skills"),
    query: "zebra grooming",
  };
  const p = Bun.spawn([process.execPath, CHILD, mode, JSON.stringify(cfg)], {
    stdout: "pipe",
    stderr: "pipe",
    env: { PATH: process.env.PATH ?? "" },
  });
  const [out, err] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text()]);
  return { code: await p.exited, out, err };
}

describe("a mapped snapshot changed in place", () => {
  for (const mode of ["truncate", "rewrite"])
    test(`${mode}: the next call reopens or rebuilds it, right away and after the interval`, async () => {
      const r = await run(mode);
      expect({ code: r.code, err: r.code === 0 ? "" : r.err }).toEqual({ code: 0, err: "" });
      const got = JSON.parse(r.out) as { before: string[]; now: string[]; later: string[] };
      expect(got.before.length).toBe(50);
      expect(got.now).toEqual(got.before);
      expect(got.later).toEqual(got.before);
    }, 30_000);
});
