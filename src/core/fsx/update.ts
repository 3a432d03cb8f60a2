/**
 * @module fsx/update
 * One read-modify-write transaction per state file: lock, read (missing = empty document,
 * invalid = refuse), change, verify nothing changed underneath, write atomically, unlock.
 */
import type { TSchema, Static } from "@sinclair/typebox";
import { conflict } from "../errors.ts";
import { isJsonFormatError, parseJson } from "../json.ts";
import { checkSchema } from "../schema/check.ts";
import { readRegularFile } from "./regular-file.ts";
import { decodeUtf8 } from "../text.ts";
import { confinedTarget, formatJson, writeFileAtomic } from "./atomic.ts";
import { acquireLock } from "./lock.ts";

/** How a file's text becomes a document and back. `parse` throws an Error whose message is the reason. */
export interface Codec<T> {
  empty(): T;
  parse(text: string): T;
  serialize(value: T): string;
  /**
   * The largest file a read accepts. `update()` applies the same bound before rewriting, so a
   * file too large to read is too large to rewrite (it is invalid, never replaced).
   */
  maxBytes?: number;
}

export interface JsonCodecOptions {
  maxBytes?: number;
}

/**
 * A lemon JSON file checked against its schema, read with the strict reader: a duplicate key or
 * a number that does not round-trip makes the file invalid, since a rewrite would lose data.
 */
export function jsonCodec<S extends TSchema>(
  schema: S,
  empty: () => Static<S>,
  opts: JsonCodecOptions = {},
): Codec<Static<S>> {
  return {
    empty,
    parse(text) {
      let raw: unknown;
      try {
        raw = parseJson(text);
      } catch (err) {
        // A plain Error, as the Codec contract says: callers tell OS errors apart by an errno `code`.
        throw new Error(isJsonFormatError(err) ? err.reason : "invalid JSON");
      }
      const problem = checkSchema(schema, raw);
      if (problem !== null) throw new Error(problem);
      return raw as Static<S>;
    },
    serialize: (v) => formatJson(v),
    ...(opts.maxBytes !== undefined ? { maxBytes: opts.maxBytes } : {}),
  };
}

/** A file that exists but cannot be a document: the reason, for `refusing to overwrite invalid …`. */
class UnusableFile extends Error {}

/** An OS error reading the file; `code` is its errno. */
class UnreadableFile extends Error {
  constructor(readonly code: string) {
    super(`cannot read file (${code})`);
  }
}

/**
 * The file's bytes, or null when missing. Regular files only (a FIFO would block forever), and
 * never more than the codec's bound plus one byte. An OS error keeps its errno in `code`.
 */
function readBytes(file: string, maxBytes: number | undefined): Uint8Array | null {
  const read = readRegularFile(file, maxBytes ?? Number.MAX_SAFE_INTEGER);
  if (read.ok) return read.bytes;
  // ENOTDIR: a parent is a file. Nothing could be written there either, so it is not "missing".
  if (read.problem === "missing" && read.errno !== "ENOTDIR") return null;
  if (read.problem === "not_regular") throw new UnusableFile("not a regular file");
  if (read.problem === "too_large") throw new UnusableFile(`file exceeds ${maxBytes} bytes`);
  throw new UnreadableFile(read.errno ?? "error");
}

function decode<T>(bytes: Uint8Array, codec: Codec<T>): T {
  const text = decodeUtf8(bytes);
  if (text === null) throw new UnusableFile("file is not valid UTF-8");
  return codec.parse(text);
}

export interface UpdateOptions {
  command?: string;
  lockTimeoutMs?: number;
  /** `C` for a file under `P`, else null: see `AtomicWriteOptions.confineTo`. Also confines the lock. */
  confineTo: string | null;
  mode?: number;
  /** Mode of the file's directory when it is created (default 0755; 0700 for `A/secrets/`). */
  dirMode?: number;
  now?: () => Date;
}

export interface Change<T, R> {
  /** The new document; undefined writes nothing. */
  next: T | undefined;
  result: R;
}

/**
 * Reads a document without locking; missing reads as empty. Throws on an invalid file (an
 * Error whose message is the reason) or an unreadable one (an Error with an errno `code`).
 */
export async function readDocument<T>(file: string, codec: Codec<T>): Promise<T> {
  const bytes = readBytes(file, codec.maxBytes);
  return bytes === null ? codec.empty() : decode(bytes, codec);
}

export async function update<T, R>(
  file: string,
  codec: Codec<T>,
  change: (current: T) => Change<T, R> | Promise<Change<T, R>>,
  opts: UpdateOptions,
): Promise<R> {
  // Before the lock: its directory must not be created through a symlink leaving C either.
  const real = await confinedTarget(file, opts.confineTo);
  const lock = await acquireLock(real, {
    command: opts.command ?? "lemon",
    ...(opts.lockTimeoutMs !== undefined ? { timeoutMs: opts.lockTimeoutMs } : {}),
    ...(opts.now ? { now: opts.now } : {}),
    ...(opts.dirMode !== undefined ? { dirMode: opts.dirMode } : {}),
  });
  try {
    let before: Uint8Array | null;
    let current: T;
    try {
      before = readBytes(real, codec.maxBytes);
      current = before === null ? codec.empty() : decode(before, codec);
    } catch (err) {
      if (err instanceof UnreadableFile) throw err;
      throw conflict(`refusing to overwrite invalid ${file}: ${err instanceof Error ? err.message : String(err)}`);
    }
    const { next, result } = await change(current);
    if (next === undefined) return result;
    let now: Uint8Array | null | undefined;
    try {
      now = readBytes(real, codec.maxBytes);
    } catch (err) {
      // Grown past the bound or replaced by a non-file meanwhile: changed, like any other edit.
      if (!(err instanceof UnusableFile)) throw err;
    }
    const same = before === null ? now === null : now != null && Buffer.compare(before, now) === 0;
    if (!same) throw conflict(`${file} changed while it was being updated; retry`);
    await writeFileAtomic(real, codec.serialize(next), {
      mode: opts.mode ?? 0o600,
      confineTo: opts.confineTo,
      ...(opts.dirMode !== undefined ? { dirMode: opts.dirMode } : {}),
    });
    return result;
  } finally {
    await lock.release();
  }
}
