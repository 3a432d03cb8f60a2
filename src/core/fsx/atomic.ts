/**
 * @module fsx/atomic
 * Atomic file writes (skills.md §1.3): exclusive 0600 temp file beside the real target, write,
 * fsync, rename, fsync the directory. A symlinked target is written through, keeping the link,
 * unless its real path leaves the project (rule 1: checked before anything is created); a cache
 * asks to replace the link instead (`replaceLink`). Temp
 * files of writers that died are removed; this writer's own temp is released on a signal.
 */
import { mkdir, open, readdir, readlink, realpath, rename, rm } from "node:fs/promises";
import { lstatSync, rmSync, statSync } from "node:fs";
import { basename, dirname, isAbsolute, join, resolve } from "node:path";
import { conflict, forbidden } from "../errors.ts";
import { isInside } from "../paths.ts";
import { holdPath, releasePath } from "./cleanup.ts";
import { pidAlive } from "./pid.ts";

export interface AtomicWriteOptions {
  mode?: number;
  /**
   * The project directory `C` when the file is under `P` (`<C>/.lemon`), else null. Required so
   * no writer under `P` can forget it: the resolved target must lie inside C's real path
   * (skills.md §1.3 rule 1), checked before any directory, lock or temp file is created.
   */
  confineTo: string | null;
  /** Mode of the target's directory when it is created (default 0755; 0700 for `A/secrets/`). */
  dirMode?: number;
  /**
   * fsync the file and directory (default true). Only for caches that validate themselves on
   * read and are rebuilt when they do not: the rename is still atomic, only durability is skipped.
   */
  sync?: boolean;
  /**
   * Replace a symlink at the target itself (rename over it) instead of writing through it. Only
   * for disposable caches: a link planted there must not aim lemon's write at another file. The
   * directories' links are still resolved and confined. State files follow links (§1.3.1).
   */
  replaceLink?: boolean;
}

/**
 * Hex of random bytes from Web Crypto: importing node:crypto would set up Node's stream classes,
 * ~10 ms at the start of every command that may write a file.
 */
export function randomHex(bytes: number): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(bytes))).toString("hex");
}

/**
 * The real path `path` has, or would have once created: every existing component's symlinks
 * resolved, a dangling link followed to where it points, missing components appended. So a
 * missing `.lemon/cache/` under a `.lemon` symlink resolves to the link's side, not to C's.
 */
async function realOrPlanned(path: string, hops = 0): Promise<string> {
  if (hops > 64) throw Object.assign(new Error(`too many symbolic links: ${path}`), { code: "ELOOP" });
  try {
    return await realpath(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
  }
  const parent = dirname(path);
  if (parent === path) return path;
  let link: string | null = null;
  try {
    if (lstatSync(path).isSymbolicLink()) link = await readlink(path);
  } catch {
    // Missing: appended to its parent's real path below.
  }
  const realParent = await realOrPlanned(parent, hops + 1);
  if (link === null) return join(realParent, basename(path));
  return realOrPlanned(isAbsolute(link) ? link : resolve(realParent, link), hops + 1);
}

/** The nearest existing ancestor of `path` that is not a directory (a `.lemon` that is a file). */
function fileInTheWay(path: string): string | null {
  for (let p = dirname(path); p !== dirname(p); p = dirname(p)) {
    try {
      if (!statSync(p).isDirectory()) return p;
    } catch {
      // Missing (or unreadable): keep walking up to the component that blocks the path.
    }
  }
  return null;
}

/**
 * The file a write of `target` changes: its symlinks (the file's and its directories') resolved.
 * A file where a directory must be is a CONFLICT naming it, not a raw ENOTDIR.
 */
export async function resolveWriteTarget(target: string): Promise<string> {
  try {
    return await realOrPlanned(resolve(target));
  } catch (err) {
    const blocker = (err as NodeJS.ErrnoException).code === "ENOTDIR" ? fileInTheWay(resolve(target)) : null;
    if (blocker !== null) throw conflict(`${blocker} is not a directory`);
    throw err;
  }
}

/** `resolveWriteTarget`, refusing (FORBIDDEN) a real path outside `confineTo`'s real path. */
export async function confinedTarget(target: string, confineTo: string | null): Promise<string> {
  const real = await resolveWriteTarget(target);
  if (confineTo !== null && !isInside(real, await realOrPlanned(resolve(confineTo)))) {
    throw forbidden(`refusing to write through symlink: ${target}`);
  }
  return real;
}

/**
 * Creates `dir` with `mode` and any missing ancestors 0755 (rule 6): a secrets directory is
 * 0700 without making the agent directory above it 0700 too. An existing `dir` keeps its mode.
 */
export async function makeDir(dir: string, mode: number): Promise<void> {
  try {
    await mkdir(dir, { mode });
    return;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "EEXIST") return;
    if (code !== "ENOENT") throw err;
  }
  await mkdir(dirname(dir), { recursive: true, mode: 0o755 });
  try {
    await mkdir(dir, { mode });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
  }
}

/** Removes `.<base>.tmp-<pid>-*` files beside a target whose writing process is gone. */
async function removeDeadTemps(dir: string, base: string): Promise<void> {
  const prefix = `.${base}.tmp-`;
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const pid = Number(name.slice(prefix.length).split("-")[0]);
    if (!Number.isSafeInteger(pid) || pid <= 0 || pid === process.pid || pidAlive(pid)) continue;
    await rm(join(dir, name), { force: true });
  }
}

async function fsyncDir(dir: string): Promise<void> {
  if (process.platform === "win32") return;
  try {
    const fh = await open(dir, "r");
    try {
      await fh.sync();
    } finally {
      await fh.close();
    }
  } catch {
    // Some file systems refuse directory fsync; the rename itself is still atomic.
  }
}

async function renameWithRetry(from: string, to: string): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await rename(from, to);
      return;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (process.platform === "win32" && (code === "EPERM" || code === "EBUSY") && attempt < 10) {
        await Bun.sleep(20 * (attempt + 1));
        continue;
      }
      throw err;
    }
  }
}

export async function writeFileAtomic(
  target: string,
  data: string | Uint8Array,
  opts: AtomicWriteOptions,
): Promise<string> {
  const real = opts.replaceLink
    ? join(await confinedTarget(dirname(resolve(target)), opts.confineTo), basename(target))
    : await confinedTarget(target, opts.confineTo);
  const dir = dirname(real);
  await makeDir(dir, opts.dirMode ?? 0o755);
  await removeDeadTemps(dir, basename(real));
  const tmp = join(dir, `.${basename(real)}.tmp-${process.pid}-${randomHex(6)}`);
  holdPath(tmp, () => rmSync(tmp, { force: true }));
  try {
    const fh = await open(tmp, "wx", opts.mode ?? 0o600);
    try {
      await fh.writeFile(data);
      if (opts.sync !== false) await fh.sync();
    } finally {
      await fh.close();
    }
    await renameWithRetry(tmp, real);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  } finally {
    releasePath(tmp);
  }
  if (opts.sync !== false) await fsyncDir(dir);
  return real;
}

/** Two-space JSON with a trailing newline, the on-disk format of every lemon JSON file. */
export function formatJson(value: unknown): string {
  return JSON.stringify(value, null, 2) + "\n";
}

/** ISO-8601 UTC with seconds precision and Z. */
export function isoSeconds(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, "Z");
}
