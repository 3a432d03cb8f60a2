/**
 * @module skills/search/file
 * Snapshot files on disk (DESIGN.md §4): mapped read-only with `Bun.mmap`, read into memory where
 * mapping fails; replaced only by writing a new file and renaming it over the old one, so a
 * process holding the old map keeps the old bytes. An empty or short file is never mapped.
 */
import { lstatSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { HEADER_BYTES, openSnapshot, type Snapshot } from "./format.ts";

export function snapshotPath(dir: string, scopeId: string): string {
  return join(dir, `${scopeId}.snap`);
}

/** The snapshot at `file`, or null when it is missing, a symlink, short, foreign, truncated or unreadable. */
export function readSnapshotFile(file: string): Snapshot | null {
  let size: number;
  try {
    // lstat: a symlink planted at the path is no snapshot; the rebuild's write replaces it.
    const st = lstatSync(file, { throwIfNoEntry: false });
    if (!st?.isFile()) return null;
    size = st.size;
  } catch {
    return null;
  }
  if (size < HEADER_BYTES) return null;
  let bytes: Uint8Array;
  let mapped = true;
  try {
    bytes = Bun.mmap(file, { shared: false });
  } catch {
    mapped = false;
    try {
      bytes = readFileSync(file);
    } catch {
      return null;
    }
  }
  const snap = openSnapshot(bytes, mapped);
  return typeof snap === "string" ? null : snap;
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
