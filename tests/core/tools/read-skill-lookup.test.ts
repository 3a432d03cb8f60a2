// The one-key lookup of the agent tools (tools/lookup.ts) must answer exactly what a listing does.
import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { createLemon, type Lemon } from "../../../src/core/index.ts";
import { registryOf } from "../../../src/core/internals.ts";
import type { RecordCache } from "../../../src/core/skills/catalog.ts";
import { resolvePaths } from "../../../src/core/paths.ts";
import { resolveRoots } from "../../../src/core/skills/roots.ts";
import { lookupKey } from "../../../src/core/skills/tools/lookup.ts";
import { corpusAvailable, CORPUS_DIR } from "../../support/corpus.ts";
import { sandbox, type Sandbox } from "../../support/sandbox.ts";

/** Builds both scopes' snapshots, then opens a fresh instance that finds them on disk. */
async function withSnapshots(box: Sandbox, env: Record<string, string | undefined>): Promise<Lemon> {
  const first = createLemon({ cwd: box.project, env });
  await first.skills.findRelevant("build deploy test skill description", { refresh: true });
  await first.close();
  return createLemon({ cwd: box.project, env });
}

/** Every listed key and a few that are not: the lookup's answer equals the listing's. */
async function sameAsListing(lemon: Lemon, extraKeys: string[]): Promise<void> {
  const reg = await registryOf(lemon);
  const cache: RecordCache = new Map();
  const view = await reg.view();
  for (const key of [...view.entries.map((e) => e.key), ...extraKeys]) {
    const found = await lookupKey(reg, lemon.context, key, cache);
    const listed = view.entries.find((e) => e.key === key);
    expect([key, found?.entry ?? null]).toEqual([key, listed ?? null]);
  }
}

/** Shadowed, invalid, hidden, disabled, nested, doubly reachable and blocked skills in both scopes. */
async function tricky(box: Sandbox): Promise<void> {
  const proj = join(box.project, ".lemon/skill");
  const claude = join(box.project, ".claude/skills");
  const global = join(box.agentDir, "skill");
  await box.skill(proj, "both", { name: "project both", description: "Project copy wins." });
  await box.skill(global, "both", { name: "global both", description: "Global copy is shadowed." });
  await box.skill(proj, "bad-here", "---\nname: [x\n---\nbody\n");
  await box.skill(claude, "bad-here", { name: "bad-here", description: "Valid in a later project root." });
  await box.skill(proj, "bad-everywhere", "---\nname: [x\n---\n");
  await box.skill(global, "bad-everywhere", "---\ndescription: [y\n---\n");
  await box.skill(proj, "hid", { name: "hid", description: "Hidden one.", hide: true });
  await box.skill(global, "off", { name: "off", description: "Disabled globally." });
  await box.skill(join(global, "cat"), "nested", { name: "nested", description: "One category level down." });
  await box.skill(global, "shared", { name: "shared", description: "Reached from the project too." });
  // The project reaches the global skill's directory under another key: it counts once, there.
  await box.link(join(global, "shared"), join(claude, "alias"));
  await box.write(join(box.agentDir, "skills.json"), JSON.stringify({ version: 1, disabled: ["off"] }));
  await box.skill(global, "blk", { name: "blk", description: "Blocked by its lock record." });
  await box.write(
    join(box.agentDir, "skills.lock.json"),
    JSON.stringify({
      version: 1,
      skills: {
        blk: { key: "blk", agent: "lemon", source_kind: "git", trust_level: "community", audit_status: "block" },
      },
    }),
  );
}

describe("one-key lookup", () => {
  test("precedence, shadowing, invalid files, hidden and disabled skills, a directory in both scopes", async () => {
    await using box = await sandbox();
    await tricky(box);
    await using lemon = await withSnapshots(box, box.env);
    await sameAsListing(lemon, ["nope", "bad-everywhere", "shared"]);
    const reg = await registryOf(lemon);
    const paths = resolvePaths(lemon.context);
    const roots = resolveRoots(lemon.context, paths);
    // The answers above came from the snapshots: both scopes have a current one.
    expect(await reg.relevance().store.peek({ roots: roots.global, lockfile: paths.global.lockfile })).not.toBeNull();
    expect(await reg.relevance().store.peek({ roots: roots.project, lockfile: paths.project.lockfile })).not.toBeNull();
    const hit = await lookupKey(reg, lemon.context, "both", new Map());
    expect(hit?.entry.name).toBe("project both");
    expect((await lookupKey(reg, lemon.context, "shared", new Map())) ?? "absent").toBe("absent");
    const blk = await lookupKey(reg, lemon.context, "blk", new Map());
    expect(blk?.entry).toMatchObject({ activation_state: "blocked", source_kind: "git", trust_level: "community" });
    const refused = await lemon.readSkill({ key: "blk" });
    expect(refused.content[0]).toEqual({
      type: "text",
      text: "Skill 'blk' is blocked by its security audit and cannot be loaded.",
    });
  });

  test("without current snapshots (scanning instead) the answers are the same", async () => {
    await using box = await sandbox();
    await tricky(box);
    await using lemon = createLemon({ cwd: box.project, env: box.env });
    await sameAsListing(lemon, ["nope", "bad-everywhere", "shared"]);
    // No snapshot was there to use, and looking a key up builds none.
    expect(existsSync(join(box.agentDir, "cache/skills"))).toBe(false);
  });

  test("an edit after the snapshot: the lookup sees the file as it is now", async () => {
    await using box = await sandbox();
    const file = await box.skill(join(box.project, ".lemon/skill"), "s", { name: "s", description: "before the edit" });
    await using lemon = await withSnapshots(box, box.env);
    expect((await lemon.readSkill({ key: "s", view: "summary" })).content[0]).toMatchObject({
      text: expect.stringContaining("Description: before the edit"),
    });
    await Bun.sleep(60); // past the store's check interval
    await Bun.write(file, "---\nname: s\ndescription: after the edit\n---\nbody\n");
    const r = await lemon.readSkill({ key: "s", view: "summary" });
    expect(r.content[0]).toMatchObject({ text: expect.stringContaining("Description: after the edit") });
  });

  test.skipIf(!corpusAvailable())(
    "every key of the corpus resolves as the listing says, from its snapshot",
    async () => {
      await using box = await sandbox();
      const env = { ...box.env, LEMON_CLAUDE_SKILLS_DIR: CORPUS_DIR };
      await box.skill(join(box.project, ".lemon/skill"), "local-one");
      await using lemon = await withSnapshots(box, env);
      await sameAsListing(lemon, ["not-a-corpus-key"]);
      const reg = await registryOf(lemon);
      const paths = resolvePaths(lemon.context);
      const roots = resolveRoots(lemon.context, paths).global;
      expect(await reg.relevance().store.peek({ roots, lockfile: paths.global.lockfile })).not.toBeNull();
    },
  );
});
