/**
 * @module fsx/lock
 * `<file>.lock/` lock directories with an owner record (skills.md §1.3). A stale lock is reported,
 * never broken: the message says whether the owner is alive and how to remove it.
 */
import { hostname } from "node:os";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { conflict } from "../errors.ts";
import { isoSeconds } from "./atomic.ts";

export interface LockOwner {
  pid: number;
  host: string;
  started_at: string;
  command: string;
}

export interface LockOptions {
  /** Short label of what holds the lock, e.g. "skill disable". */
  command?: string;
  /** How long to keep retrying before failing with CONFLICT (default about 2 s). */
  timeoutMs?: number;
  now?: () => Date;
}

export interface FileLock extends AsyncDisposable {
  readonly path: string;
  release(): Promise<void>;
}

// Writers of one file inside one process queue here instead of spinning on mkdir.
const queues = new Map<string, Promise<void>>();

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

async function readOwner(lockDir: string): Promise<LockOwner | null> {
  try {
    const raw: unknown = JSON.parse(await readFile(`${lockDir}/owner.json`, "utf8"));
    if (raw && typeof raw === "object") {
      const o = raw as Record<string, unknown>;
      return {
        pid: typeof o.pid === "number" ? o.pid : -1,
        host: typeof o.host === "string" ? o.host : "unknown",
        started_at: typeof o.started_at === "string" ? o.started_at : "unknown",
        command: typeof o.command === "string" ? o.command : "",
      };
    }
  } catch {
    // Owner record missing or torn: reported as unknown below.
  }
  return null;
}

export async function lockedMessage(file: string): Promise<string> {
  const owner = await readOwner(`${file}.lock`);
  const host = hostname();
  const pid = owner?.pid ?? -1;
  const ownerHost = owner?.host ?? "unknown";
  const since = owner?.started_at ?? "unknown";
  const alive = owner && ownerHost === host && pid > 0 ? (pidAlive(pid) ? "alive" : "not running") : "alive";
  return `${file} is locked by pid ${pid} on ${ownerHost} since ${since} (${alive}); remove ${file}.lock only if no lemon command is writing`;
}

async function tryAcquire(file: string, owner: LockOwner): Promise<boolean> {
  const lockDir = `${file}.lock`;
  await mkdir(dirname(file), { recursive: true });
  try {
    await mkdir(lockDir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw err;
  }
  await writeFile(`${lockDir}/owner.json`, JSON.stringify(owner) + "\n", { mode: 0o600 });
  return true;
}

/** Takes `<file>.lock/`; fails with CONFLICT naming the owner after the timeout. */
export async function acquireLock(file: string, opts: LockOptions = {}): Promise<FileLock> {
  const previous = queues.get(file) ?? Promise.resolve();
  let releaseQueue!: () => void;
  const mine = new Promise<void>((r) => (releaseQueue = r));
  const tail = previous.then(() => mine);
  queues.set(file, tail);
  await previous;

  const owner: LockOwner = {
    pid: process.pid,
    host: hostname(),
    started_at: isoSeconds((opts.now ?? (() => new Date()))()),
    command: opts.command ?? "lemon",
  };
  const deadline = Date.now() + (opts.timeoutMs ?? 2000);
  let delay = 10;
  try {
    while (!(await tryAcquire(file, owner))) {
      if (Date.now() >= deadline) throw conflict(await lockedMessage(file));
      await Bun.sleep(delay + Math.floor(Math.random() * delay));
      delay = Math.min(delay * 2, 200);
    }
  } catch (err) {
    releaseQueue();
    if (queues.get(file) === tail) queues.delete(file);
    throw err;
  }

  let released = false;
  const release = async () => {
    if (released) return;
    released = true;
    try {
      await rm(`${file}.lock`, { recursive: true, force: true });
    } finally {
      releaseQueue();
      if (queues.get(file) === tail) queues.delete(file);
    }
  };
  return { path: `${file}.lock`, release, [Symbol.asyncDispose]: release };
}
