// Torn lock directories (an owner record missing, empty or unparsable) and foreign locks from a
// cloned repository (skills.md §1.3 rule 2).
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdir, utimes, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { join } from "node:path";
import { acquireLock, TORN_GRACE_MS } from "../../../src/core/fsx/lock.ts";
import { LemonError } from "../../../src/core/errors.ts";
import { sandbox } from "../../support/sandbox.ts";
import { raceForLock } from "./race.ts";

const LOCK_TS = join(import.meta.dir, "../../../src/core/fsx/lock.ts");

/** A lock directory with `record` as owner.json (null: no owner.json), dated `ageMs` ago. */
async function tornLock(file: string, record: string | null, ageMs: number): Promise<void> {
  await mkdir(`${file}.lock`, { recursive: true });
  if (record !== null) await writeFile(`${file}.lock/owner.json`, record);
  const when = new Date(Date.now() - ageMs);
  await utimes(`${file}.lock`, when, when);
}

const leftovers = (dir: string) => readdirSync(dir).filter((n) => n.includes(".lock."));

describe("torn lock directories", () => {
  const OLD = TORN_GRACE_MS + 60_000;
  for (const [label, record] of [
    ["an empty owner.json (kill -9 between mkdir and write)", ""],
    ["no owner.json", null],
    ["an owner.json that is not JSON", '{"pid": 12'],
    ["an owner.json without pid and host", "{}"],
    ["an owner.json with a pid that is no pid", JSON.stringify({ pid: 0, host: hostname(), started_at: "x" })],
  ] as const) {
    test(`${label}, older than the grace period: recovered`, async () => {
      await using box = await sandbox();
      const file = join(box.root, "skills.json");
      await tornLock(file, record, OLD);
      const lock = await acquireLock(file, { timeoutMs: 50, command: "mine" });
      const owner = JSON.parse(readFileSync(`${file}.lock/owner.json`, "utf8"));
      expect(owner).toMatchObject({ pid: process.pid, host: hostname(), command: "mine" });
      await lock.release();
      expect(existsSync(`${file}.lock`)).toBe(false);
      expect(leftovers(box.root)).toEqual([]);
    });
  }

  test("a young torn lock is not taken, and the message does not claim the owner is alive", async () => {
    await using box = await sandbox();
    const file = join(box.root, "skills.json");
    await tornLock(file, "", 0);
    const err = (await acquireLock(file, { timeoutMs: 30 }).catch((e) => e)) as LemonError;
    expect(err).toBeInstanceOf(LemonError);
    expect(err.code).toBe("CONFLICT");
    expect(err.message).toMatch(
      new RegExp(
        `^${file} is locked by an unknown owner since \\d{4}-\\d\\d-\\d\\dT[\\d:]{8}Z \\(owner unknown\\); ` +
          `remove ${file}.lock only if no lemon command is writing$`,
      ),
    );
    expect(err.message).not.toContain("alive");
    expect(readdirSync(`${file}.lock`)).toEqual(["owner.json"]);
  });

  test("several processes recovering one torn lock: exactly one holds it at a time", async () => {
    await using box = await sandbox();
    const file = join(box.root, "skills.json");
    await tornLock(file, "", OLD);
    await raceForLock(box, file);
    expect(leftovers(box.root)).toEqual([]);
  }, 30000);

  test("a lock directory that exists is always complete: a reader never sees a partial owner record", async () => {
    await using box = await sandbox();
    const file = join(box.root, "skills.json");
    const done = join(box.root, "done");
    // One writer takes and releases the lock over and over while this process keeps reading it.
    const script = await box.write(
      "cycler.ts",
      `
import { writeFileSync } from "node:fs";
import { acquireLock } from ${JSON.stringify(LOCK_TS)};
const [file, done] = process.argv.slice(2);
for (let i = 0; i < 400; i++) await (await acquireLock(file, { command: "cycle" })).release();
writeFileSync(done, "");
`,
    );
    const child = Bun.spawn([process.execPath, script, file, done], { stdout: "ignore", stderr: "inherit" });
    const partial: string[] = [];
    let seen = 0;
    while (!existsSync(done) && partial.length === 0) {
      let text: string;
      try {
        text = readFileSync(`${file}.lock/owner.json`, "utf8");
      } catch {
        await Bun.sleep(0);
        continue;
      }
      seen++;
      try {
        if (JSON.parse(text).command !== "cycle") partial.push(text);
      } catch {
        partial.push(text);
      }
    }
    child.kill();
    await child.exited;
    expect(partial).toEqual([]);
    expect(seen).toBeGreaterThan(0);
  }, 30000);
});

describe("what a kill -9 leaves beside a lock", () => {
  test("a dead pid's prepared .tmp- directory and an old .stale- one are removed; others are kept", async () => {
    await using box = await sandbox();
    const file = join(box.root, "skills.json");
    const dead = 2 ** 22 + 4321;
    const remove = [`skills.json.lock.tmp-${dead}-abcdef`, "skills.json.lock.stale-0123456789ab"];
    const live = `skills.json.lock.tmp-${process.ppid}-abcdef`;
    const keep = [live, "skills.json.lock.stale-fresh", "skills.json.lock.bak"];
    const other = `mcp.json.lock.tmp-${dead}-abcdef`;
    for (const name of [...remove, ...keep, other]) {
      await mkdir(join(box.root, name));
      await writeFile(join(box.root, name, "owner.json"), "{}");
    }
    const old = new Date(Date.now() - TORN_GRACE_MS - 60_000);
    for (const name of [...remove, other]) await utimes(join(box.root, name), old, old);
    await (await acquireLock(file, { timeoutMs: 50 })).release();
    expect(leftovers(box.root).sort()).toEqual([...keep, other].sort());
  });
});

describe("a lock of another host committed to a cloned repository", () => {
  const record = { pid: 4242, host: "attacker-laptop", started_at: "2026-01-01T00:00:00Z", command: "skill disable" };

  test("is never taken, however old, and the CONFLICT names the directory to remove", async () => {
    await using box = await sandbox();
    const file = join(box.project, ".lemon", "skills.json");
    await tornLock(file, JSON.stringify(record), 365 * 86_400_000);
    const err = (await acquireLock(file, { timeoutMs: 30 }).catch((e) => e)) as LemonError;
    expect(err.code).toBe("CONFLICT");
    expect(err.message).toBe(
      `${file} is locked by pid 4242 on attacker-laptop since 2026-01-01T00:00:00Z (alive); ` +
        `remove ${file}.lock only if no lemon command is writing`,
    );
    expect(JSON.parse(readFileSync(`${file}.lock/owner.json`, "utf8"))).toEqual(record);
  });

  test("lemon skill disable --local fails CONFLICT naming the lock; removing it as told fixes it", async () => {
    await using box = await sandbox();
    const file = join(box.project, ".lemon", "skills.json");
    await tornLock(file, JSON.stringify(record), 0);
    const failed = await box.cli(["skill", "disable", "evil", "--local", "--force", "--json"]);
    expect(failed.code).not.toBe(0);
    const error = failed.json().error as { code: string; message: string };
    expect(error.code).toBe("CONFLICT");
    expect(error.message).toContain(`remove ${file}.lock only if no lemon command is writing`);
    expect(existsSync(file)).toBe(false);
    expect(existsSync(`${file}.lock/owner.json`)).toBe(true);
    const { rm } = await import("node:fs/promises");
    await rm(`${file}.lock`, { recursive: true });
    const ok = await box.cli(["skill", "disable", "evil", "--local", "--force", "--json"]);
    expect(ok.code).toBe(0);
    expect(existsSync(file)).toBe(true);
  });
});
