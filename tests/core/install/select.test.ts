// install.md §4.7: finding the skills of a source and choosing one.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { LemonError } from "../../../src/core/errors.ts";
import { findSkills, selectSkill } from "../../../src/core/skills/install/select.ts";

const root = realpathSync(mkdtempSync(join(tmpdir(), "lemon-select-")));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;

function tree(files: string[], links: Record<string, string> = {}): string {
  const dir = join(root, `t${n++}`);
  mkdirSync(dir);
  for (const f of files) {
    mkdirSync(dirname(join(dir, f)), { recursive: true });
    writeFileSync(join(dir, f), "---\nname: x\ndescription: x\n---\nbody\n");
  }
  for (const [path, target] of Object.entries(links)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    symlinkSync(target, join(dir, path));
  }
  return dir;
}

const paths = async (dir: string) => (await findSkills(dir)).map((f) => [f.key, f.path]);

function fails(fn: () => unknown): LemonError {
  try {
    fn();
  } catch (e) {
    expect(LemonError.is(e)).toBe(true);
    return e as LemonError;
  }
  throw new Error("expected a failure");
}

describe("findSkills", () => {
  test("a root holding SKILL.md is the skill, whatever lies below", async () => {
    const dir = tree(["SKILL.md", "skills/a/SKILL.md"]);
    expect(await findSkills(dir)).toEqual([{ key: dir.split("/").pop() ?? "", path: "", dir }]);
  });
  test("*/SKILL.md, skills/*/SKILL.md and */*/SKILL.md, sorted by key", async () => {
    const dir = tree(["zeta/SKILL.md", "skills/beta/SKILL.md", "group/alpha/SKILL.md", "README.md"]);
    expect(await paths(dir)).toEqual([
      ["alpha", "group/alpha"],
      ["beta", "skills/beta"],
      ["zeta", "zeta"],
    ]);
    expect((await findSkills(dir))[0]?.dir).toBe(join(dir, "group", "alpha"));
  });
  test("deeper skills, hidden dirs and symlinked dirs are not found", async () => {
    const outside = tree(["evil/SKILL.md"]);
    const dir = tree(["a/b/c/SKILL.md", ".hidden/x/SKILL.md", ".github/SKILL.md", "ok/SKILL.md"], {
      linked: join(outside, "evil"),
      "skills/linked": join(outside, "evil"),
    });
    expect(await paths(dir)).toEqual([["ok", "ok"]]);
  });
  test("a symlinked SKILL.md still counts, so the install refuses it instead of skipping it", async () => {
    const dir = tree(["real/SKILL.md"], { "a/SKILL.md": "../real/SKILL.md" });
    expect(await paths(dir)).toEqual([
      ["a", "a"],
      ["real", "real"],
    ]);
  });
  test("an empty or missing root finds nothing", async () => {
    expect(await findSkills(tree(["README.md"]))).toEqual([]);
    expect(await findSkills(join(root, "missing"))).toEqual([]);
  });
});

describe("selectSkill", () => {
  const f = (key: string, path: string) => ({ key, path, dir: `/src/${path}` });
  test("the root skill takes the root name", () => {
    expect(selectSkill([f("repo", "")], undefined, "my-skill").key).toBe("my-skill");
    expect(selectSkill([f("repo", "")], "my-skill", "my-skill").path).toBe("");
  });
  test("one skill is chosen without --skill", () => {
    expect(selectSkill([f("a", "skills/a")], undefined, "r").key).toBe("a");
  });
  test("several without --skill: the exact message and details.skills", () => {
    const e = fails(() => selectSkill([f("a", "skills/a"), f("b", "b"), f("c", "x/c")], undefined, "r"));
    expect(e.code).toBe("INVALID_PARAMS");
    expect(e.message).toBe("source contains 3 skills; choose one with --skill: a, b, c");
    expect(e.details).toEqual({ skills: ["a", "b", "c"] });
  });
  test("--skill picks by key, or by path when keys collide", () => {
    const found = [f("a", "skills/a"), f("x", "one/x"), f("x", "two/x")];
    expect(selectSkill(found, "a", "r").path).toBe("skills/a");
    expect(selectSkill(found, "two/x", "r").path).toBe("two/x");
    const e = fails(() => selectSkill(found, "x", "r"));
    expect(e.code).toBe("INVALID_PARAMS");
    expect(e.message).toBe("source contains 2 skills named 'x'; choose one with --skill: one/x, two/x");
  });
  test("an unknown --skill and an empty source", () => {
    const e = fails(() => selectSkill([f("a", "a"), f("b", "b")], "zz", "r"));
    expect(e.code).toBe("NOT_FOUND");
    expect(e.message).toBe("skill 'zz' not found in source; it contains: a, b");
    const e2 = fails(() => selectSkill([], undefined, "r"));
    expect(e2.code).toBe("INVALID_REQUEST");
    expect(e2.message).toBe("source contains no SKILL.md");
  });
});
