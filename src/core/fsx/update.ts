/**
 * @module fsx/update
 * One read-modify-write transaction per state file: lock, read (missing = empty document,
 * invalid = refuse), change, verify nothing changed underneath, write atomically, unlock.
 */
import { readFile } from "node:fs/promises";
import type { TSchema, Static } from "@sinclair/typebox";
import { conflict } from "../errors.ts";
import { confinedTarget, formatJson, writeFileAtomic } from "./atomic.ts";
import { acquireLock } from "./lock.ts";
import { checkSchema } from "../schema/check.ts";

/** How a file's text becomes a document and back. `parse` throws an Error whose message is the reason. */
export interface Codec<T> {
  empty(): T;
  parse(text: string): T;
  serialize(value: T): string;
}

export function jsonCodec<S extends TSchema>(schema: S, empty: () => Static<S>): Codec<Static<S>> {
  return {
    empty,
    parse(text) {
      let raw: unknown;
      try {
        raw = JSON.parse(text);
      } catch (err) {
        throw new Error(`invalid JSON (${(err as Error).message.split("\n")[0]})`);
      }
      const problem = checkSchema(schema, raw);
      if (problem !== null) throw new Error(problem);
      return raw as Static<S>;
    },
    serialize: (v) => formatJson(v),
  };
}

export interface UpdateOptions {
  command?: string;
  lockTimeoutMs?: number;
  /** `C` for a file under `P`, else null: see `AtomicWriteOptions.confineTo`. Also confines the lock. */
  confineTo: string | null;
  mode?: number;
  now?: () => Date;
}

export interface Change<T, R> {
  /** The new document; undefined writes nothing. */
  next: T | undefined;
  result: R;
}

async function readBytes(file: string): Promise<Buffer | null> {
  try {
    return await readFile(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw err;
  }
}

/** Reads a document without locking; missing reads as empty. Throws on an invalid file. */
export async function readDocument<T>(file: string, codec: Codec<T>): Promise<T> {
  const bytes = await readBytes(file);
  if (bytes === null) return codec.empty();
  return codec.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
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
  });
  try {
    const before = await readBytes(real);
    let current: T;
    if (before === null) current = codec.empty();
    else {
      try {
        current = codec.parse(new TextDecoder("utf-8", { fatal: true }).decode(before));
      } catch (err) {
        throw conflict(`refusing to overwrite invalid ${file}: ${(err as Error).message}`);
      }
    }
    const { next, result } = await change(current);
    if (next === undefined) return result;
    const now = await readBytes(real);
    const same = before === null ? now === null : now !== null && Buffer.compare(before, now) === 0;
    if (!same) throw conflict(`${file} changed while it was being updated; retry`);
    await writeFileAtomic(real, codec.serialize(next), { mode: opts.mode ?? 0o600, confineTo: opts.confineTo });
    return result;
  } finally {
    await lock.release();
  }
}
