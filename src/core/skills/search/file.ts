/**
 * @module skills/search/file
 * Snapshot files on disk (DESIGN.md §4): mapped read-only with `Bun.mmap`, read into memory where
 * mapping fails; replaced only by writing a new file and renaming it over the old one, so a
 * process holding the old map keeps the old bytes. An empty or short file is never mapped.
 *
 * Another program may still write the file in place (`: > f`, `cp x f`, `rsync --inplace`, a
 * backup restore). A private map shares the file's pages until they are written, so the process
 * would see the new bytes, and a truncated file makes the next read past its end a SIGBUS that no
 * handler can catch. So every mapped snapshot remembers the stats of the file it mapped, and the
 * store calls `mappingIntact` before each use (one stat): a changed file's map is dropped and
 * never read again. What remains: a truncation that lands during one query's reads (between
 * that stat and the scoring, or while a build reads the previous snapshot) can still fault.
 */
import { lstatSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { HEADER_BYTES, openSnapshot, type Snapshot } from "./format.ts";
import { STAT_FIELDS, put } from "./stat-many.ts";

/** lstat as the first look at the path does: a symlink put there since is a change, never followed. */
function lstatOne(file: string) {
  try {
    return lstatSync(file, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

/** Per mapped snapshot: its file and that file's stats when mapped (stat-many.ts layout). */
const mappedFrom = new WeakMap<Snapshot, { file: string; stats: Float64Array }>();
const statNow = new Float64Array(STAT_FIELDS);

/**
 * False when `snap` is a map of a file whose size, times, inode or device changed since it was
 * mapped (the map must not be read again); true for a snapshot held in memory.
 */
export function mappingIntact(snap: Snapshot): boolean {
  if (!snap.mapped) return true;
  const m = mappedFrom.get(snap);
  if (!m) return false;
  put(statNow, 0, lstatOne(m.file));
  for (let i = 0; i < STAT_FIELDS; i++) if (statNow[i] !== m.stats[i]) return false;
  return true;
}

export function snapshotPath(dir: string, scopeId: string): string {
  return join(dir, `${scopeId}.snap`);
}

/** The snapshot at `file`, or null when it is missing, a symlink, short, foreign, truncated or unreadable. */
export function readSnapshotFile(file: string): Snapshot | null {
  const stats = new Float64Array(STAT_FIELDS);
  try {
    // lstat: a symlink planted at the path is no snapshot; the rebuild's write replaces it.
    const st = lstatSync(file, { throwIfNoEntry: false });
    if (!st?.isFile()) return null;
    put(stats, 0, st);
  } catch {
    return null;
  }
  if (stats[0]! < HEADER_BYTES) return null;
  let bytes: Uint8Array | null = null;
  try {
    bytes = Bun.mmap(file, { shared: false });
    // The file the map shows must be the one stat'ed: one replaced or resized in between is read
    // into memory instead (a copy, never faults).
    put(statNow, 0, lstatOne(file));
    for (let i = 0; i < STAT_FIELDS; i++) if (statNow[i] !== stats[i]) bytes = null;
  } catch {
    bytes = null;
  }
  const mapped = bytes !== null;
  if (bytes === null)
    try {
      bytes = readFileSync(file);
    } catch {
      return null;
    }
  const snap = openSnapshot(bytes, mapped);
  if (typeof snap === "string") return null;
  if (snap.mapped) mappedFrom.set(snap, { file, stats });
  return snap;
}

/**
 * Writes a snapshot atomically (temp file + rename); returns an error message instead of throwing.
 * No fsync: an fsync of tens of MB costs more than the rebuild, and a file torn by a crash fails
 * the header's length or identity check and is rebuilt.
 */
export async function writeSnapshotFile(file: string, bytes: Uint8Array): Promise<string | null> {
  try {
    // Loaded here: a query against a current snapshot never writes, and the writer pulls in
    // node:fs/promises (with node:events) at start-up otherwise.
    const { writeFileAtomic } = await import("../../fsx/atomic.ts");
    // replaceLink: the cache is disposable, so a link planted at its path is replaced, never
    // written through (unlike the state files of skills.md §1.3.1).
    await writeFileAtomic(file, bytes, { mode: 0o600, sync: false, confineTo: null, replaceLink: true });
    return null;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}
