// Four real processes taking one lock three times each: the mutual-exclusion check the lock tests
// share (a stale lock recovered, a torn lock recovered).
import { expect } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Sandbox } from "../../support/sandbox.ts";

const LOCK_TS = join(import.meta.dir, "../../../src/core/fsx/lock.ts");

const WORKER = `
import { appendFileSync } from "node:fs";
import { acquireLock } from ${JSON.stringify(LOCK_TS)};
const [file, log] = process.argv.slice(2);
for (let round = 0; round < 3; round++) {
  const lock = await acquireLock(file, { timeoutMs: 20000, command: "race" });
  appendFileSync(log, "enter " + process.pid + "\\n");
  await Bun.sleep(4);
  appendFileSync(log, "leave " + process.pid + "\\n");
  await lock.release();
}
`;

/** Races four writers for `file`'s lock; every enter must be followed by the same process's leave. */
export async function raceForLock(box: Sandbox, file: string): Promise<void> {
  const log = join(box.root, "race.log");
  writeFileSync(log, "");
  const script = await box.write("race-worker.ts", WORKER);
  const children = [1, 2, 3, 4].map(() =>
    Bun.spawn([process.execPath, script, file, log], { stdout: "ignore", stderr: "inherit", cwd: box.root }),
  );
  expect(await Promise.all(children.map((c) => c.exited))).toEqual([0, 0, 0, 0]);
  const lines = readFileSync(log, "utf8").trim().split("\n");
  expect(lines.length).toBe(24);
  for (let i = 0; i < lines.length; i += 2) {
    expect(lines[i]).toStartWith("enter ");
    expect(lines[i + 1]).toBe(lines[i]!.replace("enter", "leave"));
  }
  expect(existsSync(`${file}.lock`)).toBe(false);
}
