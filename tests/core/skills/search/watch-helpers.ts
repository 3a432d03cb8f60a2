// What the watched-catalog tests share: the instance's snapshot store, a poll with a generous
// deadline, a query's keys and one agent turn.
import { join } from "node:path";
import type { LogEntry } from "../../../../src/core/context.ts";
import { createLemon, type Lemon } from "../../../../src/core/index.ts";
import { registryOf } from "../../../../src/core/internals.ts";
import { resolveRoots } from "../../../../src/core/skills/roots.ts";
import type { SnapshotStore } from "../../../../src/core/skills/search/store.ts";
import { WatchState } from "../../../../src/core/skills/search/watcher.ts";
import type { Sandbox } from "../../../support/sandbox.ts";

export const md = (name: string, description: string) =>
  `---\nname: ${name}\ndescription: ${description}\n---\nBody.\n`;

/** An instance over one global root (`g` in the sandbox unless named), its log kept in `logs`. */
export function lemonFor(box: Sandbox, logs: LogEntry[] = [], globalRoot = join(box.root, "g")): Lemon {
  return createLemon({
    cwd: box.project,
    agentDir: box.agentDir,
    env: { ...box.env, LEMON_SNAPSHOT_WORKER: "never" },
    skillRoots: { agents: null, omp: null, claude: globalRoot, codex: null },
    curator: false,
    log: (e) => logs.push(e),
  });
}

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

/** Turns until the global scope's watch is armed and vouching (the second check arms it). */
export async function armed(l: Lemon, q = "zebra"): Promise<SnapshotStore> {
  const store = await storeOf(l);
  const roots = resolveRoots(l.context).global;
  await until(async () => {
    await l.skills.findRelevant(q);
    const before = store.counts.watched;
    await turn();
    await l.skills.findRelevant(q);
    return store.watchOf(roots)?.state === WatchState.Armed && store.counts.watched > before;
  }, "the watch to vouch");
  return store;
}
