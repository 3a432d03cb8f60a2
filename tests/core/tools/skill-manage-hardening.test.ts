// skill_manage against the adversarial tester's findings: directories that are not skills, a
// `.lemon/skill` link into the project or another root, state left behind by a delete, phantom
// usage records from rejected calls, raw file system errors, and a patch that would blow up.
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { sandbox } from "../../support/sandbox.ts";
import { lemonFor, projectRoot, skillText, textOf } from "./manage-support.ts";

describe("only skills are skills (skills.md §2.2, §9)", () => {
  test("a directory without SKILL.md is not found for delete, edit, pin and write_file", async () => {
    await using box = await sandbox();
    const dir = join(projectRoot(box), "notaskill");
    mkdirSync(join(dir, "data"), { recursive: true });
    writeFileSync(join(dir, "data", "f"), "precious\n");
    await using lemon = lemonFor(box);
    const nf = `Skill 'notaskill' not found at ${dir}`;
    for (const args of [
      { action: "delete" },
      { action: "pin" },
      { action: "archive" },
      { action: "edit", content: skillText("notaskill") },
      { action: "write_file", file_path: "references/r.md", file_content: "x\n" },
    ]) {
      const r = await lemon.skillManage({ name: "notaskill", ...args });
      expect(textOf(r)).toBe(nf);
    }
    expect(readFileSync(join(dir, "data", "f"), "utf8")).toBe("precious\n");
    expect(existsSync(join(dir, "SKILL.md"))).toBe(false);
  });

  test("a category directory is not a skill: its skills survive a delete of its name", async () => {
    await using box = await sandbox();
    const root = projectRoot(box);
    await box.skill(join(root, "cat"), "foo");
    await box.skill(join(root, "cat"), "bar");
    await using lemon = lemonFor(box);
    expect((await lemon.skillManage({ action: "delete", name: "cat" })).isError).toBe(true);
    expect(existsSync(join(root, "cat", "foo", "SKILL.md"))).toBe(true);
  });

  for (const [what, target] of [
    ["the project itself", ".."],
    ["another skill root", "../.claude/skills"],
  ] as const) {
    test(`.lemon/skill linked to ${what} is refused for every action`, async () => {
      await using box = await sandbox();
      mkdirSync(join(box.project, "src"), { recursive: true });
      writeFileSync(join(box.project, "src", "SKILL.md"), skillText("src"));
      await box.skill(join(box.project, ".claude/skills"), "k");
      mkdirSync(join(box.project, ".lemon"));
      symlinkSync(target, join(box.project, ".lemon", "skill"));
      await using lemon = lemonFor(box);
      const refused = `refusing to write through symlink: ${projectRoot(box)}`;
      for (const name of ["src", "k"]) {
        expect(textOf(await lemon.skillManage({ action: "delete", name }))).toBe(refused);
        expect(textOf(await lemon.skillManage({ action: "edit", name, content: skillText(name) }))).toBe(refused);
        expect(textOf(await lemon.skillManage({ action: "pin", name }))).toBe(refused);
      }
      expect(existsSync(join(box.project, "src", "SKILL.md"))).toBe(true);
      expect(existsSync(join(box.project, ".claude/skills/k/SKILL.md"))).toBe(true);
    });
  }
});

describe("delete leaves nothing behind (skills.md §9, §12)", () => {
  test("an archived skill deleted and created again is born active and enabled", async () => {
    await using box = await sandbox();
    await using lemon = lemonFor(box);
    await lemon.skillManage({ action: "create", name: "x", content: skillText("x") });
    expect((await lemon.skillManage({ action: "archive", name: "x" })).isError).toBe(false);
    expect((await lemon.skillManage({ action: "delete", name: "x" })).isError).toBe(false);
    const c = await lemon.skillManage({ action: "create", name: "x", content: skillText("x") });
    expect(c.details).toMatchObject({ lifecycle_state: "active" });
    expect((await lemon.skills.get("x"))?.activation_state).toBe("active");
    const settings = JSON.parse(readFileSync(join(box.project, ".lemon", "skills.json"), "utf8"));
    expect(settings.disabled ?? []).not.toContain("x");
  });
});

describe("usage records (skills.md §12.2)", () => {
  test("rejected calls naming no skill leave no record; a checked file path only", async () => {
    await using box = await sandbox();
    await using lemon = lemonFor(box);
    await lemon.skillManage({ action: "create", name: "ghost1", content: "nofm" });
    await lemon.skillManage({ action: "pin", name: "nope" });
    await lemon.skillManage({ action: "edit", name: "Phantom Key", content: "x" });
    await lemon.skillManage({ action: "create", name: "x", content: skillText("x") });
    await lemon.skillManage({
      action: "write_file",
      name: "x",
      file_path: "../../\u001b[2J\u202eevil\nline2",
      file_content: "x",
    });
    const usage = JSON.parse(readFileSync(join(box.project, ".lemon", "skills.usage.json"), "utf8"));
    expect(Object.keys(usage.skills)).toEqual(["x"]);
    expect(usage.skills.x.write_error_count).toBe(1);
    expect(usage.skills.x.file_path).toBeUndefined();
  });
});

describe("bounded failures", () => {
  test("an over-long file_path is refused up front, never a raw ENAMETOOLONG with a stage path", async () => {
    await using box = await sandbox();
    await using lemon = lemonFor(box);
    await lemon.skillManage({ action: "create", name: "x", content: skillText("x") });
    const seg = await lemon.skillManage({
      action: "write_file",
      name: "x",
      file_path: `references/${"a".repeat(300)}`,
      file_content: "x",
    });
    expect(textOf(seg)).toBe("file_path segment exceeds 255 bytes");
    const long = await lemon.skillManage({
      action: "write_file",
      name: "x",
      file_path: `references/${Array(25).fill("d".repeat(200)).join("/")}/f`,
      file_content: "x",
    });
    expect(textOf(long)).toBe("file_path exceeds 512 bytes");
  });

  test("patch replace_all that would exceed the limit is refused before the result is built", async () => {
    await using box = await sandbox();
    await using lemon = lemonFor(box);
    const content = `---\nname: x\ndescription: test skill long enough here\n---\n${"a".repeat(99_000)}\n`;
    expect((await lemon.skillManage({ action: "create", name: "x", content })).isError).toBe(false);
    const r = await lemon.skillManage({
      action: "patch",
      name: "x",
      old_string: "a",
      new_string: "b".repeat(4_000_000),
      replace_all: true,
    });
    expect(textOf(r)).toBe("content exceeds 100000 characters");
    await lemon.skillManage({ action: "write_file", name: "x", file_path: "references/r.md", file_content: "cc\n" });
    const f = await lemon.skillManage({
      action: "patch",
      name: "x",
      file_path: "references/r.md",
      old_string: "c",
      new_string: "d".repeat(60_000),
      replace_all: true,
    });
    expect(textOf(f)).toBe("file_content exceeds 100000 characters");
  });
});

describe("invisible text (skills.md §6.1, §9.1)", () => {
  test("a file_path segment with zero-width or tag characters is refused (it can look like '..')", async () => {
    await using box = await sandbox();
    await using lemon = lemonFor(box);
    await lemon.skillManage({ action: "create", name: "x", content: skillText("x") });
    for (const fp of ["scripts/.\u200b./a", "scripts/a\u2060b", "scripts/\ufeffa", "scripts/a\u{E0041}"]) {
      const r = await lemon.skillManage({ action: "write_file", name: "x", file_path: fp, file_content: "x" });
      expect(textOf(r)).toBe("file_path must be a relative path without '..'");
    }
  });

  test("a body made only of invisible characters is blank", async () => {
    await using box = await sandbox();
    await using lemon = lemonFor(box);
    const r = await lemon.skillManage({
      action: "create",
      name: "f",
      content: "---\nname: f\ndescription: ok desc here\n---\n\u200b\u2060\n",
    });
    expect(textOf(r)).toBe("SKILL.md must include instructions after frontmatter");
  });
});

describe("an invalid usage sidecar (skills.md §1.3 rule 4)", () => {
  test("pin, archive and restore refuse to overwrite it with the §1.3 message", async () => {
    await using box = await sandbox();
    await using lemon = lemonFor(box);
    await lemon.skillManage({ action: "create", name: "k", content: skillText("k") });
    const file = join(box.project, ".lemon", "skills.usage.json");
    writeFileSync(file, '{"version":1,"skills":{"k":{"lifecycle_state":"pinned"},"k":{}}}');
    for (const action of ["pin", "archive", "restore"]) {
      const r = await lemon.skillManage({ action, name: "k" });
      expect(r.details).toMatchObject({ error: "conflict" });
      expect(textOf(r)).toStartWith(`refusing to overwrite invalid ${file}: `);
    }
    expect(readFileSync(file, "utf8")).toBe('{"version":1,"skills":{"k":{"lifecycle_state":"pinned"},"k":{}}}');
  });
});
