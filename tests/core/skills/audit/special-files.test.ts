// A FIFO (or socket, device) in a bundle never hangs the audit (issue 9 §2.3): entries are lstat'ed
// before any open, and a read re-checks on the open descriptor that it got the regular file listed.
import { describe, expect, test } from "bun:test";
import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { auditBundle, computeBundleHash, enumerateBundle } from "../../../../src/core/skills/audit/index.ts";
import { readEntry } from "../../../../src/core/skills/bundle.ts";
import { LemonError } from "../../../../src/core/errors.ts";
import { sandbox } from "../../../support/sandbox.ts";

const mkfifo = (path: string) => execFileSync("mkfifo", [path]);
const SKILL = "---\nname: s\ndescription: A skill for the special file tests.\n---\n# Body\n\nHi.\n";

describe.skipIf(process.platform === "win32")("special files", () => {
  test("a FIFO named SKILL.md or scripts/x.sh is reported, never opened", async () => {
    const root = await mkdtemp(join(tmpdir(), "lemon-fifo-"));
    try {
      const dir = join(root, "s");
      await mkdir(join(dir, "scripts"), { recursive: true });
      mkfifo(join(dir, "SKILL.md"));
      mkfifo(join(dir, "scripts", "x.sh"));
      const r = await auditBundle(dir);
      expect(r.verdict).toBe("block");
      expect(r.findings.filter((f) => f.rule === "special_file").map((f) => f.file)).toEqual([
        "SKILL.md",
        "scripts/x.sh",
      ]);
      expect(await computeBundleHash(dir)).toMatch(/^[0-9a-f]{64}$/);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });

  test("a file swapped for a FIFO after listing is refused, not read", async () => {
    const root = await mkdtemp(join(tmpdir(), "lemon-fifo-"));
    try {
      const dir = join(root, "s");
      await mkdir(dir);
      await writeFile(join(dir, "SKILL.md"), SKILL);
      await writeFile(join(dir, "notes.md"), "notes\n");
      const bundle = await enumerateBundle(dir);
      await rm(join(dir, "notes.md"));
      mkfifo(join(dir, "notes.md"));
      const entry = bundle.entries.find((e) => e.rel === "notes.md")!;
      let err: unknown;
      try {
        readEntry(bundle, entry);
      } catch (e) {
        err = e;
      }
      expect(LemonError.is(err) && err.code).toBe("CONFLICT");
      expect((err as Error).message).toBe("notes.md changed while the bundle was read; retry");
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });

  test("the CLI audits a skill whose SKILL.md is a FIFO", async () => {
    await using box = await sandbox();
    const dir = join(box.root, "work", "f");
    await mkdir(dir, { recursive: true });
    mkfifo(join(dir, "SKILL.md"));
    const r = await box.cli(["skill", "audit", dir, "--json"]);
    expect(r.code).toBe(1);
    expect(r.json()).toMatchObject({ ok: false, verdict: "block" });
  });
});
