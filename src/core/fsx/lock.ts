/**
 * @module fsx/lock
 * `<file>.lock/` lock directories with an owner record (skills.md §1.3 rule 2). A lock whose
 * owner is gone (same host, pid not running or reused) is stale and recovered; a lock of a live
 * owner or of another host is never taken, and the CONFLICT message says which it is.
 */
import { rmSync } from "node:fs";
import { hostname } from "node:os";
import { mkdir, rename, rm, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { conflict } from "../errors.ts";
import { parseJson } from "../json.ts";
import { readRegularFile } from "./regular-file.ts";
import { decodeUtf8 } from "../text.ts";
import { isoSeconds, makeDir, randomHex } from "./atomic.ts";
import { holdPath, isHeld, releasePath } from "./cleanup.ts";
import { pidAlive, pidReusedSince } from "./pid.ts";

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
  /** Mode of the file's directory if the lock has to create it (default 0755; 0700 for secrets). */
  dirMode?: number;
}

export interface FileLock extends AsyncDisposable {
  readonly path: string;
  release(): Promise<void>;
}

// Writers of one file inside one process queue here instead of spinning on mkdir.
const queues = new Map<string, Promise<void>>();

/**
 * Synchronous: the fewer event-loop turns between reading a record and acting on it, the better.
 * Bounded and regular files only, like every file lemon reads but did not just write.
 */
function readOwner(lockDir: string): LockOwner | null {
  // Missing or torn (a writer between its mkdir and its write): unknown, so never judged stale.
  const read = readRegularFile(`${lockDir}/owner.json`, 4096);
  const text = read.ok ? decodeUtf8(read.bytes) : null;
  if (text === null) return null;
  try {
    const raw: unknown = parseJson(text);
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
    // Not JSON: as unknown as a missing record.
  }
  return null;
}

type OwnerState = "alive" | "not running" | "reused" | "unknown";

/** Whether a recorded owner still holds its lock, as far as this host can tell. */
function ownerState(owner: LockOwner | null, lockDir: string): OwnerState {
  if (owner === null || owner.pid <= 0 || owner.host !== hostname()) return "unknown";
  if (owner.pid === process.pid && isHeld(lockDir)) return "alive";
  if (!pidAlive(owner.pid)) return "not running";
  return pidReusedSince(owner.pid, owner.started_at) ? "reused" : "alive";
}

const isStale = (state: OwnerState) => state === "not running" || state === "reused";

function lockedMessage(file: string, owner: LockOwner | null, state: OwnerState): string {
  const pid = owner?.pid ?? -1;
  const host = owner?.host ?? "unknown";
  const since = owner?.started_at ?? "unknown";
  // Another host's pid cannot be checked from here: it counts as alive, like an unreadable record.
  const alive = isStale(state) ? "not running" : "alive";
  return (
    `${file} is locked by pid ${pid} on ${host} since ${since} (${alive}); ` +
    `remove ${file}.lock only if no lemon command is writing`
  );
}

function sameOwner(a: LockOwner | null, b: LockOwner): boolean {
  return a !== null && a.pid === b.pid && a.host === b.host && a.started_at === b.started_at;
}

/**
 * Moves a stale lock aside and removes it. Of two writers that both judged it stale only one
 * rename succeeds; the other sees ENOENT and goes back to mkdir, where again only one wins.
 * The record is read again just before the rename and once more after it: if a fresh owner
 * took the lock in between, its lock is put back (and a release only ever removes its own).
 */
async function breakStale(lockDir: string, stale: LockOwner): Promise<boolean> {
  const aside = `${lockDir}.stale-${randomHex(6)}`;
  if (!sameOwner(readOwner(lockDir), stale)) return true;
  try {
    await rename(lockDir, aside);
  } catch (err) {
    // Gone: another writer recovered it first. Anything else (a read-only directory): the
    // lock stays, and the CONFLICT names its owner as not running.
    return (err as NodeJS.ErrnoException).code === "ENOENT";
  }
  if (!sameOwner(readOwner(aside), stale)) {
    try {
      await rename(aside, lockDir);
      return true;
    } catch {
      // A third writer made a new lock meanwhile; the displaced one is gone either way.
    }
  }
  await rm(aside, { recursive: true, force: true });
  return true;
}

type Attempt = { ok: true } | { ok: false; owner: LockOwner | null; state: OwnerState };

async function tryAcquire(file: string, owner: LockOwner, dirMode: number): Promise<Attempt> {
  const lockDir = `${file}.lock`;
  await makeDir(dirname(file), dirMode);
  for (let breaks = 0; ; breaks++) {
    try {
      await mkdir(lockDir, { mode: 0o755 });
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
    const current = readOwner(lockDir);
    const state = ownerState(current, lockDir);
    if (current === null || !isStale(state) || breaks >= 3 || !(await breakStale(lockDir, current))) {
      return { ok: false, owner: current, state };
    }
  }
  holdPath(lockDir, () => rmSync(lockDir, { recursive: true, force: true }));
  try {
    await writeFile(`${lockDir}/owner.json`, JSON.stringify(owner) + "\n", { mode: 0o600 });
  } catch (err) {
    await rm(lockDir, { recursive: true, force: true });
    releasePath(lockDir);
    throw err;
  }
  return { ok: true };
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
  const lockDir = `${file}.lock`;
  const deadline = Date.now() + (opts.timeoutMs ?? 2000);
  let delay = 10;
  try {
    for (;;) {
      const attempt = await tryAcquire(file, owner, opts.dirMode ?? 0o755);
      if (attempt.ok) break;
      if (Date.now() >= deadline) throw conflict(lockedMessage(file, attempt.owner, attempt.state));
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
      // A lock moved aside and replaced while we held it (see breakStale) is no longer ours.
      const current = readOwner(lockDir);
      if (current === null || sameOwner(current, owner)) await rm(lockDir, { recursive: true, force: true });
    } finally {
      releasePath(lockDir);
      releaseQueue();
      if (queues.get(file) === tail) queues.delete(file);
    }
  };
  return { path: lockDir, release, [Symbol.asyncDispose]: release };
}
