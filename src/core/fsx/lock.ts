/**
 * @module fsx/lock
 * `<file>.lock/` lock directories with an owner record (skills.md §1.3 rule 2). A lock whose
 * owner is gone (same host, pid not running or reused) is stale and recovered; a lock of a live
 * owner or of another host is never taken, and the CONFLICT message says which it is. A lock
 * appears with its record already inside, so one without a complete record is torn (a writer
 * killed mid-way, or not lemon's) and is recovered once older than a short grace period.
 */
import { existsSync, lstatSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { basename, dirname, join } from "node:path";
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
 * How old a torn lock directory (no complete owner record) must be before it is recovered. Lemon
 * itself never leaves one behind a live writer on POSIX (see createLock); the grace covers a
 * writer of the plain mkdir-then-write sequence (Windows, older lemon versions) between its two
 * steps, and a repository checkout dates a committed one to the checkout.
 */
export const TORN_GRACE_MS = 3000;

/**
 * POSIX rename(2) of a directory onto a missing path is atomic, so a lock can appear with its
 * record already inside. Windows refuses to rename onto an existing directory in ways that vary
 * by file system, and antivirus scanners make directory renames fail spuriously: there the lock
 * is made by mkdir and its record written at once after, which the torn-lock grace covers.
 */
const PREPARED_RENAME = process.platform !== "win32";

/**
 * Synchronous: the fewer event-loop turns between reading a record and acting on it, the better.
 * Bounded and regular files only, like every file lemon reads but did not just write. Null when
 * the record is missing, empty, unparsable or lacks the pid and host that identify an owner.
 */
function readOwner(lockDir: string): LockOwner | null {
  const read = readRegularFile(`${lockDir}/owner.json`, 4096);
  const text = read.ok ? decodeUtf8(read.bytes) : null;
  if (text === null) return null;
  let raw: unknown;
  try {
    raw = parseJson(text);
  } catch {
    return null;
  }
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) return null;
  const o = raw as Record<string, unknown>;
  if (typeof o.pid !== "number" || !Number.isSafeInteger(o.pid) || o.pid <= 0) return null;
  if (typeof o.host !== "string" || o.host === "" || typeof o.started_at !== "string") return null;
  const command = typeof o.command === "string" ? o.command : "";
  return { pid: o.pid, host: o.host, started_at: o.started_at, command };
}

/** One look at an existing lock: which directory (inode), when it last changed, and its owner. */
interface Seen {
  ino: number;
  mtimeMs: number;
  owner: LockOwner | null;
}

function look(lockDir: string): Seen | null {
  const st = lstatSync(lockDir, { throwIfNoEntry: false });
  return st === undefined ? null : { ino: st.ino, mtimeMs: st.mtimeMs, owner: readOwner(lockDir) };
}

type OwnerState = "alive" | "not running" | "reused" | "other host" | "torn";

/** Whether a lock's owner still holds it, as far as this host can tell. */
function ownerState(seen: Seen, lockDir: string): OwnerState {
  const owner = seen.owner;
  if (owner === null) return "torn";
  if (owner.host !== hostname()) return "other host";
  if (owner.pid === process.pid && isHeld(lockDir)) return "alive";
  if (!pidAlive(owner.pid)) return "not running";
  return pidReusedSince(owner.pid, owner.started_at) ? "reused" : "alive";
}

function recoverable(state: OwnerState, seen: Seen): boolean {
  if (state === "torn") return Date.now() - seen.mtimeMs > TORN_GRACE_MS;
  return state === "not running" || state === "reused";
}

function lockedMessage(file: string, seen: Seen | null, state: OwnerState): string {
  const hint = `remove ${file}.lock only if no lemon command is writing`;
  const owner = seen?.owner ?? null;
  if (owner === null) {
    // No record to name a pid or host from: the directory's own date is all there is.
    const since = isoSeconds(new Date(seen?.mtimeMs ?? Date.now()));
    return `${file} is locked by an unknown owner since ${since} (owner unknown); ${hint}`;
  }
  // Another host's pid cannot be checked from here: it counts as alive and is never taken.
  const alive = state === "not running" || state === "reused" ? "not running" : "alive";
  return `${file} is locked by pid ${owner.pid} on ${owner.host} since ${owner.started_at} (${alive}); ${hint}`;
}

function sameOwner(a: LockOwner | null, b: LockOwner | null): boolean {
  if (a === null || b === null) return a === b;
  return a.pid === b.pid && a.host === b.host && a.started_at === b.started_at;
}

/** The same directory with the same record; a torn one also unchanged since it was judged. */
function sameLock(now: Seen | null, judged: Seen, checkTime: boolean): boolean {
  if (now === null || now.ino !== judged.ino || !sameOwner(now.owner, judged.owner)) return false;
  return judged.owner !== null || !checkTime || now.mtimeMs === judged.mtimeMs;
}

/**
 * Moves a stale or torn lock aside and removes it. Of two writers that both judged it so only
 * one rename succeeds; the other sees ENOENT and goes back to creating, where again only one
 * wins. The lock is looked at again just before the rename and once more after it: if a fresh
 * owner took the lock in between, its lock is put back (and a release only removes its own).
 * A rename keeps the inode but may touch the directory's times, so the second look skips them.
 */
function breakLock(lockDir: string, judged: Seen): boolean {
  const aside = `${lockDir}.stale-${randomHex(6)}`;
  if (!sameLock(look(lockDir), judged, true)) return true;
  try {
    renameSync(lockDir, aside);
  } catch (err) {
    // Gone: another writer recovered it first. Anything else (a read-only directory): the
    // lock stays, and the CONFLICT describes its owner.
    return (err as NodeJS.ErrnoException).code === "ENOENT";
  }
  if (!sameLock(look(aside), judged, false)) {
    try {
      renameSync(aside, lockDir);
      return true;
    } catch {
      // A third writer made a new lock meanwhile; the displaced one is gone either way.
    }
  }
  rmSync(aside, { recursive: true, force: true });
  return true;
}

// rename(2) onto an existing lock: a non-empty directory, or something that is no directory.
const TAKEN = new Set(["EEXIST", "ENOTEMPTY", "ENOTDIR"]);

/**
 * Creates `<file>.lock/` with its complete owner record, or returns false when something is
 * there. All synchronous, so no signal handler runs between the steps; only a kill -9 can stop
 * it halfway, and then what is left is a `.tmp-` directory (see removeLeftovers), never a lock
 * without a record.
 */
function createLock(lockDir: string, record: string): boolean {
  if (!PREPARED_RENAME) {
    try {
      mkdirSync(lockDir, { mode: 0o755 });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "EEXIST") return false;
      throw err;
    }
    try {
      writeFileSync(`${lockDir}/owner.json`, record, { mode: 0o600, flag: "wx" });
    } catch (err) {
      rmSync(lockDir, { recursive: true, force: true });
      throw err;
    }
    return true;
  }
  // rename(2) also replaces an EMPTY directory, which a mkdir-then-write writer holds between
  // its two steps: never rename onto a path that exists. The check and the rename are two
  // system calls, so such a writer starting in between could still lose its lock; lemon's own
  // writers never hold a lock directory without its record.
  if (lstatSync(lockDir, { throwIfNoEntry: false }) !== undefined) return false;
  const tmp = `${lockDir}.tmp-${process.pid}-${randomHex(6)}`;
  mkdirSync(tmp, { mode: 0o755 });
  try {
    writeFileSync(`${tmp}/owner.json`, record, { mode: 0o600, flag: "wx" });
    renameSync(tmp, lockDir);
    return true;
  } catch (err) {
    rmSync(tmp, { recursive: true, force: true });
    const code = (err as NodeJS.ErrnoException).code ?? "";
    // ENOENT from the rename: the prepared directory was taken for a dead writer's (its pid
    // belongs to another host sharing this directory); simply prepare a new one.
    if (TAKEN.has(code) || (code === "ENOENT" && existsSync(dirname(lockDir)))) return false;
    throw err;
  }
}

/**
 * Removes the lock if it is still this owner's. On POSIX it is first renamed aside: removed in
 * place it would be an empty directory for a moment, which another writer's rename could replace.
 */
function removeOwnLock(lockDir: string, owner: LockOwner): void {
  if (!sameOwner(readOwner(lockDir), owner)) return;
  if (!PREPARED_RENAME) {
    rmSync(lockDir, { recursive: true, force: true });
    return;
  }
  const aside = `${lockDir}.stale-${randomHex(6)}`;
  try {
    renameSync(lockDir, aside);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return;
    throw err;
  }
  rmSync(aside, { recursive: true, force: true });
}

/**
 * Removes what a writer killed with -9 can leave beside a lock (rule 2's temp-file clean-up, for
 * directories): a prepared `.tmp-<pid>-` directory of a pid not running, and a lock moved
 * `.stale-` aside and not yet removed. Called while holding the lock; a `.stale-` directory is
 * kept for the grace period, since its breaker may be about to put it back (see breakLock).
 */
function removeLeftovers(lockDir: string): void {
  const dir = dirname(lockDir);
  const prefix = `${basename(lockDir)}.`;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const rest = name.slice(prefix.length);
    const path = join(dir, name);
    let left = false;
    if (rest.startsWith("tmp-")) {
      const pid = Number(rest.slice(4).split("-")[0]);
      left = Number.isSafeInteger(pid) && pid > 0 && pid !== process.pid && !pidAlive(pid);
    } else if (rest.startsWith("stale-")) {
      const st = lstatSync(path, { throwIfNoEntry: false });
      left = st !== undefined && Date.now() - st.mtimeMs > TORN_GRACE_MS;
    }
    if (left) rmSync(path, { recursive: true, force: true });
  }
}

type Attempt = { ok: true } | { ok: false; seen: Seen | null; state: OwnerState };

async function tryAcquire(file: string, owner: LockOwner, dirMode: number): Promise<Attempt> {
  const lockDir = `${file}.lock`;
  const record = JSON.stringify(owner) + "\n";
  await makeDir(dirname(file), dirMode);
  for (let round = 0; ; round++) {
    if (createLock(lockDir, record)) break;
    const seen = look(lockDir);
    // Released between the two looks: simply try again, a bounded number of times.
    if (seen === null && round < 3) continue;
    const state = seen === null ? "torn" : ownerState(seen, lockDir);
    if (seen === null || !recoverable(state, seen) || round >= 3 || !breakLock(lockDir, seen)) {
      return { ok: false, seen, state };
    }
  }
  holdPath(lockDir, () => removeOwnLock(lockDir, owner));
  removeLeftovers(lockDir);
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
      if (Date.now() >= deadline) throw conflict(lockedMessage(file, attempt.seen, attempt.state));
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
      // A lock moved aside and replaced while we held it (see breakLock) is no longer ours.
      removeOwnLock(lockDir, owner);
    } finally {
      releasePath(lockDir);
      releaseQueue();
      if (queues.get(file) === tail) queues.delete(file);
    }
  };
  return { path: lockDir, release, [Symbol.asyncDispose]: release };
}
