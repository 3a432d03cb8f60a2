/**
 * @module mcp/read
 * Reading configuration files of lemon and other tools: size caps, missing vs unreadable, and
 * the three formats (JSON, JSONC, TOML: src/core/toml.ts). Failures become reasons for a diagnostic
 * that names the file, never its content.
 */
import { statSync } from "node:fs";
import { readRegularFile } from "../fsx/regular-file.ts";
import { isJsonFormatError, parseJson } from "../json.ts";
import { parseToml } from "../toml.ts";
import { decodeUtf8 } from "../text.ts";

/** lemon's own files (mcp.json, config.toml): read and rewritten under the same cap. */
export const MAX_CONFIG_BYTES = 1024 * 1024;
/** Other tools' files (mcp.md §4.1): `~/.claude.json` holds whole project histories. */
export const MAX_IMPORT_BYTES = 64 * 1024 * 1024;

export type ReadResult = { kind: "missing" } | { kind: "text"; text: string } | { kind: "error"; reason: string };

const NOT_REGULAR: ReadResult = { kind: "error", reason: "not a regular file" };

/** stat() never blocks, even on a FIFO; only asked once a file proved not regular. */
function isDirectory(file: string): boolean {
  try {
    return statSync(file).isDirectory();
  } catch {
    return false;
  }
}

/**
 * Missing (or a directory) → missing; bigger than `max`, unreadable or not a regular file (a
 * FIFO, socket or device) → error, so the caller's diagnostic names the file. Synchronous on
 * purpose: ~30 small files per listing, and Bun's sync calls skip the thread-pool hop that makes
 * the promise API cost several milliseconds on the `mcp list` hot path.
 */
export async function readCapped(file: string, max = MAX_CONFIG_BYTES): Promise<ReadResult> {
  return readCappedSync(file, max);
}

export function readCappedSync(file: string, max = MAX_CONFIG_BYTES): ReadResult {
  // Never open() a FIFO for reading as is: it blocks until a writer comes (a cloned repository's
  // `.lemon/mcp.json` could hang every `mcp list`). readRegularFile opens non-blocking and reads
  // regular files only; a directory in a file's place is as good as no file.
  const read = readRegularFile(file, max);
  if (!read.ok) {
    if (read.problem === "missing") return { kind: "missing" };
    if (read.problem === "not_regular") return isDirectory(file) ? { kind: "missing" } : NOT_REGULAR;
    if (read.problem === "too_large") return { kind: "error", reason: `file exceeds ${max} bytes` };
    if (read.errno === "EISDIR") return { kind: "missing" };
    return { kind: "error", reason: `cannot read file (${read.errno ?? "error"})` };
  }
  const text = decodeUtf8(read.bytes);
  return text === null ? { kind: "error", reason: "file is not valid UTF-8" } : { kind: "text", text };
}

export type Format = "json" | "jsonc" | "toml";

/** Why a file is rejected: `duplicate_key` (mcp.md §4.1) is told apart so a diagnostic can say so. */
export type ParseProblem = "syntax" | "duplicate_key" | "number";
export type Parsed = { ok: true; value: unknown } | { ok: false; reason: string; problem: ParseProblem };

/** JSON or JSONC through the strict reader, synchronously (a rewrite's codec needs it so). */
export function parseJsonText(text: string, jsonc = false): Parsed {
  try {
    return { ok: true, value: parseJson(text, { jsonc }) };
  } catch (err) {
    if (!isJsonFormatError(err)) throw err;
    return { ok: false, reason: err.reason, problem: err.problem };
  }
}

/**
 * JSON and JSONC go through the one strict reader (src/core/json.ts): a duplicate key or a number
 * that does not round-trip makes a file invalid, whether lemon would rewrite it or only import it.
 */
export async function parseText(text: string, format: Format): Promise<Parsed> {
  if (format !== "toml") return parseJsonText(text, format === "jsonc");
  const r = await parseToml(text);
  return r.ok ? r : { ok: false, reason: r.reason, problem: r.problem };
}
