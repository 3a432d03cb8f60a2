/**
 * @module fsx/atomic
 * Atomic file writes (skills.md §1.3): exclusive 0600 temp file beside the real target, write,
 * fsync, rename, fsync the directory. A symlinked target is written through, keeping the link.
 */
import { mkdir, open, readlink, realpath, rename, rm } from "node:fs/promises";
import { lstatSync } from "node:fs";
import { basename, dirname, isAbsolute, join, resolve, sep } from "node:path";
import { forbidden } from "../errors.ts";

export interface AtomicWriteOptions {
  mode?: number;
  /** Refuse to write when the resolved target lies outside this (real) directory. */
  confineTo?: string;
  /** Create missing parent directories with this mode (default 0755). */
  dirMode?: number;
  /**
   * fsync the file and directory (default true). Only for caches that validate themselves on
   * read and are rebuilt when they do not: the rename is still atomic, only durability is skipped.
   */
  sync?: boolean;
}

/**
 * Hex of random bytes from Web Crypto: importing node:crypto would set up Node's stream classes,
 * ~10 ms at the start of every command that may write a file.
 */
function randomHex(bytes: number): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(bytes))).toString("hex");
}

/** Follows a chain of symlinks at `target` (which may dangle) to the file that should be written. */
export async function resolveWriteTarget(target: string): Promise<string> {
  let current = resolve(target);
  for (let hops = 0; hops < 40; hops++) {
    let st;
    try {
      st = lstatSync(current);
    } catch {
      break;
    }
    if (!st.isSymbolicLink()) break;
    const link = await readlink(current);
    current = isAbsolute(link) ? link : resolve(dirname(current), link);
  }
  // Resolve the parent directory's own symlinks so the temp file and rename share one directory.
  try {
    const parent = await realpath(dirname(current));
    return join(parent, basename(current));
  } catch {
    return current;
  }
}

export function isInside(child: string, parent: string): boolean {
  const p = parent.endsWith(sep) ? parent : parent + sep;
  return child === parent || child.startsWith(p);
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
  opts: AtomicWriteOptions = {},
): Promise<string> {
  const real = await resolveWriteTarget(target);
  if (opts.confineTo !== undefined) {
    let root = opts.confineTo;
    try {
      root = await realpath(root);
    } catch {
      // A root that does not exist yet cannot contain the target's real path either.
    }
    if (!isInside(real, root)) throw forbidden(`refusing to write through symlink: ${target}`);
  }
  const dir = dirname(real);
  await mkdir(dir, { recursive: true, mode: opts.dirMode ?? 0o755 });
  const tmp = join(dir, `.${basename(real)}.tmp-${process.pid}-${randomHex(6)}`);
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
