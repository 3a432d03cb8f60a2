// What the watched-catalog tests share: the instance's snapshot store, a poll with a generous
// deadline, a query's keys and one agent turn.
import type { Lemon } from "../../../../src/core/index.ts";
import { registryOf } from "../../../../src/core/internals.ts";
import type { SnapshotStore } from "../../../../src/core/skills/search/store.ts";

export async function storeOf(l: Lemon): Promise<SnapshotStore> {
  return (await registryOf(l)).relevance().store;
}

/** Polls `ok` until it holds (no timing assertion: a generous deadline only fails a hung test). */
export async function until(ok: () => boolean | Promise<boolean>, what: string, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(5);
  }
}

export const keys = async (l: Lemon, q: string) =>
  (await l.skills.findRelevant(q, { maxResults: 10 })).map((e) => e.key);

/** One agent turn: past the 50 ms check interval. */
export const turn = () => Bun.sleep(60);
