import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdir, symlink } from "node:fs/promises";
import { join } from "node:path";
import { writeFileAtomic } from "../../../src/core/fsx/atomic.ts";
import { update } from "../../../src/core/fsx/update.ts";
import { skillsJsonCodec } from "../../../src/core/skills/settings-codec.ts";
import { LemonError } from "../../../src/core/errors.ts";
import { sandbox } from "../../support/sandbox.ts";

const disable = (file: string, confineTo: string | null) =>
  update(file, skillsJsonCodec, (cur) => ({ next: { ...cur, disabled: ["x"] }, result: null }), { confineTo });

async function refused(p: Promise<unknown>, file: string): Promise<void> {
  const err = (await p.then(
    () => null,
    (e: unknown) => e,
  )) as LemonError | null;
  expect(err).not.toBeNull();
  expect(LemonError.is(err)).toBe(true);
  expect(err?.code).toBe("FORBIDDEN");
  expect(err?.message).toBe(`refusing to write through symlink: ${file}`);
}

describe("writes under P stay inside C (skills.md §1.3 rule 1)", () => {
  test("a .lemon symlink to a directory outside C: refused, nothing created outside", async () => {
    await using box = await sandbox();
    const outside = join(box.root, "outside");
    await mkdir(outside);
    await symlink(outside, join(box.project, ".lemon"));
    const file = join(box.project, ".lemon", "skills.json");
    await refused(disable(file, box.project), file);
    // Neither the file, its lock directory nor a temp file, nor a subdirectory.
    const deep = join(box.project, ".lemon", "cache", "deep", "x.json");
    await refused(disable(deep, box.project), deep);
    await refused(writeFileAtomic(file, "{}", { confineTo: box.project }), file);
    expect(readdirSync(outside)).toEqual([]);
  });

  test("a .lemon/skills.json symlink to a file outside C: refused, the outside file untouched", async () => {
    await using box = await sandbox();
    const outside = await box.write("outside/skills.json", '{"disabled":[]}');
    await mkdir(join(box.project, ".lemon"));
    const file = join(box.project, ".lemon", "skills.json");
    await symlink(outside, file);
    await refused(disable(file, box.project), file);
    expect(readFileSync(outside, "utf8")).toBe('{"disabled":[]}');
    expect(readdirSync(join(box.root, "outside"))).toEqual(["skills.json"]);
    expect(readdirSync(join(box.project, ".lemon"))).toEqual(["skills.json"]);
  });

  test("a dangling .lemon symlink to a missing outside directory: refused, nothing created", async () => {
    await using box = await sandbox();
    const outside = join(box.root, "outside", "missing");
    await mkdir(join(box.root, "outside"));
    await symlink(outside, join(box.project, ".lemon"));
    const file = join(box.project, ".lemon", "skills.json");
    await refused(disable(file, box.project), file);
    expect(existsSync(outside)).toBe(false);
  });

  test("a relative symlink chain leaving C through ..: refused", async () => {
    await using box = await sandbox();
    await mkdir(join(box.root, "outside"));
    await mkdir(join(box.project, "sub"));
    await symlink("../../outside", join(box.project, "sub", "hop"));
    await symlink("sub/hop", join(box.project, ".lemon"));
    const file = join(box.project, ".lemon", "mcp.json");
    await refused(disable(file, box.project), file);
    expect(readdirSync(join(box.root, "outside"))).toEqual([]);
  });

  test("a .lemon symlink to a directory inside C is written through", async () => {
    await using box = await sandbox();
    await mkdir(join(box.project, "state"));
    await symlink("state", join(box.project, ".lemon"));
    await disable(join(box.project, ".lemon", "skills.json"), box.project);
    expect(JSON.parse(readFileSync(join(box.project, "state", "skills.json"), "utf8")).disabled).toEqual(["x"]);
    expect(readdirSync(join(box.project, "state"))).toEqual(["skills.json"]);
  });

  test("a plain missing .lemon is created inside C", async () => {
    await using box = await sandbox();
    await disable(join(box.project, ".lemon", "skills.json"), box.project);
    expect(readdirSync(join(box.project, ".lemon"))).toEqual(["skills.json"]);
  });

  test("C itself reached through a symlink: the real paths are compared", async () => {
    await using box = await sandbox();
    const alias = join(box.root, "alias");
    await symlink(box.project, alias);
    await disable(join(alias, ".lemon", "skills.json"), alias);
    expect(existsSync(join(box.project, ".lemon", "skills.json"))).toBe(true);
  });
});
