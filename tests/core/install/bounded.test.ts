// The install code's one worker pool (install/bounded.ts): order, the bound, and a failure that
// starts nothing more and surfaces only once every started call has settled.
import { expect, test } from "bun:test";
import { bounded } from "../../../src/core/skills/install/bounded.ts";

test("results in input order, never more than the limit in flight", async () => {
  let inFlight = 0;
  let most = 0;
  const out = await bounded([5, 1, 4, 2, 3, 0, 6], 3, async (n) => {
    inFlight++;
    most = Math.max(most, inFlight);
    for (let i = 0; i < n; i++) await Promise.resolve();
    inFlight--;
    return n * 10;
  });
  expect(out).toEqual([50, 10, 40, 20, 30, 0, 60]);
  expect(most).toBe(3);
  expect(await bounded([], 4, async () => 1)).toEqual([]);
});

test("after a failure nothing new starts; the error comes once the started calls have settled", async () => {
  const started: number[] = [];
  let release!: () => void;
  const slow = new Promise<void>((r) => {
    release = r;
  });
  let slowDone = false;
  const run = bounded([0, 1, 2, 3, 4], 2, async (n) => {
    started.push(n);
    if (n === 0) {
      await slow;
      slowDone = true;
      return n;
    }
    throw new Error(`item ${n} failed`);
  });
  let settled = false;
  run.catch(() => {}).finally(() => (settled = true));
  for (let i = 0; i < 20; i++) await Promise.resolve();
  // Item 1 failed while item 0 is still running: the pool waits for it and starts no more.
  expect(started).toEqual([0, 1]);
  expect(settled).toBe(false);
  release();
  await expect(run).rejects.toThrow("item 1 failed");
  expect(slowDone).toBe(true);
  expect(started).toEqual([0, 1]);
});
