/**
 * @module skills/tools/contained-read
 * Reading one file of a skill for an agent (skills.md §8 `view=file`, §10 `skill://`): the path
 * an agent gives is untrusted. It must be relative, hold no NUL and no `..` segment, and what it
 * names must really lie inside the skill's real directory, checked segment-wise on the resolved
 * path and again on the descriptor actually opened, so a component swapped for a symlink between
 * the check and the open is caught. Only regular files, opened non-blocking (a FIFO never
 * blocks), at most 1 MiB read (a larger file is refused from its fstat, never read).
 */
import { closeSync, constants, fstatSync, lstatSync, openSync, readlinkSync, readSync, realpathSync } from "node:fs";
import { posix, win32, join } from "node:path";
import { isInside } from "../../paths.ts";
import { decodeUtf8 } from "../../text.ts";

/** The most bytes a supporting file may have to be shown (skills.md §8). */
export const MAX_TOOL_FILE_BYTES = 1024 * 1024;

/** Why a file could not be shown; the last four are the `read failure` reasons of skills.md §8. */
export type ReadProblem = "outside" | "not found" | "not a regular file" | "permission denied" | "too large";

/** A file read: its text, or null when it is not UTF-8 text (`binary`), with its byte size. */
export type ContainedRead =
  | { ok: true; text: string | null; bytes: number; realPath: string }
  | { ok: false; problem: ReadProblem };

const errnoOf = (err: unknown): string =>
  err instanceof Error && "code" in err && typeof err.code === "string" ? err.code : "error";

/**
 * True when `p` is a path an agent may name inside a skill: relative on every platform (no
 * leading `/` or `\`, no drive or UNC prefix), no NUL, and no `..` segment under either separator.
 */
export function isSafeRelativePath(p: string): boolean {
  if (p === "" || p.includes("\0")) return false;
  if (posix.isAbsolute(p) || win32.isAbsolute(p) || /^[A-Za-z]:/.test(p)) return false;
  return !p.split(/[\\/]/).includes("..");
}

function problemOf(errno: string): ReadProblem {
  if (errno === "EACCES" || errno === "EPERM") return "permission denied";
  // A socket or device node opened by path: ENXIO / ENODEV rather than a read.
  if (errno === "EISDIR" || errno === "ENXIO" || errno === "ENODEV") return "not a regular file";
  return "not found";
}

// O_NONBLOCK: a FIFO opens at once instead of waiting for a writer. O_NOFOLLOW: the last component
// is the resolved real path, so a link there now means it was swapped after the check.
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOFOLLOW ?? 0);

/**
 * Where the open descriptor really points, on systems that say (Linux /proc, macOS /dev/fd do
 * not agree on more): null when it cannot be told, and the inode comparison has to do.
 */
function openedPath(fd: number): string | null {
  try {
    return readlinkSync(`/proc/self/fd/${fd}`);
  } catch {
    return null;
  }
}

/** Reads at most `maxBytes + 1` bytes from `fd`: one byte over proves the file grew past the bound. */
function readBounded(fd: number, size: number, maxBytes: number): Uint8Array | null {
  const chunks: Buffer[] = [];
  let total = 0;
  for (;;) {
    const chunk = Buffer.allocUnsafe(Math.min(Math.max(size + 1 - total, 65536), maxBytes + 1 - total));
    const n = readSync(fd, chunk, 0, chunk.length, null);
    if (n === 0) break;
    chunks.push(n === chunk.length ? chunk : chunk.subarray(0, n));
    total += n;
    if (total > maxBytes) return null;
  }
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total);
}

/**
 * Text of bytes a model may be shown: strict UTF-8 without NUL, else null (binary). A NUL is
 * valid UTF-8 but no text file holds one, and it would cut many a consumer's string short.
 */
export function textOf(bytes: Uint8Array): string | null {
  if (bytes.includes(0)) return null;
  return decodeUtf8(bytes);
}

/**
 * Reads `rel` inside the skill whose real directory is `skillReal`. Never throws, never follows a
 * link out of the skill, never blocks on a special file, never reads more than `maxBytes + 1`.
 */
export function readContained(skillReal: string, rel: string, maxBytes = MAX_TOOL_FILE_BYTES): ContainedRead {
  const r = readContainedBytes(skillReal, rel, maxBytes);
  return r.ok ? { ok: true, text: textOf(r.bytes), bytes: r.bytes.byteLength, realPath: r.realPath } : r;
}

/** {@link readContained}'s bytes, undecoded (SKILL.md goes to the catalog's own decoder). */
export function readContainedBytes(
  skillReal: string,
  rel: string,
  maxBytes = MAX_TOOL_FILE_BYTES,
): { ok: true; bytes: Uint8Array; realPath: string } | { ok: false; problem: ReadProblem } {
  if (!isSafeRelativePath(rel)) return { ok: false, problem: "outside" };
  let real: string;
  try {
    real = realpathSync(join(skillReal, rel));
  } catch (err) {
    return { ok: false, problem: problemOf(errnoOf(err)) };
  }
  if (!isInside(real, skillReal)) return { ok: false, problem: "outside" };
  let fd: number;
  try {
    fd = openSync(real, OPEN_FLAGS);
  } catch (err) {
    const errno = errnoOf(err);
    // ELOOP under O_NOFOLLOW: the file became a link after it was resolved.
    return { ok: false, problem: errno === "ELOOP" ? "outside" : problemOf(errno) };
  }
  try {
    const opened = openedPath(fd);
    if (opened !== null ? !isInside(opened, skillReal) : !sameFile(fd, real)) return { ok: false, problem: "outside" };
    const st = fstatSync(fd);
    if (!st.isFile()) return { ok: false, problem: "not a regular file" };
    // A hard link is the outside file itself under an inside name; no path check can tell, so a
    // supporting file with a second name anywhere is refused (SKILL.md is the catalog's already).
    if (st.nlink > 1 && rel !== "SKILL.md") return { ok: false, problem: "outside" };
    // `SKILL.md/` and `SKILL.md/.` name a directory that is not there (ENOTDIR on POSIX), though
    // realpath accepts them: the path is used as given.
    if (/[\\/]\.?$/.test(rel)) return { ok: false, problem: "not found" };
    if (st.size > maxBytes) return { ok: false, problem: "too large" };
    const bytes = readBounded(fd, st.size, maxBytes);
    if (bytes === null) return { ok: false, problem: "too large" };
    return { ok: true, bytes, realPath: real };
  } catch (err) {
    return { ok: false, problem: problemOf(errnoOf(err)) };
  } finally {
    closeSync(fd);
  }
}

/** The descriptor is the file now at `real` (where /proc cannot name it). */
function sameFile(fd: number, real: string): boolean {
  try {
    const a = fstatSync(fd);
    const b = lstatSync(real);
    return a.ino === b.ino && a.dev === b.dev;
  } catch {
    return false;
  }
}
