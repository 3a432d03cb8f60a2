// Bundle enumeration and the bundle hash of install.md §7.1–§7.2.
import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { assertInstallable, computeBundleHash, enumerateBundle } from "../../../../src/core/skills/audit/index.ts";
import { LemonError } from "../../../../src/core/errors.ts";

const sha = (s: string | Uint8Array) => createHash("sha256").update(s).digest("hex");

async function tree(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "lemon-bundle-"));
  for (const [rel, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, rel)), { recursive: true });
    await writeFile(join(dir, rel), text);
  }
  return dir;
}

describe("computeBundleHash", () => {
  test("follows the §7.2 algorithm: sorted byte order, relpath TAB sha256, joined by \\n", async () => {
    const files = { "SKILL.md": "# s\n", "b/x.txt": "x", ".hidden": "h", "B.txt": "B", "é.md": "e" };
    const dir = await tree(files);
    try {
      const rels = Object.keys(files).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
      const expected = sha(rels.map((r) => `${r}\t${sha(files[r as keyof typeof files])}`).join("\n"));
      expect(await computeBundleHash(dir)).toBe(expected);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test("is deterministic, content-sensitive, and ignores top-level .git and draft meta", async () => {
    const dir = await tree({ "SKILL.md": "a", ".git/HEAD": "ref", ".draft_meta.json": "{}" });
    try {
      const h1 = await computeBundleHash(dir);
      expect(await computeBundleHash(dir)).toBe(h1);
      const draft = await computeBundleHash(dir, { kind: "draft" });
      expect(draft).toBe(sha(`SKILL.md\t${sha("a")}`));
      expect(h1).not.toBe(draft); // .draft_meta.json counts for skills
      await writeFile(join(dir, ".git", "HEAD"), "other");
      expect(await computeBundleHash(dir)).toBe(h1);
      await writeFile(join(dir, "SKILL.md"), "b");
      expect(await computeBundleHash(dir)).not.toBe(h1);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test("a symlink hashes its target text and makes the bundle uninstallable", async () => {
    const dir = await tree({ "SKILL.md": "a" });
    try {
      await symlink("SKILL.md", join(dir, "link.md"));
      expect(await computeBundleHash(dir)).toBe(sha(`SKILL.md\t${sha("a")}\nlink.md\tsymlink:${sha("SKILL.md")}`));
      const b = await enumerateBundle(dir);
      expect(b.problems.map((p) => p.code)).toEqual(["symlink_not_allowed"]);
      let err: unknown;
      try {
        assertInstallable(b);
      } catch (e) {
        err = e;
      }
      expect(LemonError.is(err) && err.code).toBe("INVALID_REQUEST");
      expect((err as Error).message).toBe("symlink_not_allowed: link.md");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test("limits: depth over 16 and control characters in names", async () => {
    const deep = Array.from({ length: 17 }, (_, i) => `d${i}`).join("/") + "/f.txt";
    const dir = await tree({ "SKILL.md": "a", [deep]: "x", "bad\u0001name": "x" });
    try {
      const b = await enumerateBundle(dir);
      const details = b.problems.map((p) => `${p.code}: ${p.detail}`);
      expect(details.some((d) => d.startsWith("bundle_limits_exceeded: depth over 16"))).toBe(true);
      expect(details.some((d) => d.includes("invalid file name"))).toBe(true);
      expect(() => assertInstallable(b)).toThrow(/bundle_limits_exceeded/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
