// The stats-only identity check (identity.ts) must agree with the full scan after any change:
// either the watched stats prove the candidate set unchanged, or it falls back to scanning.
import { describe, expect, test } from "bun:test";
import {
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { createLemon } from "../../../../src/core/index.ts";
import { readSnapshotFile } from "../../../../src/core/skills/search/file.ts";
import { HEADER_BYTES, Section, fromUtf8 } from "../../../../src/core/skills/search/format.ts";
import { computeIdentity, sameIdentity } from "../../../../src/core/skills/search/identity.ts";
import { resolveRoots } from "../../../../src/core/skills/roots.ts";
import { sandbox, type Sandbox } from "../../../support/sandbox.ts";

async function snapshotOf(box: Sandbox) {
  const lemon = createLemon({
    cwd: box.project,
    agentDir: box.agentDir,
    env: { ...box.env, LEMON_SNAPSHOT_WORKER: "never" },
    skillRoots: { agents: null, omp: null, claude: join(box.root, "g"), codex: null },
    curator: false,
  });
  await lemon.skills.findRelevant("body", { refresh: true });
  const roots = resolveRoots(lemon.context).global;
  await lemon.close();
  const dir = join(box.agentDir, "cache", "skills");
  const snap = readSnapshotFile(join(dir, readdirSync(dir).find((f) => f.endsWith(".snap"))!))!;
  return { snap, roots, lock: join(box.agentDir, "skills.lock") };
}

const md = (name: string) => `---\nname: ${name}\ndescription: ${name} things.\n---\nBody of ${name}.\n`;

describe("identity check (skills.md §7.3)", () => {
  test("an unchanged tree is checked with stats only and matches the full scan", async () => {
    await using box = await sandbox();
    await box.skill("g", "alpha", md("alpha"));
    await box.skill("g/cat", "beta", md("beta"));
    const { snap, roots, lock } = await snapshotOf(box);
    const lean = await computeIdentity(roots, lock, snap);
    expect(lean.lean).toBe(true);
    expect(lean.count).toBe(2);
    expect(sameIdentity(lean.digest, snap.identity)).toBe(true);
    expect(lean.candidates().map((c) => [c.key, c.category, c.path, c.realPath])).toEqual(
      (await computeIdentity(roots, lock, null)).candidates().map((c) => [c.key, c.category, c.path, c.realPath]),
    );
  });

  const changes: [string, (box: Sandbox) => Promise<void> | void][] = [
    ["SKILL.md rewritten in place", (b) => writeFileSync(join(b.root, "g/alpha/SKILL.md"), md("alpha") + "more\n")],
    [
      "SKILL.md replaced by rename",
      (b) => {
        writeFileSync(join(b.root, "g/alpha/x"), md("alpha2"));
        renameSync(join(b.root, "g/alpha/x"), join(b.root, "g/alpha/SKILL.md"));
      },
    ],
    ["SKILL.md removed", (b) => unlinkSync(join(b.root, "g/alpha/SKILL.md"))],
    ["skill added at the top", async (b) => void (await b.skill("g", "gamma", md("gamma")))],
    ["skill added in a category", async (b) => void (await b.skill("g/cat", "delta", md("delta")))],
    [
      "SKILL.md added to an empty directory of a category",
      (b) => writeFileSync(join(b.root, "g/cat/empty/SKILL.md"), md("empty")),
    ],
    ["category renamed", (b) => renameSync(join(b.root, "g/cat"), join(b.root, "g/kat"))],
    [
      "linked skill retargeted",
      (b) => {
        unlinkSync(join(b.root, "g/linked"));
        symlinkSync(join(b.root, "elsewhere/two"), join(b.root, "g/linked"));
      },
    ],
    ["dangling link now resolves", (b) => void mkdirSync(join(b.root, "later"), { recursive: true })],
    ["directory removed", (b) => rmSync(join(b.root, "g/cat/empty"), { recursive: true })],
  ];
  for (const [what, change] of changes)
    test(`after: ${what}`, async () => {
      await using box = await sandbox();
      await box.skill("g", "alpha", md("alpha"));
      await box.skill("g/cat", "beta", md("beta"));
      mkdirSync(join(box.root, "g/cat/empty"), { recursive: true });
      await box.skill("elsewhere", "one", md("one"));
      await box.skill("elsewhere", "two", md("two"));
      symlinkSync(join(box.root, "elsewhere/one"), join(box.root, "g/linked"));
      symlinkSync(join(box.root, "later"), join(box.root, "g/dangling"));
      const { snap, roots, lock } = await snapshotOf(box);
      await Bun.sleep(5); // a new mtime even on coarse clocks
      await change(box);
      if (what === "dangling link now resolves") writeFileSync(join(box.root, "later/SKILL.md"), md("later"));
      const lean = await computeIdentity(roots, lock, snap);
      const full = await computeIdentity(roots, lock, null);
      expect(lean.hex).toBe(full.hex);
      expect(sameIdentity(lean.digest, snap.identity)).toBe(false);
    });

  test("a damaged PATHS section is never trusted or carried forward", async () => {
    await using box = await sandbox();
    await box.skill("g", "alpha", md("alpha"));
    await box.skill("g", "bravo", md("bravo"));
    const { snap, roots, lock } = await snapshotOf(box);
    const dir = join(box.agentDir, "cache", "skills");
    const file = join(dir, readdirSync(dir).find((f) => f.endsWith(".snap"))!);
    const original = fromUtf8(snap.paths); // a copy: the file is overwritten in place below, under the map
    expect(original.split("\0").filter((p) => p.endsWith("SKILL.md")).length).toBe(2);
    // Point alpha's PATHS entry at bravo's SKILL.md (same length): a file that exists, but the wrong one.
    const bytes = readFileSync(file);
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const at = view.getUint32(HEADER_BYTES + Section.Paths * 8, true);
    const len = view.getUint32(HEADER_BYTES + Section.Paths * 8 + 4, true);
    const damaged = fromUtf8(bytes.subarray(at, at + len)).replaceAll("/alpha/SKILL.md", "/bravo/SKILL.md");
    expect(damaged).not.toBe(fromUtf8(bytes.subarray(at, at + len)));
    bytes.set(Buffer.from(damaged), at);
    writeFileSync(file, bytes);
    const bad = readSnapshotFile(file)!;
    // The wrong stats miss the identity the snapshot was built with ...
    const lean = await computeIdentity(roots, lock, bad);
    expect(sameIdentity(lean.digest, bad.identity)).toBe(false);
    // ... so a query rebuilds, and the new PATHS comes from the scan again.
    const lemon = createLemon({
      cwd: box.project,
      agentDir: box.agentDir,
      env: { ...box.env, LEMON_SNAPSHOT_WORKER: "never" },
      skillRoots: { agents: null, omp: null, claude: join(box.root, "g"), codex: null },
      curator: false,
    });
    expect((await lemon.skills.findRelevant("alpha things")).map((e) => e.key)).toEqual(["alpha"]);
    await lemon.close();
    const rebuilt = readSnapshotFile(file)!;
    expect(fromUtf8(rebuilt.paths)).toBe(original);
    expect(sameIdentity((await computeIdentity(roots, lock, rebuilt)).digest, rebuilt.identity)).toBe(true);
  });

  test("a scope over the pool's threshold: PATHS read in two parts, the same digest, changes on either side seen", async () => {
    await using box = await sandbox();
    // More than PARALLEL_MIN paths, so the head/rest split and the pool run: directories without a
    // SKILL.md are watched paths too (PATHS lists them first), and cost no load in the build.
    for (let i = 0; i < 2040; i++) mkdirSync(join(box.root, "g", `c${i % 20}`, `empty${i}`), { recursive: true });
    for (let i = 0; i < 40; i++) await box.skill(`g/c${i % 20}`, `s${i}`, md(`s${i}`));
    const { snap, roots, lock } = await snapshotOf(box);
    const lean = await computeIdentity(roots, lock, snap);
    const full = await computeIdentity(roots, lock, null);
    expect(lean.lean).toBe(true);
    expect(lean.count).toBe(40);
    expect(lean.hex).toBe(full.hex);
    expect(sameIdentity(lean.digest, snap.identity)).toBe(true);
    expect(lean.pathsAgree()).toBe(true);
    // A second check of the same snapshot reuses its decoded paths and still agrees.
    expect((await computeIdentity(roots, lock, snap)).hex).toBe(full.hex);
    await Bun.sleep(5);
    // A SKILL.md (the end of PATHS) edited in place: stats only, and the digest moves with the full scan's.
    writeFileSync(join(box.root, "g/c1/s1/SKILL.md"), `${md("s1")}more\n`);
    const edited = await computeIdentity(roots, lock, snap);
    expect(edited.lean).toBe(true);
    expect(edited.hex).toBe((await computeIdentity(roots, lock, null)).hex);
    expect(edited.hex).not.toBe(full.hex);
    // A SKILL.md appearing in the first empty directory (the start of PATHS): a full scan finds it.
    writeFileSync(join(box.root, "g/c0/empty0/SKILL.md"), md("empty0"));
    const added = await computeIdentity(roots, lock, snap);
    expect(added.lean).toBe(false);
    expect(added.count).toBe(41);
  }, 30_000);
});
