// The audit cache never decides or aborts an audit (install.md §7.5): corrupt files are set aside
// and reported, unwritable ones reported, and fields a newer lemon wrote survive a rewrite.
import { expect, test } from "bun:test";
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { auditBundle } from "../../../../src/core/skills/audit/index.ts";

async function withDirs<T>(fn: (skill: string, root: string) => Promise<T>): Promise<T> {
  const root = await mkdtemp(join(tmpdir(), "lemon-audit-cache-"));
  const skill = join(root, "s");
  await mkdir(skill);
  await writeFile(
    join(skill, "SKILL.md"),
    "---\nname: s\ndescription: A skill for the cache tests.\n---\n# Body\n\nHi.\n",
  );
  try {
    return await fn(skill, root);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

test("unknown fields of the document and of records survive a rewrite", async () => {
  await withDirs(async (skill, root) => {
    const cacheFile = join(root, "cache.json");
    await auditBundle(skill, { cacheFile, key: "s" });
    const doc = JSON.parse(await readFile(cacheFile, "utf8"));
    doc.future = { x: 1 };
    doc.records["skill:s"].reviewer = "alice";
    doc.records["skill:other"] = { key: "other", kind: "skill", shape: "from a newer lemon" };
    await writeFile(cacheFile, JSON.stringify(doc));
    const r = await auditBundle(skill, { cacheFile, key: "s", force: true });
    expect(r.diagnostics).toEqual([]);
    const after = JSON.parse(await readFile(cacheFile, "utf8"));
    expect(after.future).toEqual({ x: 1 });
    expect(after.records["skill:s"].reviewer).toBe("alice");
    expect(after.records["skill:s"].verdict).toBe("pass");
    expect(after.records["skill:other"]).toEqual(doc.records["skill:other"]);
  });
});

test("a cache with the wrong shape is set aside once, named by time", async () => {
  await withDirs(async (skill, root) => {
    const cacheFile = join(root, "cache.json");
    await writeFile(cacheFile, JSON.stringify({ version: 1, records: [] }));
    const now = () => new Date("2026-03-04T05:06:07.890Z");
    const r = await auditBundle(skill, { cacheFile, now });
    expect(r.verdict).toBe("pass");
    expect(r.diagnostics).toHaveLength(1);
    expect(r.diagnostics[0]).toMatchObject({ level: "warn", code: "audit_cache_invalid", path: cacheFile });
    expect((await readdir(root)).sort()).toEqual(["cache.json", "cache.json.corrupt-2026-03-04T050607Z", "s"]);
    const again = await auditBundle(skill, { cacheFile, now });
    expect(again.cached).toBe(true);
    expect(again.diagnostics).toEqual([]);
  });
});

test("an unreadable cache is reported, never fatal, and never written", async () => {
  await withDirs(async (skill, root) => {
    await writeFile(join(root, "file"), "not a directory\n");
    const cacheFile = join(root, "file", "cache.json");
    const r = await auditBundle(skill, { cacheFile });
    expect(r.verdict).toBe("pass");
    expect(r.diagnostics.map((d) => d.code)).toEqual(["audit_cache_unreadable"]);
    expect(r.cached).toBe(false);
  });
});
