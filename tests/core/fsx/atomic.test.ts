import { describe, expect, test } from "bun:test";
import { lstatSync, readdirSync, readFileSync, statSync } from "node:fs";
import { mkdir, readlink, symlink, writeFile, chmod } from "node:fs/promises";
import { join } from "node:path";
import { writeFileAtomic, formatJson, isoSeconds } from "../../../src/core/fsx/atomic.ts";
import { LemonError } from "../../../src/core/errors.ts";
import { sandbox } from "../../support/sandbox.ts";

describe("writeFileAtomic", () => {
  test("creates the file 0600 with parents and leaves no temp file", async () => {
    await using box = await sandbox();
    const file = join(box.root, "a", "b", "state.json");
    await writeFileAtomic(file, "hello", { confineTo: null });
    expect(readFileSync(file, "utf8")).toBe("hello");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readdirSync(join(box.root, "a", "b"))).toEqual(["state.json"]);
  });

  test("replaces an existing file by rename (new inode), keeping no temp", async () => {
    await using box = await sandbox();
    const file = await box.write("x.json", "old");
    const before = statSync(file).ino;
    await writeFileAtomic(file, "new", { confineTo: null });
    expect(readFileSync(file, "utf8")).toBe("new");
    expect(statSync(file).ino).not.toBe(before);
    expect(readdirSync(box.root).filter((n) => n.includes(".tmp-"))).toEqual([]);
  });

  test("writes through a symlink and keeps the link", async () => {
    await using box = await sandbox();
    const real = await box.write("real/skills.json", "{}");
    const link = join(box.root, "link.json");
    await symlink(real, link);
    await writeFileAtomic(link, "[1]", { confineTo: null });
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(await readlink(link)).toBe(real);
    expect(readFileSync(real, "utf8")).toBe("[1]");
  });

  test("refuses a target whose real path leaves the confinement directory", async () => {
    await using box = await sandbox();
    const outside = await box.write("outside/secret.json", "{}");
    await mkdir(join(box.project, ".lemon"), { recursive: true });
    await symlink(outside, join(box.project, ".lemon", "skills.json"));
    const file = join(box.project, ".lemon", "skills.json");
    const err = await writeFileAtomic(file, "{}", { confineTo: box.project }).catch((e) => e);
    expect(LemonError.is(err)).toBe(true);
    expect((err as LemonError).code).toBe("FORBIDDEN");
    expect((err as LemonError).message).toBe(`refusing to write through symlink: ${file}`);
    expect(readFileSync(outside, "utf8")).toBe("{}");
  });

  test("a failed write removes its temp file and leaves the target untouched", async () => {
    if (process.getuid?.() === 0) {
      // Root ignores directory modes; use a target that is a directory to make rename fail instead.
      await using box = await sandbox();
      const dir = join(box.root, "target");
      await mkdir(join(dir, "inner"), { recursive: true });
      await expect(writeFileAtomic(dir, "x", { confineTo: null })).rejects.toThrow();
      expect(readdirSync(box.root).filter((n) => n.includes(".tmp-"))).toEqual([]);
      expect(statSync(dir).isDirectory()).toBe(true);
      return;
    }
    await using box = await sandbox();
    const file = await box.write("ro/file", "keep");
    await chmod(join(box.root, "ro"), 0o500);
    await expect(writeFileAtomic(file, "x", { confineTo: null })).rejects.toThrow();
    await chmod(join(box.root, "ro"), 0o700);
    expect(readFileSync(file, "utf8")).toBe("keep");
  });

  test("JSON format and timestamps follow the contract", () => {
    expect(formatJson({ b: 1, a: [1] })).toBe('{\n  "b": 1,\n  "a": [\n    1\n  ]\n}\n');
    expect(isoSeconds(new Date("2026-08-29T10:15:00.123Z"))).toBe("2026-08-29T10:15:00Z");
  });

  test("writeFile through a dangling link creates the link target", async () => {
    await using box = await sandbox();
    const target = join(box.root, "made", "here.json");
    await mkdir(join(box.root, "made"));
    await symlink(target, join(box.root, "dangling.json"));
    await writeFileAtomic(join(box.root, "dangling.json"), "1", { confineTo: null });
    expect(readFileSync(target, "utf8")).toBe("1");
    await writeFile(join(box.root, "unused"), "");
  });

  test("replaceLink: a symlinked target is replaced by the file, the link's target untouched", async () => {
    await using box = await sandbox();
    const real = await box.write("elsewhere/precious", "keep");
    const cache = join(box.root, "cache");
    await mkdir(cache);
    await symlink(real, join(cache, "a.snap"));
    await symlink(join(box.root, "nowhere"), join(cache, "b.snap"));
    for (const name of ["a.snap", "b.snap"]) {
      const file = join(cache, name);
      expect(await writeFileAtomic(file, "new", { confineTo: null, replaceLink: true })).toBe(file);
      expect(lstatSync(file).isFile()).toBe(true);
      expect(readFileSync(file, "utf8")).toBe("new");
    }
    expect(readFileSync(real, "utf8")).toBe("keep");
    expect(readdirSync(box.root)).not.toContain("nowhere");
    expect(readdirSync(cache).sort()).toEqual(["a.snap", "b.snap"]);
  });

  test("replaceLink still resolves linked directories and confines them", async () => {
    await using box = await sandbox();
    await mkdir(join(box.root, "proj", "real-cache"), { recursive: true });
    await symlink(join(box.root, "proj", "real-cache"), join(box.root, "proj", "cache"));
    const file = join(box.root, "proj", "cache", "x.snap");
    const opts = { confineTo: join(box.root, "proj"), replaceLink: true };
    expect(await writeFileAtomic(file, "1", opts)).toBe(join(box.root, "proj", "real-cache", "x.snap"));
    await mkdir(join(box.root, "out"));
    await symlink(join(box.root, "out"), join(box.root, "proj", "away"));
    const err = await writeFileAtomic(join(box.root, "proj", "away", "y.snap"), "1", opts).catch((e) => e);
    expect(err).toBeInstanceOf(LemonError);
    expect(readdirSync(join(box.root, "out"))).toEqual([]);
  });
});
