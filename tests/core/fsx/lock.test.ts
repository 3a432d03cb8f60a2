import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { chmod, mkdir, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { join } from "node:path";
import { acquireLock, type LockOwner } from "../../../src/core/fsx/lock.ts";
import { isoSeconds } from "../../../src/core/fsx/atomic.ts";
import type { LemonError } from "../../../src/core/errors.ts";
import { sandbox } from "../../support/sandbox.ts";
import { raceForLock } from "./race.ts";

/** Above the largest pid Linux hands out (2^22). */
const DEAD = 2 ** 22 + 12345;

async function ownedLock(file: string, owner: LockOwner): Promise<void> {
  await mkdir(`${file}.lock`, { recursive: true });
  await writeFile(`${file}.lock/owner.json`, JSON.stringify(owner));
}

/** A live process that is not this one, killed on dispose. */
function sleeper(): { pid: number } & Disposable {
  const child = Bun.spawn([process.execPath, "-e", "setInterval(() => {}, 1000)"], {
    stdio: ["ignore", "ignore", "ignore"],
  });
  return { pid: child.pid, [Symbol.dispose]: () => child.kill() };
}

describe("lock directories", () => {
  test("acquire writes owner.json and release removes the lock", async () => {
    await using box = await sandbox();
    const file = join(box.root, "skills.json");
    const lock = await acquireLock(file, { command: "test", now: () => new Date("2026-01-02T03:04:05Z") });
    const owner = JSON.parse(readFileSync(`${file}.lock/owner.json`, "utf8"));
    expect(owner).toEqual({ pid: process.pid, host: hostname(), started_at: "2026-01-02T03:04:05Z", command: "test" });
    await lock.release();
    expect(existsSync(`${file}.lock`)).toBe(false);
  });

  test("a lock whose owner pid is not running on this host is stale: recovered", async () => {
    await using box = await sandbox();
    const file = join(box.root, "mcp.json");
    await ownedLock(file, { pid: DEAD, host: hostname(), started_at: "2026-01-01T00:00:00Z", command: "x" });
    const lock = await acquireLock(file, { timeoutMs: 50, command: "mine" });
    expect(JSON.parse(readFileSync(`${file}.lock/owner.json`, "utf8")).command).toBe("mine");
    expect(readdirSync(box.root).filter((n) => n.includes(".stale-"))).toEqual([]);
    await lock.release();
    expect(existsSync(`${file}.lock`)).toBe(false);
  });

  test("a live pid that started after started_at is a reused pid: recovered", async () => {
    await using box = await sandbox();
    const file = join(box.root, "f.json");
    // This process is alive but began long after 2001; the lock cannot be its own.
    await ownedLock(file, { pid: process.pid, host: hostname(), started_at: "2001-01-01T00:00:00Z", command: "x" });
    await using _lock = await acquireLock(file, { timeoutMs: 50 });
    expect(JSON.parse(readFileSync(`${file}.lock/owner.json`, "utf8")).started_at).not.toBe("2001-01-01T00:00:00Z");
  });

  test("a lock held by a live process is never taken and says alive", async () => {
    await using box = await sandbox();
    const file = join(box.root, "f.json");
    await using child = sleeper();
    const startedAt = isoSeconds(new Date(Date.now() + 60_000));
    const record = { pid: child.pid, host: hostname(), started_at: startedAt, command: "x" };
    await ownedLock(file, record);
    const err = (await acquireLock(file, { timeoutMs: 30 }).catch((e) => e)) as LemonError;
    expect(err.code).toBe("CONFLICT");
    expect(err.message).toBe(
      `${file} is locked by pid ${child.pid} on ${hostname()} since ${startedAt} (alive); ` +
        `remove ${file}.lock only if no lemon command is writing`,
    );
    expect(JSON.parse(readFileSync(`${file}.lock/owner.json`, "utf8"))).toEqual(record);
  });

  test("a lock of another host is never taken, even with a pid not running here", async () => {
    await using box = await sandbox();
    const file = join(box.root, "f.json");
    const host = `${hostname()}-elsewhere`;
    await ownedLock(file, { pid: DEAD, host, started_at: "2026-01-01T00:00:00Z", command: "x" });
    const err = (await acquireLock(file, { timeoutMs: 30 }).catch((e) => e)) as LemonError;
    expect(err.code).toBe("CONFLICT");
    expect(err.message).toContain(`locked by pid ${DEAD} on ${host} since 2026-01-01T00:00:00Z (alive)`);
    expect(existsSync(`${file}.lock/owner.json`)).toBe(true);
  });

  // Older torn locks are recovered: lock-torn.test.ts.
  test("a fresh lock without a readable owner record is not taken: owner unknown, not alive", async () => {
    await using box = await sandbox();
    const file = join(box.root, "f.json");
    await mkdir(`${file}.lock`);
    const err = (await acquireLock(file, { timeoutMs: 30 }).catch((e) => e)) as LemonError;
    expect(err.code).toBe("CONFLICT");
    expect(err.message).toContain("(owner unknown)");
    expect(existsSync(`${file}.lock`)).toBe(true);
  });

  // Root ignores directory modes, so the lock could always be moved aside.
  const root = process.getuid?.() === 0;
  test.skipIf(root)("a stale lock that cannot be moved aside: CONFLICT saying not running", async () => {
    await using box = await sandbox();
    const file = join(box.root, "f.json");
    await ownedLock(file, { pid: DEAD, host: hostname(), started_at: "2026-01-01T00:00:00Z", command: "x" });
    await chmod(box.root, 0o500);
    try {
      const err = (await acquireLock(file, { timeoutMs: 30 }).catch((e) => e)) as LemonError;
      expect(err.message).toContain("(not running)");
    } finally {
      await chmod(box.root, 0o700);
    }
  });

  test("writers in one process queue in call order", async () => {
    await using box = await sandbox();
    const file = join(box.root, "q.json");
    const order: number[] = [];
    const first = await acquireLock(file);
    const waiters = [1, 2, 3].map(async (n) => {
      await using _l = await acquireLock(file);
      order.push(n);
    });
    await Bun.sleep(5);
    order.push(0);
    await first.release();
    await Promise.all(waiters);
    expect(order).toEqual([0, 1, 2, 3]);
  });
});

describe("stale lock recovery across processes", () => {
  test("writers racing for one stale lock take it one at a time", async () => {
    await using box = await sandbox();
    const file = join(box.root, "skills.json");
    await ownedLock(file, { pid: DEAD, host: hostname(), started_at: "2026-01-01T00:00:00Z", command: "x" });
    await raceForLock(box, file);
    expect(readdirSync(box.root).filter((n) => n.includes(".stale-"))).toEqual([]);
  }, 30000);
});
