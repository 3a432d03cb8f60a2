import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { join } from "node:path";
import { acquireLock } from "../../../src/core/fsx/lock.ts";
import { LemonError } from "../../../src/core/errors.ts";
import { sandbox } from "../../support/sandbox.ts";

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

  test("a lock held by a dead pid is reported, never broken", async () => {
    await using box = await sandbox();
    const file = join(box.root, "mcp.json");
    await mkdir(`${file}.lock`);
    const dead = 2 ** 22 + 12345;
    await writeFile(`${file}.lock/owner.json`, JSON.stringify({ pid: dead, host: hostname(), started_at: "2026-01-01T00:00:00Z", command: "x" }));
    const err = await acquireLock(file, { timeoutMs: 50 }).catch((e) => e);
    expect(LemonError.is(err)).toBe(true);
    expect((err as LemonError).code).toBe("CONFLICT");
    expect((err as LemonError).message).toBe(
      `${file} is locked by pid ${dead} on ${hostname()} since 2026-01-01T00:00:00Z (not running); remove ${file}.lock only if no lemon command is writing`,
    );
    expect(existsSync(`${file}.lock/owner.json`)).toBe(true);
  });

  test("a lock held by a live process says alive", async () => {
    await using box = await sandbox();
    const file = join(box.root, "f.json");
    await mkdir(`${file}.lock`);
    await writeFile(`${file}.lock/owner.json`, JSON.stringify({ pid: process.pid, host: hostname(), started_at: "2026-01-01T00:00:00Z", command: "x" }));
    const err = (await acquireLock(file, { timeoutMs: 30 }).catch((e) => e)) as LemonError;
    expect(err.message).toContain("(alive)");
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
