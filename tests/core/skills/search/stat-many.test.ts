// statMany (the identity check's stat pass) must give exactly fs.statSync's numbers, whichever
// way a path is stat'ed (thread pool or fs.statSync): the identity digest of a stats-only check
// has to equal the one the full scan stored.
import { expect, test } from "bun:test";
import { mkdirSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Kind, STAT_FIELDS, headShare, put, statMany, statOne } from "../../../../src/core/skills/search/stat-many.ts";
import { sandbox } from "../../../support/sandbox.ts";

test("statMany agrees with fs.statSync on files, directories, links, missing and odd paths", async () => {
  await using box = await sandbox();
  const paths: string[] = [];
  for (let i = 0; i < 700; i++) {
    const dir = join(box.root, `d${i % 50}`, `s${i}`);
    mkdirSync(dir, { recursive: true });
    const file = join(dir, "SKILL.md");
    writeFileSync(file, "x".repeat(i));
    paths.push(file, dir);
  }
  symlinkSync(join(box.root, "d0"), join(box.root, "link"));
  symlinkSync(join(box.root, "nowhere"), join(box.root, "dangling"));
  writeFileSync(join(box.root, "é ü 技能.md"), "unicode");
  paths.push(
    join(box.root, "link"),
    join(box.root, "dangling"),
    join(box.root, "missing", "SKILL.md"),
    join(box.root, "é ü 技能.md"),
    `${box.root}/${"a".repeat(5000)}`,
    "/dev/null",
    "",
  );
  // One list, and the same list in two parts (the identity check's head and lazily decoded rest):
  // below PARALLEL_MIN and above it (the pool takes the head, this thread the rest), and past the
  // pool's window of requests in flight.
  // With and without the thread pool (an idle core or not).
  const runs: { n: number; split: boolean; idle: boolean }[] = [];
  for (const n of [paths.length, 3000, 9000])
    for (const split of [false, true]) for (const idle of [false, true]) runs.push({ n, split, idle });
  runs.push({ n: 17_000, split: true, idle: true });
  // What fs.statSync says of each path, once (the lists below repeat them).
  const one = new Float64Array(paths.length * STAT_FIELDS);
  for (const [i, p] of paths.entries()) put(one, i, statOne(p));
  // The kinds come from the mode bits: they must read as Stats' own isFile / isDirectory.
  const kindOf = paths.map((p) => {
    const st = statOne(p) && statSync(p);
    return st === undefined ? Kind.Missing : st.isFile() ? Kind.File : st.isDirectory() ? Kind.Dir : Kind.Other;
  });
  for (const { n, split, idle } of runs) {
    const list = Array.from({ length: n }, (_, i) => paths[i % paths.length]!);
    const from = 100;
    const cut = Math.floor(n * headShare(n));
    let decoded = 0;
    const { table: got, odd } = await statMany(
      split
        ? {
            head: list.slice(0, cut),
            total: n,
            rest: () => {
              decoded++;
              return list.slice(cut);
            },
          }
        : list,
      from,
      () => idle,
    );
    if (split) expect(decoded).toBe(1);
    const want = new Float64Array(n * STAT_FIELDS);
    for (let i = 0; i < n; i++)
      want.set(one.subarray((i % paths.length) * STAT_FIELDS, ((i % paths.length) + 1) * STAT_FIELDS), i * STAT_FIELDS);
    expect(Buffer.from(got.buffer).equals(Buffer.from(want.buffer))).toBe(true);
    const kinds = list.map((_, i) => kindOf[i % paths.length]!);
    expect(kinds.map((_, i) => got[i * STAT_FIELDS + 5])).toEqual(kinds);
    const notFiles = kinds.flatMap((k, i) => (i >= from && k !== Kind.File ? [i] : []));
    expect([...odd].sort((a, b) => a - b)).toEqual(notFiles);
  }
}, 30_000);
