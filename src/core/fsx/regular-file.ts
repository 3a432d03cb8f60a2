/**
 * @module fsx/regular-file
 * The one way lemon opens a file it did not just create: opened non-blocking, proven a regular
 * file by `fstat` on the open descriptor, then read with a byte bound. A FIFO, socket or device
 * named like a skill file is refused instead of blocking the process forever, and a file that
 * grows while it is read never costs more than `maxBytes + 1` bytes of memory.
 */
import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from "node:fs";

/** Why a file could not be read: `missing` (ENOENT/ENOTDIR), a non-regular file, over the bound, or an OS error. */
export type RegularFileProblem = "missing" | "not_regular" | "too_large" | "unreadable";

/** The bytes and the descriptor's stat, or the problem plus the OS error code (`errno`) when there was one. */
export type RegularFileRead =
  | { ok: true; bytes: Uint8Array; stat: Stats }
  | { ok: false; problem: RegularFileProblem; errno: string | null };

// O_NONBLOCK makes open() of a FIFO return at once instead of waiting for a writer; Windows
// has no such flag and no FIFOs reachable by path, so 0 there is harmless.
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

const errnoOf = (err: unknown): string =>
  err instanceof Error && "code" in err && typeof err.code === "string" ? err.code : "error";

/**
 * Reads `path` (symlinks followed) when it is a regular file of at most `maxBytes` bytes.
 * Never blocks on special files; never throws.
 */
export function readRegularFile(path: string, maxBytes: number): RegularFileRead {
  let fd: number;
  try {
    fd = openSync(path, OPEN_FLAGS);
  } catch (err) {
    const errno = errnoOf(err);
    return { ok: false, problem: errno === "ENOENT" || errno === "ENOTDIR" ? "missing" : "unreadable", errno };
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) return { ok: false, problem: "not_regular", errno: null };
    if (stat.size > maxBytes) return { ok: false, problem: "too_large", errno: null };
    // Read until EOF, never past one byte over the bound: a file that grew since the fstat is
    // still read whole when it fits and refused as soon as it does not.
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(Math.max(stat.size + 1 - total, 65536), maxBytes + 1 - total));
      const n = readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) break;
      chunks.push(n === chunk.length ? chunk : chunk.subarray(0, n));
      total += n;
      if (total > maxBytes) return { ok: false, problem: "too_large", errno: null };
    }
    return { ok: true, bytes: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total), stat };
  } catch (err) {
    return { ok: false, problem: "unreadable", errno: errnoOf(err) };
  } finally {
    closeSync(fd);
  }
}
