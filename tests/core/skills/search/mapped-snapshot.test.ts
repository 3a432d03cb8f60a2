// A mapped snapshot damaged in place by another program (skills.md §7.3: bad bytes mean a
// rebuild, never a crash): the store stats the snapshot file before each use and drops a mapping
// whose file changed. Run in a child process: the failure this guards against is a SIGBUS.
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, renameSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { mappingIntact, readSnapshotFile } from "../../../../src/core/skills/search/file.ts";
import { openSnapshot } from "../../../../src/core/skills/search/format.ts";
import { lemonFor } from "./lemon-for.ts";
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

describe("mappingIntact", () => {
  test("true while the mapped file is untouched or the snapshot is in memory; false once it is rewritten or replaced", async () => {
    await using box = await sandbox();
    await skills(box, 3);
    {
      await using l = lemonFor(box);
      await l.skills.findRelevant("zebra");
    }
    const dir = join(box.agentDir, "cache", "skills");
    const file = join(dir, readdirSync(dir).find((f) => f.endsWith(".snap"))!);
    const bytes = readFileSync(file);
    const inMemory = openSnapshot(new Uint8Array(bytes), false);
    if (typeof inMemory === "string") throw new Error(inMemory);
    expect(mappingIntact(inMemory)).toBe(true);
    const a = readSnapshotFile(file)!;
    expect(a.mapped).toBe(true);
    expect(mappingIntact(a)).toBe(true);
    // Same bytes written in place, times set back: the ctime still moves.
    const st = Bun.file(file);
    const mtime = new Date(st.lastModified);
    writeFileSync(file, bytes);
    utimesSync(file, mtime, mtime);
    expect(mappingIntact(a)).toBe(false);
    // A new file renamed over the path: another inode.
    const b = readSnapshotFile(file)!;
    expect(mappingIntact(b)).toBe(true);
    writeFileSync(`${file}.new`, bytes);
    renameSync(`${file}.new`, file);
    expect(mappingIntact(b)).toBe(false);
  });
});
