// The edges of skills.watch (catalog-watch.ts): a failing listener is logged once, an async one
// that rejects never leaves an unhandled rejection; polls of a subscription with an unwatched
// scope back off while nothing changes; a closed store arms nothing again.
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { LogEntry } from "../../../../src/core/context.ts";
import { registryOf } from "../../../../src/core/internals.ts";
import { resolvePaths } from "../../../../src/core/paths.ts";
import { resolveRoots } from "../../../../src/core/skills/roots.ts";
import { nextPoll, POLL_MAX_MS, POLL_MS } from "../../../../src/core/skills/search/catalog-watch.ts";
import { sandbox } from "../../../support/sandbox.ts";
import { lemonFor, md, until } from "./watch-helpers.ts";

describe("skills.watch edges", () => {
  test("a listener that throws, and an async one that rejects, are each logged once", async () => {
    await using box = await sandbox();
    await box.skill("g", "alpha", md("alpha", "Zebra grooming."));
    const logs: LogEntry[] = [];
    await using l = lemonFor(box, logs);
    const rejections: unknown[] = [];
    const onRejection = (err: unknown) => rejections.push(err);
    process.on("unhandledRejection", onRejection);
    try {
      let calls = 0;
      const stops = [
        l.skills.watch(() => {
          calls++;
          throw new Error("sync boom");
        }),
        l.skills.watch(async () => {
          await Bun.sleep(1);
          throw new Error("async boom");
        }),
      ];
      await Bun.sleep(300);
      for (let i = 0; i < 3; i++) {
        const before = calls;
        writeFileSync(join(box.root, "g/alpha/SKILL.md"), md("alpha", `Zebra ${i}.`));
        await until(() => calls > before, `change ${i}`);
        await Bun.sleep(150);
      }
      for (const stop of stops) stop();
      const warned = (s: string) => logs.filter((e) => e.message.includes(s)).length;
      expect([warned("listener threw: sync boom"), warned("listener rejected: async boom")]).toEqual([1, 1]);
      expect(rejections).toEqual([]);
    } finally {
      process.off("unhandledRejection", onRejection);
    }
  });

  test("polls back off while unchanged and reset on a change or when every scope is watched", () => {
    let d = POLL_MS;
    const seen: number[] = [];
    for (let i = 0; i < 6; i++) seen.push((d = nextPoll(d, false, false)));
    expect(seen).toEqual([500, 1000, 2000, POLL_MAX_MS, POLL_MAX_MS, POLL_MAX_MS]);
    expect(nextPoll(POLL_MAX_MS, true, false)).toBe(POLL_MS);
    expect(nextPoll(POLL_MAX_MS, false, true)).toBe(POLL_MS);
  });

  test("a closed store arms nothing again: not a check still in flight, not a late subscription", async () => {
    await using box = await sandbox();
    await box.skill("g", "alpha", md("alpha", "Zebra grooming."));
    const l = lemonFor(box, []);
    const store = (await registryOf(l)).relevance().store;
    const req = { roots: resolveRoots(l.context).global, lockfile: resolvePaths(l.context).global.lockfile };
    const inflight = store.current({ ...req, refresh: false });
    await l.close();
    await inflight;
    expect(await store.watchScope(req)).toBeNull();
    let closed = false;
    const release = store.watches.hold(() => {
      closed = true;
    });
    expect(closed).toBe(true);
    release();
    await Bun.sleep(50);
    expect(store.watchOf(req.roots)).toBeNull();
  });

  test("after lemon.close(), watch() is a no-op and findRelevant keeps working without arming a watch", async () => {
    await using box = await sandbox();
    await box.skill("g", "alpha", md("alpha", "Zebra grooming."));
    const l = lemonFor(box, []);
    expect((await l.skills.findRelevant("zebra grooming")).map((e) => e.key)).toEqual(["alpha"]);
    await l.close();
    const stop = l.skills.watch(() => {});
    for (let i = 0; i < 3; i++) {
      await Bun.sleep(60);
      expect((await l.skills.findRelevant("zebra grooming")).map((e) => e.key)).toEqual(["alpha"]);
    }
    const store = (await registryOf(l)).relevance().store;
    expect(store.watchOf(resolveRoots(l.context).global)).toBeNull();
    stop();
    await l.close();
  });
});
