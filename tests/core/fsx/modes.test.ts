import { describe, expect, test } from "bun:test";
import { readdirSync, statSync } from "node:fs";
import { chmod } from "node:fs/promises";
import { join } from "node:path";
import { createLemon } from "../../../src/core/index.ts";
import { writeFileAtomic } from "../../../src/core/fsx/atomic.ts";
import { acquireLock } from "../../../src/core/fsx/lock.ts";
import { update } from "../../../src/core/fsx/update.ts";
import { skillsJsonCodec } from "../../../src/core/skills/settings-codec.ts";
import { sandbox } from "../../support/sandbox.ts";

const modeOf = (p: string) => statSync(p).mode & 0o777;
// Modes lemon asks for, as the process umask lets them through (022 in CI: unchanged).
const umask = process.umask();
const want = (mode: number) => mode & ~umask;

describe("file and directory modes (skills.md §1.3 rule 6)", () => {
  test("search snapshots are 0600 in a 0755 cache directory", async () => {
    await using box = await sandbox();
    await box.skill(join(box.project, ".lemon", "skill"), "kafka-ops");
    const lemon = createLemon({ cwd: box.project, agentDir: box.agentDir, env: box.env, curator: false });
    await lemon.skills.findRelevant("kafka ops tasks", { refresh: true });
    // Snapshots are written in the background; close waits for them.
    await lemon.close();
    const dir = join(box.agentDir, "cache", "skills");
    const snaps = readdirSync(dir).filter((n) => n.endsWith(".snap"));
    expect(snaps.length).toBeGreaterThan(0);
    for (const n of snaps) expect(modeOf(join(dir, n))).toBe(0o600);
    expect(modeOf(dir)).toBe(want(0o755));
    expect(modeOf(join(box.agentDir, "cache"))).toBe(want(0o755));
  });

  test("state files are 0600, created directories 0755, and a rewrite makes a 0644 file 0600", async () => {
    await using box = await sandbox();
    const file = join(box.project, ".lemon", "skills.json");
    await update(file, skillsJsonCodec, (c) => ({ next: { ...c, disabled: ["a"] }, result: null }), {
      confineTo: box.project,
    });
    expect(modeOf(file)).toBe(0o600);
    expect(modeOf(join(box.project, ".lemon"))).toBe(want(0o755));
    await chmod(file, 0o644);
    await update(file, skillsJsonCodec, (c) => ({ next: { ...c, disabled: ["b"] }, result: null }), {
      confineTo: box.project,
    });
    expect(modeOf(file)).toBe(0o600);
  });

  test("a secrets directory is 0700 while the directories above it stay 0755", async () => {
    await using box = await sandbox();
    const secrets = join(box.agentDir, "secrets");
    await writeFileAtomic(join(secrets, "token.json"), "{}", { confineTo: null, dirMode: 0o700 });
    expect(modeOf(secrets)).toBe(0o700);
    expect(modeOf(join(secrets, "token.json"))).toBe(0o600);
    expect(modeOf(box.agentDir)).toBe(want(0o755));
  });

  test("an update() of a secrets file creates its directory 0700, lock included", async () => {
    await using box = await sandbox();
    const secrets = join(box.agentDir, "secrets");
    const file = join(secrets, "oauth.json");
    await update(file, skillsJsonCodec, (c) => ({ next: c, result: null }), { confineTo: null, dirMode: 0o700 });
    expect(modeOf(secrets)).toBe(0o700);
    expect(modeOf(file)).toBe(0o600);
    expect(modeOf(box.agentDir)).toBe(want(0o755));
  });

  test("a lock directory is 0755 with a 0600 owner record", async () => {
    await using box = await sandbox();
    const file = join(box.root, "state", "mcp.json");
    await using _lock = await acquireLock(file);
    expect(modeOf(`${file}.lock`)).toBe(want(0o755));
    expect(modeOf(`${file}.lock/owner.json`)).toBe(0o600);
  });
});
