/**
 * @module skills/curator/state
 * `skills.curator.json` (skills.md §13.3). A run holds the file's lock for the whole pass, so two
 * runs of one scope never overlap (cron firing twice, a cron run beside the background curator);
 * the pass writes the file itself under that lock. A file that does not parse is reported and
 * never overwritten.
 */
import { jsonCodec, readDocument, update } from "../../fsx/update.ts";
import { confinedTarget, writeFileAtomic } from "../../fsx/atomic.ts";
import { acquireLock, type FileLock } from "../../fsx/lock.ts";
import { readRegularFile } from "../../fsx/regular-file.ts";
import { conflict, LemonError } from "../../errors.ts";
import { CuratorState, emptyCuratorState, MAX_CURATOR_STATE_BYTES } from "../../schema/curator.ts";
import { decodeUtf8 } from "../../text.ts";

export const curatorStateCodec = jsonCodec(CuratorState, emptyCuratorState, { maxBytes: MAX_CURATOR_STATE_BYTES });

/** The state, or why the file is unusable (then it reads as the empty document and is left in place). */
export type StateRead = { ok: true; state: CuratorState } | { ok: false; reason: string; state: CuratorState };

const reasonOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

export async function readState(file: string): Promise<StateRead> {
  try {
    return { ok: true, state: await readDocument(file, curatorStateCodec) };
  } catch (err) {
    return { ok: false, reason: reasonOf(err), state: emptyCuratorState() };
  }
}

/** Sets `paused` (pause/resume); the file keeps every other key. */
export async function setPaused(file: string, paused: boolean, confineTo: string | null, now: () => Date) {
  await update(
    file,
    curatorStateCodec,
    (cur) => ({ next: cur.paused === paused ? undefined : { ...cur, paused }, result: undefined }),
    { command: paused ? "skill curator pause" : "skill curator resume", confineTo, now },
  );
}

/** A held run lock: the state as read under it, and its rewrite (with change detection). */
export interface RunLock {
  state: CuratorState;
  write(next: CuratorState): Promise<void>;
  release(): Promise<void>;
}

/**
 * Takes the state file's lock without waiting for a live holder: null when another run (or a
 * pause) holds it, with the lock message. An invalid file fails CONFLICT (never overwritten).
 */
export async function lockForRun(
  file: string,
  confineTo: string | null,
  now: () => Date,
): Promise<{ ok: true; lock: RunLock } | { ok: false; message: string }> {
  const real = await confinedTarget(file, confineTo);
  let lock: FileLock;
  try {
    lock = await acquireLock(real, { command: "skill curator run", timeoutMs: 0, now });
  } catch (err) {
    if (err instanceof LemonError && err.code === "CONFLICT") return { ok: false, message: err.message };
    throw err;
  }
  try {
    const before = bytesOf(real);
    let state: CuratorState;
    try {
      state = before === null ? emptyCuratorState() : parse(before);
    } catch (err) {
      throw conflict(`refusing to overwrite invalid ${file}: ${reasonOf(err)}`);
    }
    const write = async (next: CuratorState) => {
      const current = bytesOf(real);
      const same = before === null ? current === null : current !== null && Buffer.compare(before, current) === 0;
      if (!same) throw conflict(`${file} changed while it was being updated; retry`);
      await writeFileAtomic(real, curatorStateCodec.serialize(next), { mode: 0o600, confineTo });
    };
    return { ok: true, lock: { state, write, release: () => lock.release() } };
  } catch (err) {
    await lock.release();
    throw err;
  }
}

function bytesOf(file: string): Uint8Array | null {
  const r = readRegularFile(file, MAX_CURATOR_STATE_BYTES);
  if (r.ok) return r.bytes;
  if (r.problem === "missing" && r.errno !== "ENOTDIR") return null;
  const why =
    r.problem === "too_large"
      ? `file exceeds ${MAX_CURATOR_STATE_BYTES} bytes`
      : r.problem === "not_regular"
        ? "not a regular file"
        : `cannot read file (${r.errno ?? "error"})`;
  throw new Error(why);
}

function parse(bytes: Uint8Array): CuratorState {
  const text = decodeUtf8(bytes);
  if (text === null) throw new Error("file is not valid UTF-8");
  return curatorStateCodec.parse(text);
}
