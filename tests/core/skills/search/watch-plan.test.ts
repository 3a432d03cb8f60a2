// What a scope's watch covers (watch-plan.ts): only what discovery reads, without recursion
// (skills.md §2.2), plus the directories holding the symlinks on the way and any SKILL.md with
// other hard links, so a change is seen by the next call more than 50 ms later (§7.3).
import { describe, expect, test } from "bun:test";
import {
  linkSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { resolveRoots, type SkillRoot } from "../../../../src/core/skills/roots.ts";
import type { ScopeIdentity } from "../../../../src/core/skills/search/identity.ts";
import { watchPlan } from "../../../../src/core/skills/search/watch-plan.ts";
import { MAX_PLAN_WATCHES } from "../../../../src/core/skills/search/watcher.ts";
import { sandbox } from "../../../support/sandbox.ts";
import { armed, keys, lemonFor, md, turn } from "./watch-helpers.ts";

/** inotify watches this process holds (Linux), or null. */
function inotifyWatches(): number | null {
  if (process.platform !== "linux") return null;
  let n = 0;
  for (const fd of readdirSync("/proc/self/fdinfo")) {
    try {
      n += readFileSync(`/proc/self/fdinfo/${fd}`, "utf8").split("\ninotify wd:").length - 1;
    } catch {
      // Closed while listing.
    }
  }
  return n;
}

describe("scope watch plan", () => {
  test("a tree below a skill directory costs no watch; what discovery reads is watched without recursion", async () => {
    await using box = await sandbox();
    await box.skill("g", "alpha", md("alpha", "Zebra grooming."));
    await box.skill("g/cat", "beta", md("beta", "Walrus feeding."));
    for (let i = 0; i < 40; i++) mkdirSync(join(box.root, `g/alpha/node_modules/p${i}/lib/deep`), { recursive: true });
    for (let i = 0; i < 40; i++) mkdirSync(join(box.root, `g/cat/beta/docs/d${i}/x`), { recursive: true });
    const before = inotifyWatches();
    await using l = lemonFor(box);
    const store = await armed(l);
    const w = store.watchOf(resolveRoots(l.context).global)!;
    expect(w.plan.recursive).toEqual([]);
    expect((await w.paths()).sort()).toEqual(
      [join(box.root, "g"), join(box.root, "g/alpha"), join(box.root, "g/cat"), join(box.root, "g/cat/beta")].sort(),
    );
    const now = inotifyWatches();
    if (before !== null && now !== null) expect(now - before).toBeLessThan(40);
    // Still seen: an edit in a category's skill, a new skill in a new category.
    writeFileSync(join(box.root, "g/cat/beta/SKILL.md"), md("beta", "Zebra feeding."));
    await turn();
    expect((await keys(l, "zebra")).sort()).toEqual(["alpha", "beta"]);
    await box.skill("g/cat2", "gamma", md("gamma", "Zebra racing."));
    await turn();
    expect((await keys(l, "zebra")).sort()).toEqual(["alpha", "beta", "gamma"]);
  });

  test("a linked skill whose SKILL.md links into a subdirectory: an edit of the real file", async () => {
    await using box = await sandbox();
    await box.skill("g", "alpha", md("alpha", "Zebra grooming."));
    await box.write("ext/eps/docs/real.md", md("eps", "Walrus feeding."));
    symlinkSync("docs/real.md", join(box.root, "ext/eps/SKILL.md"));
    symlinkSync(join(box.root, "ext/eps"), join(box.root, "g/eps"));
    await using l = lemonFor(box);
    await armed(l);
    writeFileSync(join(box.root, "ext/eps/docs/real.md"), md("eps", "Okapi feeding."));
    await turn();
    expect(await keys(l, "okapi")).toEqual(["eps"]);
  });

  test("a linked skill directory replaced outside the roots: the new directory is watched", async () => {
    await using box = await sandbox();
    await box.skill("g", "alpha", md("alpha", "Zebra grooming."));
    await box.skill("ext", "eps", md("eps", "Walrus feeding."));
    symlinkSync(join(box.root, "ext/eps"), join(box.root, "g/eps"));
    await using l = lemonFor(box);
    await armed(l);
    rmSync(join(box.root, "ext/eps"), { recursive: true });
    await box.skill("ext", "eps", md("eps", "Okapi feeding."));
    await turn();
    expect(await keys(l, "okapi")).toEqual(["eps"]);
    await armed(l);
    writeFileSync(join(box.root, "ext/eps/SKILL.md"), md("eps", "Ibex feeding."));
    await turn();
    expect(await keys(l, "ibex")).toEqual(["eps"]);
  });

  test("a linked skill's target renamed away and back: seen both ways", async () => {
    await using box = await sandbox();
    await box.skill("g", "alpha", md("alpha", "Zebra grooming."));
    await box.skill("ext", "eps", md("eps", "Okapi feeding."));
    symlinkSync(join(box.root, "ext/eps"), join(box.root, "g/eps"));
    await using l = lemonFor(box);
    await armed(l);
    renameSync(join(box.root, "ext/eps"), join(box.root, "ext/eps-moved"));
    await turn();
    expect(await keys(l, "okapi")).toEqual([]);
    await armed(l);
    renameSync(join(box.root, "ext/eps-moved"), join(box.root, "ext/eps"));
    await turn();
    expect(await keys(l, "okapi")).toEqual(["eps"]);
  });

  test("a two-hop link retargeted at the middle hop", async () => {
    await using box = await sandbox();
    await box.skill("g", "alpha", md("alpha", "Zebra grooming."));
    await box.skill("ext", "chiA", md("chi", "Walrus feeding."));
    await box.skill("ext", "chiB", md("chi", "Okapi feeding."));
    mkdirSync(join(box.root, "ext/hops"));
    symlinkSync(join(box.root, "ext/chiA"), join(box.root, "ext/hops/hop"));
    symlinkSync(join(box.root, "ext/hops/hop"), join(box.root, "g/chi"));
    await using l = lemonFor(box);
    await armed(l);
    rmSync(join(box.root, "ext/hops/hop"));
    symlinkSync(join(box.root, "ext/chiB"), join(box.root, "ext/hops/hop"));
    await turn();
    expect(await keys(l, "okapi")).toEqual(["chi"]);
  });

  test("a root reached through a symlinked parent that is retargeted", async () => {
    await using box = await sandbox();
    await box.skill("real1/g", "alpha", md("alpha", "Zebra grooming."));
    await box.skill("real2/g", "alpha", md("alpha", "Okapi grooming."));
    symlinkSync(join(box.root, "real1"), join(box.root, "links"));
    await using l = lemonFor(box, [], join(box.root, "links/g"));
    await armed(l);
    rmSync(join(box.root, "links"));
    symlinkSync(join(box.root, "real2"), join(box.root, "links"));
    await turn();
    expect(await keys(l, "okapi")).toEqual(["alpha"]);
  });

  test("a SKILL.md with another hard link is watched itself: an edit through the other name", async () => {
    await using box = await sandbox();
    await box.skill("g", "alpha", md("alpha", "Zebra grooming."));
    linkSync(join(box.root, "g/alpha/SKILL.md"), join(box.root, "elsewhere.md"));
    await using l = lemonFor(box);
    const store = await armed(l);
    expect(await store.watchOf(resolveRoots(l.context).global)!.paths()).toContain(join(box.root, "g/alpha/SKILL.md"));
    writeFileSync(join(box.root, "elsewhere.md"), md("alpha", "Okapi grooming."));
    await turn();
    expect(await keys(l, "okapi")).toEqual(["alpha"]);
    // Replaced at its path by a new hard-linked file: the new inode is watched.
    writeFileSync(join(box.root, "other2.md"), md("alpha", "Walrus grooming."));
    rmSync(join(box.root, "g/alpha/SKILL.md"));
    linkSync(join(box.root, "other2.md"), join(box.root, "g/alpha/SKILL.md"));
    await turn();
    expect(await keys(l, "walrus")).toEqual(["alpha"]);
    await armed(l);
    writeFileSync(join(box.root, "other2.md"), md("alpha", "Ibex grooming."));
    await turn();
    expect(await keys(l, "ibex")).toEqual(["alpha"]);
  });

  test("a scope that would need more watches than the bound is not watched (the store then checks by stat)", () => {
    const root = { scope: "global", path: "/r", realPath: "/r", exists: true } as unknown as SkillRoot;
    const candidates = (n: number) =>
      Array.from({ length: n }, (_, i) => ({ realPath: `/r/s${i}`, skillFile: `/r/s${i}/SKILL.md` }));
    const idn = (n: number) =>
      ({ watchedPaths: () => ["/r"], candidates: () => candidates(n) }) as unknown as ScopeIdentity;
    const small = watchPlan([root], idn(3));
    expect("reason" in small ? small.reason : small.single).toEqual(["/r", "/r/s0", "/r/s1", "/r/s2"]);
    const big = watchPlan([root], idn(MAX_PLAN_WATCHES));
    expect("reason" in big ? big.reason : null).toContain(`more than ${MAX_PLAN_WATCHES}`);
  });
});
