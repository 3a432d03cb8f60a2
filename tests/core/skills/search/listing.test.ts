// `skill list` from a current search snapshot must be indistinguishable from scanning and parsing.
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { createLemon } from "../../../../src/core/index.ts";
import { discover } from "../../../../src/core/skills/catalog.ts";
import { corpusAvailable, CORPUS_DIR } from "../../../support/corpus.ts";
import { sandbox } from "../../../support/sandbox.ts";

describe("listing from the snapshot", () => {
  test.skipIf(!corpusAvailable())("the corpus lists identically from the snapshot and from the files", async () => {
    await using box = await sandbox();
    const env = { ...box.env, LEMON_AGENT_DIR: join(box.root, "agent"), LEMON_CLAUDE_SKILLS_DIR: CORPUS_DIR };
    await box.skill(join(box.project, ".lemon/skill"), "local-one", {
      name: "local-one",
      description: "A project skill beside the corpus.",
    });
    await box.skill(join(box.project, ".claude/skills"), "broken", "---\nname: [x\n---\n");
    const lemon = createLemon({ cwd: box.project, env });
    const parsed = await lemon.skills.list({ all: true, refresh: true });
    await lemon.skills.findRelevant("make a chart from a spreadsheet"); // builds both scope snapshots
    await lemon.close(); // snapshots are written behind the call
    const fresh = createLemon({ cwd: box.project, env });
    const viaSnapshot = await fresh.skills.list({ all: true });
    expect(viaSnapshot).toEqual(parsed);
    // And it really came from the snapshot: records rebuilt from it carry no body excerpt.
    const ctx = fresh.context;
    const { loadScopeFromSnapshot } = await import("../../../../src/core/skills/search/listing.ts");
    const { resolveRoots } = await import("../../../../src/core/skills/roots.ts");
    const { resolvePaths } = await import("../../../../src/core/paths.ts");
    const roots = resolveRoots(ctx);
    const load = await loadScopeFromSnapshot(
      roots.global,
      resolvePaths(ctx).global.lockfile,
      resolvePaths(ctx).snapshotDir,
    );
    expect(load).not.toBeNull();
    expect(load!.records.every((r) => !r.valid || r.bodyExcerpt === "")).toBe(true);
    const d = await discover(ctx, "both");
    expect(d.effective.size).toBe(viaSnapshot.skills.length);
  });

  test("an edit after the snapshot was built is listed (the snapshot is no longer current)", async () => {
    await using box = await sandbox();
    const file = await box.skill(join(box.project, ".lemon/skill"), "s", {
      name: "s",
      description: "first description of the skill",
    });
    await box.skill(join(box.project, ".lemon/skill"), "t", { name: "t", description: "another skill for the scope" });
    const lemon = createLemon({ cwd: box.project, env: box.env });
    await lemon.skills.findRelevant("skill description", { refresh: true });
    writeFileSync(file, "---\nname: s\ndescription: the second description, changed in place\n---\nbody\n");
    const other = createLemon({ cwd: box.project, env: box.env });
    expect((await other.skills.get("s"))!.description).toBe("the second description, changed in place");
    writeFileSync(file, "---\nname: [broken\n---\n");
    const third = createLemon({ cwd: box.project, env: box.env });
    const list = await third.skills.list({ all: true });
    expect(list.skills.map((x) => x.key)).toEqual(["t"]);
    expect(list.invalid.map((x) => [x.key, x.code])).toEqual([["s", "parse_error"]]);
  });
});

describe("listing never trusts a broken snapshot", () => {
  test("truncated or foreign snapshot files fall back to reading the skills", async () => {
    await using box = await sandbox();
    for (const k of ["a", "b", "c"])
      await box.skill(join(box.project, ".lemon/skill"), k, {
        name: k,
        description: `skill ${k} for the snapshot test`,
      });
    const lemon = createLemon({ cwd: box.project, env: box.env });
    await lemon.skills.findRelevant("snapshot test skill", { refresh: true });
    await lemon.close(); // the snapshot is written behind the call; close waits for it
    const { readdirSync, readFileSync } = await import("node:fs");
    const dir = join(box.agentDir, "cache", "skills");
    const snap = readdirSync(dir).find((n) => n.endsWith(".snap"))!;
    const bytes = readFileSync(join(dir, snap));
    writeFileSync(join(dir, snap), bytes.subarray(0, Math.floor(bytes.length / 2)));
    expect((await createLemon({ cwd: box.project, env: box.env }).skills.list()).skills.map((s) => s.key)).toEqual([
      "a",
      "b",
      "c",
    ]);
    writeFileSync(join(dir, snap), "LEMSNAP but not really a snapshot at all");
    expect((await createLemon({ cwd: box.project, env: box.env }).skills.list()).skills.map((s) => s.key)).toEqual([
      "a",
      "b",
      "c",
    ]);
  });
});

describe("a listing and a relevance call share one identity check", () => {
  test("within the 50 ms interval the listing reuses the relevance check; after it, it checks again", async () => {
    await using box = await sandbox();
    const file = await box.skill(join(box.project, ".lemon/skill"), "s", {
      name: "s",
      description: "the first description of s",
    });
    await box.skill(join(box.project, ".lemon/skill"), "t", { name: "t", description: "another skill in the scope" });
    let t = 1_000_000;
    const lemon = createLemon({ cwd: box.project, env: box.env, now: () => new Date(t) });
    await lemon.skills.findRelevant("description of s", { refresh: true }); // builds and checks at t
    writeFileSync(file, "---\nname: s\ndescription: the second description, changed in place\n---\nbody\n");
    // Same instant: the check that just ran vouches for the snapshot, so nothing is stat'ed again.
    expect((await lemon.skills.get("s"))!.description).toBe("the first description of s");
    t += 51;
    // Past the interval: the listing checks, finds the edit, and reads the file instead.
    expect((await lemon.skills.get("s"))!.description).toBe("the second description, changed in place");
    // The relevance call sees it too, and rebuilds.
    expect((await lemon.skills.findRelevant("second description changed"))[0]?.key).toBe("s");
    await lemon.close();
  });
});
