import { describe, expect, test } from "bun:test";
import { mkdir, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { createLemon } from "../../../src/core/index.ts";
import { resolveRoots } from "../../../src/core/skills/roots.ts";
import { createContext } from "../../../src/core/context.ts";
import { sandbox, type Sandbox } from "../../support/sandbox.ts";

const lemonFor = (box: Sandbox, extra: Record<string, string | undefined> = {}, cwd = box.project) =>
  createLemon({ cwd, env: { ...box.env, ...extra }, curator: false });

describe("roots and precedence (skills.md §2.1)", () => {
  test("project roots walk from cwd up to the repository root, then global roots", async () => {
    await using box = await sandbox();
    const sub = join(box.project, "pkg", "app");
    await mkdir(sub, { recursive: true });
    const ctx = createContext({ cwd: sub, env: box.env });
    const { project, global } = resolveRoots(ctx);
    const rel = (p: string) => p.replace(box.root + "/", "");
    expect(`${project[0]!.label}:${rel(project[0]!.path)}`).toBe("lemon:project/pkg/app/.lemon/skill");
    expect(project.slice(1).map((r) => r.label)).toEqual(
      Array(3).fill(["agents", "omp", "claude", "codex", "github"]).flat(),
    );
    expect(project.slice(1, 6).map((r) => rel(r.path))).toEqual([
      "project/pkg/app/.agents/skills",
      "project/pkg/app/.omp/skills",
      "project/pkg/app/.claude/skills",
      "project/pkg/app/.codex/skills",
      "project/pkg/app/.github/skills",
    ]);
    expect(project.at(-1)!.path).toBe(join(box.project, ".github/skills"));
    expect(project).toHaveLength(16);
    expect(global.map((r) => `${r.label}:${rel(r.path)}`)).toEqual([
      "lemon:home/.lemon/agent/skill",
      "agents:home/.agents/skills",
      "omp:home/.omp/agent/skills",
      "claude:home/.claude/skills",
      "codex:home/.codex/skills",
    ]);
  });

  test("outside a repository only the cwd itself is walked", async () => {
    await using box = await sandbox({ git: false });
    const sub = join(box.project, "a");
    await mkdir(sub, { recursive: true });
    const { project } = resolveRoots(createContext({ cwd: sub, env: box.env }));
    expect(project).toHaveLength(6);
  });

  test("a .git file (worktree) marks the repository root", async () => {
    await using box = await sandbox({ git: false });
    await writeFile(join(box.project, ".git"), "gitdir: /elsewhere\n");
    const sub = join(box.project, "x");
    await mkdir(sub);
    expect(resolveRoots(createContext({ cwd: sub, env: box.env })).project).toHaveLength(11);
  });

  test("overrides replace a root; an empty override removes it", async () => {
    await using box = await sandbox();
    const custom = join(box.root, "custom-claude");
    const ctx = createContext({
      cwd: box.project,
      env: { ...box.env, LEMON_CLAUDE_SKILLS_DIR: custom, LEMON_CODEX_SKILLS_DIR: "" },
    });
    const g = resolveRoots(ctx).global;
    expect(g.map((r) => r.label)).toEqual(["lemon", "agents", "omp", "claude"]);
    expect(g.find((r) => r.label === "claude")!.path).toBe(custom);
  });

  test("isolation: LEMON_AGENT_DIR or LEMON_HOME turn off user roots without their own override", async () => {
    await using box = await sandbox();
    const a = join(box.root, "agent");
    const iso = resolveRoots(createContext({ cwd: box.project, env: { ...box.env, LEMON_AGENT_DIR: a } })).global;
    expect(iso.map((r) => `${r.label}:${r.path}`)).toEqual([`lemon:${join(a, "skill")}`]);
    const h = join(box.root, "lh");
    const withOmp = resolveRoots(
      createContext({ cwd: box.project, env: { ...box.env, LEMON_HOME: h, LEMON_OMP_SKILLS_DIR: "/o" } }),
    ).global;
    expect(withOmp.map((r) => `${r.label}:${r.path}`)).toEqual([`lemon:${join(h, "agent", "skill")}`, "omp:/o"]);
    const opt = resolveRoots(
      createContext({ cwd: box.project, env: box.env, agentDir: a, skillRoots: { claude: "/c" } }),
    ).global;
    expect(opt.map((r) => r.label)).toEqual(["lemon", "claude"]);
  });

  test("a project root that is a global root (cwd = home) is the global root only", async () => {
    await using box = await sandbox();
    await box.skill(join(box.home, ".claude/skills"), "h");
    const lemon = lemonFor(box, {}, box.home);
    const list = await lemon.skills.list();
    expect(list.skills.map((s) => `${s.key}:${s.scope}`)).toEqual(["h:global"]);
  });
});

describe("what counts as a skill (skills.md §2.2)", () => {
  test("direct skills, one category level, key = directory name, category recorded", async () => {
    await using box = await sandbox();
    const root = join(box.project, ".lemon/skill");
    await box.skill(root, "direct", { name: "Display Name", description: "A direct skill for testing things." });
    await box.skill(join(root, "devops"), "deploy");
    await box.skill(join(root, "devops", "deploy", "nested"), "too-deep");
    await box.skill(join(root, "a", "b"), "too-deep-2");
    const list = await lemonFor(box).skills.list();
    expect(list.skills.map((s) => [s.key, s.name, s.category])).toEqual([
      ["deploy", "deploy", "devops"],
      ["direct", "Display Name", null],
    ]);
  });

  test("metadata.lemon.category wins over the directory category", async () => {
    await using box = await sandbox();
    await box.skill(
      join(box.project, ".lemon/skill/dircat"),
      "k",
      "---\nmetadata:\n  lemon:\n    category: manifest-cat\n---\nbody\n",
    );
    expect((await lemonFor(box).skills.get("k"))!.category).toBe("manifest-cat");
  });

  test("hidden names, node_modules and __pycache__ are skipped at both levels", async () => {
    await using box = await sandbox();
    const root = join(box.project, ".lemon/skill");
    for (const n of [".staging", "node_modules", "__pycache__"]) {
      await box.skill(root, n);
      await box.skill(join(root, "cat", n), "x" + n);
      await box.skill(join(root, n), "inner");
    }
    await box.skill(join(root, "cat"), ".hidden");
    expect((await lemonFor(box).skills.list({ all: true })).skills).toEqual([]);
  });

  test("project beats global; earlier roots beat later; shadowed entries are kept", async () => {
    await using box = await sandbox();
    await box.skill(join(box.project, ".claude/skills"), "dup", { description: "project claude copy of dup skill" });
    await box.skill(join(box.project, ".lemon/skill"), "dup", { description: "project lemon copy of dup skill" });
    await box.skill(join(box.home, ".lemon/agent/skill"), "dup", { description: "global lemon copy of dup skill" });
    await box.skill(join(box.home, ".codex/skills"), "g", { description: "codex global copy of g skill" });
    await box.skill(join(box.home, ".agents/skills"), "g", { description: "agents global copy of g skill" });
    const list = await lemonFor(box).skills.list({ all: true });
    expect(list.skills.map((s) => `${s.key}:${s.root_label}:${s.scope}`)).toEqual([
      "dup:lemon:project",
      "g:agents:global",
    ]);
    expect(
      list.shadowed.map((s) => [s.key, s.path.replace(box.root, ""), s.shadowed_by.replace(box.root, "")]),
    ).toEqual([
      ["dup", "/project/.claude/skills/dup", "/project/.lemon/skill/dup"],
      ["dup", "/home/.lemon/agent/skill/dup", "/project/.lemon/skill/dup"],
      ["g", "/home/.codex/skills/g", "/home/.agents/skills/g"],
    ]);
    const globalOnly = await lemonFor(box).skills.list({ scope: "global" });
    expect(globalOnly.skills.map((s) => `${s.key}:${s.root_label}`)).toEqual(["dup:lemon", "g:agents"]);
    const projectOnly = await lemonFor(box).skills.list({ scope: "project" });
    expect(projectOnly.skills.map((s) => s.key)).toEqual(["dup"]);
  });

  test("two category dirs of one root: first in sorted path order wins, the other is duplicate_key", async () => {
    await using box = await sandbox();
    const root = join(box.project, ".lemon/skill");
    await box.skill(join(root, "b-cat"), "same");
    await box.skill(join(root, "a-cat"), "same");
    const list = await lemonFor(box).skills.list({ all: true });
    expect(list.skills[0]!.category).toBe("a-cat");
    expect(list.shadowed[0]!.path).toBe(join(root, "b-cat/same"));
    expect(list.diagnostics.find((d) => d.code === "duplicate_key")!.path).toBe(join(root, "b-cat/same"));
  });

  test("an invalid SKILL.md does not claim its key; it is reported with its error", async () => {
    await using box = await sandbox();
    await box.skill(join(box.project, ".lemon/skill"), "k", "---\nname: [broken\n---\n");
    await box.skill(join(box.home, ".claude/skills"), "k", { description: "the valid global copy of k" });
    const list = await lemonFor(box).skills.list({ all: true });
    expect(list.skills.map((s) => `${s.key}:${s.scope}`)).toEqual(["k:global"]);
    expect(list.invalid).toHaveLength(1);
    expect(list.invalid[0]).toMatchObject({ key: "k", code: "parse_error", path: join(box.project, ".lemon/skill/k") });
    const plain = await lemonFor(box).skills.list();
    expect(plain.invalid).toEqual([]);
    expect(
      plain.diagnostics.some(
        (d) => d.code === "parse_error" && d.path === join(box.project, ".lemon/skill/k/SKILL.md"),
      ),
    ).toBe(true);
  });

  test("symlinked skill and category directories are followed once; path and real_path recorded", async () => {
    await using box = await sandbox();
    const store = join(box.root, "store");
    await box.skill(store, "linked");
    await box.skill(join(box.root, "cats", "tools"), "in-cat");
    const root = join(box.project, ".lemon/skill");
    await mkdir(root, { recursive: true });
    await symlink(join(store, "linked"), join(root, "linked"));
    await symlink(join(store, "linked"), join(root, "linked-again"));
    await symlink(join(box.root, "cats", "tools"), join(root, "tools"));
    await symlink(root, join(root, "loop"));
    const list = await lemonFor(box).skills.list({ all: true });
    const linked = list.skills.find((s) => s.key === "linked")!;
    expect(linked.path).toBe(join(root, "linked"));
    expect(linked.real_path).toBe(join(store, "linked"));
    expect(list.skills.map((s) => s.key)).toEqual(["in-cat", "linked"]);
    expect(list.diagnostics.filter((d) => d.code === "duplicate_real_path").map((d) => d.path)).toEqual([
      join(root, "linked-again"),
    ]);
  });

  test("symlink loops do not hang discovery", async () => {
    await using box = await sandbox();
    const root = join(box.project, ".lemon/skill");
    await mkdir(root, { recursive: true });
    await symlink(join(root, "b"), join(root, "a"));
    await symlink(join(root, "a"), join(root, "b"));
    await box.skill(root, "fine");
    const list = await lemonFor(box).skills.list({ all: true });
    expect(list.skills.map((s) => s.key)).toEqual(["fine"]);
  });

  test("a SKILL.md symlink escaping the skill directory makes the skill invalid", async () => {
    await using box = await sandbox();
    const outside = await box.write(
      "outside/SKILL.md",
      "---\nname: x\ndescription: outside file pretending\n---\nbody",
    );
    const dir = join(box.project, ".lemon/skill/esc");
    await mkdir(dir, { recursive: true });
    await symlink(outside, join(dir, "SKILL.md"));
    const inside = join(box.project, ".lemon/skill/ok");
    await mkdir(inside, { recursive: true });
    await writeFile(join(inside, "real.md"), "---\ndescription: linked inside the bundle\n---\nbody\n");
    await symlink(join(inside, "real.md"), join(inside, "SKILL.md"));
    const list = await lemonFor(box).skills.list({ all: true });
    expect(list.invalid.map((i) => [i.key, i.code])).toEqual([["esc", "symlink_escape"]]);
    expect(list.skills.map((s) => s.key)).toEqual(["ok"]);
  });

  test("oversized and non-UTF-8 files are reported, others still load", async () => {
    await using box = await sandbox();
    const root = join(box.project, ".lemon/skill");
    await box.write(join(root, "big/SKILL.md"), "---\nname: big\n---\n" + "x".repeat(1024 * 1024));
    await box.write(
      join(root, "bin/SKILL.md"),
      new Uint8Array([0x2d, 0x2d, 0x2d, 0x0a, 0xc3, 0x28, 0x0a, 0x2d, 0x2d, 0x2d]),
    );
    await box.skill(root, "good");
    const list = await lemonFor(box).skills.list({ all: true });
    expect(list.skills.map((s) => s.key)).toEqual(["good"]);
    expect(list.invalid.map((i) => [i.key, i.code, i.message])).toEqual([
      ["big", "file_too_large", "SKILL.md exceeds 1048576 bytes"],
      ["bin", "invalid_utf8", "SKILL.md is not valid UTF-8"],
    ]);
  });

  // One tree of 20,001 entries serves every case: creating it is the slow part.
  test("a scan stops at 20,000 directory entries: what lies within the bound is listed, with one scan_limit", async () => {
    await using box = await sandbox();
    const root = join(box.home, ".claude/skills");
    for (const k of ["a0", "a1", "a2", "zz"]) await box.skill(root, k);
    // 3 skills + 19,997 files + "zz" = 20,001 entries; "zz" sorts last and falls past the bound.
    const sh = (script: string) => expect(Bun.spawnSync(["bash", "-c", script], { cwd: root }).exitCode).toBe(0);
    sh("touch f{00001..19997}");
    const lemon = lemonFor(box);
    const list = await lemon.skills.list({ all: true });
    expect(list.skills.map((s) => s.key)).toEqual(["a0", "a1", "a2"]);
    expect(list.diagnostics.filter((d) => d.code === "scan_limit")).toEqual([
      { level: "warn", code: "scan_limit", message: "scan stopped after 20000 directory entries", path: root },
    ]);
    // Human output says the scan stopped; a listing cut by the bound never claims "No skills found."
    const human = await box.cli(["skill", "list"]);
    expect(human.stderr).toContain(`warn: ${root}: scan stopped after 20000 directory entries\n`);
    sh("rm -r a0 a1 a2 && touch e1 e2 e3");
    const empty = await box.cli(["skill", "list"]);
    expect(empty.code).toBe(0);
    expect(empty.stdout).not.toContain("No skills found.");
    expect(empty.stderr).toContain("scan stopped after 20000 directory entries");
    // A category whose listing crosses the bound: skills before it are listed, the scan stops in it.
    sh(
      "mkdir c && mv f* c/ && mkdir b c/inner && printf -- '---\\nname: b\\n---\\nbody\\n' > b/SKILL.md && touch c/inner/SKILL.md",
    );
    const cut = await lemon.skills.list({ all: true, refresh: true });
    expect(cut.skills.map((s) => s.key)).toEqual(["b"]);
    expect(cut.diagnostics.filter((d) => d.code === "scan_limit")).toHaveLength(1);
    await lemon.close();
  }, 60_000);

  test("listings are sorted by key in code-unit order", async () => {
    await using box = await sandbox();
    for (const k of ["b", "B", "a", "_z", "a-b"]) await box.skill(join(box.project, ".lemon/skill"), k);
    expect((await lemonFor(box).skills.list()).skills.map((s) => s.key)).toEqual(["B", "_z", "a", "a-b", "b"]);
  });

  test("edits become visible: the record cache keys on the file fingerprint", async () => {
    await using box = await sandbox();
    const file = await box.skill(join(box.project, ".lemon/skill"), "e", { description: "first version of the skill" });
    const lemon = lemonFor(box);
    expect((await lemon.skills.get("e"))!.description).toBe("first version of the skill");
    await writeFile(file, "---\ndescription: second version, longer text here\n---\nbody\n");
    expect((await lemon.skills.get("e"))!.description).toBe("second version, longer text here");
  });
});
