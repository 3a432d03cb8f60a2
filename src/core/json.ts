/**
 * @module json
 * The one strict reader for lemon-owned and imported JSON (and JSONC) files. The native parser
 * checks the syntax; one pass over the text then rejects what a parser accepts but a rewrite
 * would silently change: the same key twice in one object (a reader sees the first, a parser
 * keeps the last) and numbers that do not round-trip (`1e400` becomes Infinity, then `null`).
 * skills.md §1.3 rule 4.
 *
 * Callers catch `JsonFormatError` and word it for their file:
 * `refusing to overwrite invalid <file>: <reason>`, or a diagnostic naming the file and `key`.
 */
import { LemonError } from "./errors.ts";
import { clampChars, flattenLine } from "./text.ts";

export type JsonProblem = "syntax" | "duplicate_key" | "number";

/**
 * A file's text is not acceptable JSON. `reason` is one line that quotes no value (only a
 * duplicated key or an offending number literal), for `refusing to overwrite invalid <file>: <reason>`.
 */
export class JsonFormatError extends LemonError {
  readonly reason: string;
  readonly problem: JsonProblem;
  /** The duplicated key, decoded, for a `duplicate_key` problem. */
  readonly key?: string;
  /** UTF-16 offset in the text (after a dropped BOM) where the problem was found; absent for syntax errors. */
  readonly offset?: number;

  constructor(problem: JsonProblem, reason: string, extra: { key?: string; offset?: number; cause?: unknown } = {}) {
    super("INVALID_REQUEST", reason, extra.cause !== undefined ? { cause: extra.cause } : {});
    this.reason = reason;
    this.problem = problem;
    if (extra.key !== undefined) this.key = extra.key;
    if (extra.offset !== undefined) this.offset = extra.offset;
  }
}

/** Checks fields rather than the prototype, like `LemonError.is`. */
export function isJsonFormatError(x: unknown): x is JsonFormatError {
  return LemonError.is(x) && typeof (x as { reason?: unknown }).reason === "string" && "problem" in x;
}

export interface ParseJsonOptions {
  /** Comments, trailing commas and the other relaxations of Bun's JSONC parser. */
  jsonc?: boolean;
}

/** Parses `text` strictly; throws `JsonFormatError` (a `LemonError`) on any problem. */
export function parseJson(text: string, options: ParseJsonOptions = {}): unknown {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const jsonc = options.jsonc === true;
  let value: unknown;
  try {
    value = jsonc ? (Bun.JSONC.parse(body) as unknown) : (JSON.parse(body) as unknown);
  } catch (err) {
    throw new JsonFormatError("syntax", syntaxReason(err, jsonc), { cause: err });
  }
  scan(body, jsonc);
  return value;
}

/** The parser's first line without any quoted token: a broken file's message must not echo its content. */
function syntaxReason(err: unknown, jsonc: boolean): string {
  const first = err instanceof Error ? (err.message.split("\n")[0] ?? "") : "";
  const detail = first
    .replace(/^JSONC? Parse error:\s*/i, "")
    // Quoted grammar punctuation is the parser's own; any other quoted token may come from the file.
    .replace(/(["'`])([^"'`]*)\1/g, (m, _q: string, inner: string) => (/^[{}[\]:,]$/.test(inner) ? m : "…"))
    .replace(/\s+/g, " ")
    .trim();
  const label = jsonc ? "invalid JSONC" : "invalid JSON";
  return detail === "" ? label : `${label} (${clampChars(detail, 80)})`;
}

const QUOTE = 0x22;
const APOS = 0x27;
const BACKSLASH = 0x5c;
const SLASH = 0x2f;

/**
 * One pass over text the native parser already accepted, so the structure is trusted: it only
 * tracks which string is a key and looks at number tokens. Strings are skipped with indexOf, so
 * the loop body runs for structure, whitespace and numbers only. Keys go into one map per depth,
 * stamped with the id of the object that holds them, so no object costs an allocation: siblings
 * at one depth differ by id, and a nested object's keys never overwrite its parent's.
 */
function scan(text: string, jsonc: boolean): void {
  const seen: Map<string, number>[] = [];
  /** Per depth: the open object's id, or 0 for an array. */
  const open: number[] = [0];
  let depth = 0;
  let ids = 0;
  let expectKey = false;
  // The next backslash at or after the current string, so a string without one needs no escape check.
  let backslash = -2;
  const n = text.length;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    // Whitespace first: most of a pretty-printed file outside its strings.
    if (c <= 0x20) i++;
    else if (c === QUOTE || (jsonc && c === APOS)) {
      if (backslash !== -1 && backslash < i) backslash = text.indexOf("\\", i);
      const q = c === QUOTE ? '"' : "'";
      let end = text.indexOf(q, i + 1);
      if (backslash !== -1 && backslash < end) end = escapedStringEnd(text, end, q);
      if (expectKey) {
        const id = open[depth]!;
        const keys = seen[depth] ?? (seen[depth] = new Map());
        const escaped = backslash !== -1 && backslash < end;
        const key = escaped ? decodeKey(text.slice(i, end + 1), jsonc) : text.slice(i + 1, end);
        if (keys.get(key) === id) throw duplicateKey(key, i);
        keys.set(key, id);
        expectKey = false;
      }
      i = end + 1;
    } else if (c === 0x7b /* { */) {
      open[++depth] = ++ids;
      expectKey = true;
      i++;
    } else if (c === 0x5b /* [ */) {
      open[++depth] = 0;
      expectKey = false;
      i++;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      depth--;
      expectKey = false;
      i++;
    } else if (c === 0x2c /* , */) {
      expectKey = open[depth] !== 0;
      i++;
    } else if (c === 0x2d /* - */ || (c >= 0x30 && c <= 0x39) || c === 0x2e /* . (JSONC) */) {
      i = checkNumber(text, i);
    } else if (jsonc && c === SLASH) {
      i = commentEnd(text, i);
    } else i++;
  }
}

function duplicateKey(key: string, offset: number): JsonFormatError {
  return new JsonFormatError("duplicate_key", `duplicate key '${clampChars(flattenLine(key), 100)}'`, { key, offset });
}

/** From the first candidate closing quote `j`, the first one not escaped by an odd run of backslashes. */
function escapedStringEnd(text: string, j: number, q: string): number {
  while (j > 0) {
    let k = j - 1;
    while (text.charCodeAt(k) === BACKSLASH) k--;
    if ((j - 1 - k) % 2 === 0) return j;
    j = text.indexOf(q, j + 1);
  }
  // Unreachable for text the native parser accepted.
  return text.length;
}

function decodeKey(literal: string, jsonc: boolean): string {
  if (!jsonc) return JSON.parse(literal) as string;
  // JSONC escapes (`\x41`) decode only with its own parser, which takes no bare single-quoted string.
  return Object.keys(Bun.JSONC.parse(`{${literal}:0}`) as object)[0] ?? "";
}

function commentEnd(text: string, i: number): number {
  const next = text.charCodeAt(i + 1);
  if (next === SLASH) {
    const nl = text.indexOf("\n", i + 2);
    return nl < 0 ? text.length : nl + 1;
  }
  if (next === 0x2a /* * */) {
    const close = text.indexOf("*/", i + 2);
    return close < 0 ? text.length : close + 2;
  }
  return i + 1;
}

function isNumberChar(c: number): boolean {
  // Digits, sign, point, exponent, and the hex digits and `x` JSONC allows.
  return (
    (c >= 0x30 && c <= 0x39) ||
    c === 0x2d ||
    c === 0x2b ||
    c === 0x2e ||
    (c >= 0x41 && c <= 0x46) ||
    (c >= 0x61 && c <= 0x66) ||
    c === 0x78 ||
    c === 0x58
  );
}

/** Checks the number token at `start`; returns the index after it. */
function checkNumber(text: string, start: number): number {
  let j = start + 1;
  let plain = true;
  while (j < text.length) {
    const c = text.charCodeAt(j);
    if (!isNumberChar(c)) break;
    if (c !== 0x2e && (c < 0x30 || c > 0x39)) plain = false;
    j++;
  }
  // Up to 15 characters of digits, sign and point is always finite, never underflows, and as
  // an integer stays below 2^53: the common case needs no conversion at all.
  if (plain && j - start <= 15) return j;
  const literal = text.slice(start, j);
  if (!roundTrips(literal)) {
    throw new JsonFormatError("number", `number ${clampChars(literal, 40)} does not round-trip`, { offset: start });
  }
  return j;
}

const DECIMAL = /^(-?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;

/** A decimal literal as significant digits times a power of ten; null when it is not one. */
function decimal(literal: string): { negative: boolean; digits: string; scale: number } | null {
  const m = DECIMAL.exec(literal);
  if (m === null) return null;
  const frac = m[3] ?? "";
  const all = (m[2] ?? "") + frac;
  const lead = all.replace(/^0+/, "");
  const digits = lead.replace(/0+$/, "");
  const scale = (m[4] === undefined ? 0 : Number(m[4])) - frac.length + (lead.length - digits.length);
  return { negative: m[1] === "-", digits, scale };
}

/**
 * True when writing the parsed number back gives the number the literal wrote: the double's
 * shortest decimal form has the literal's exact decimal value. `1e23` passes (written back as
 * `1e+23`); `1e400` (Infinity), `1e-400` (0), `9007199254740993` and digits past a double's
 * precision do not.
 */
export function roundTrips(literal: string): boolean {
  const negative = literal.startsWith("-");
  const unsigned = negative ? literal.slice(1) : literal;
  if (/^0[xX]/.test(unsigned)) {
    const value = Number(unsigned);
    return Number.isSafeInteger(value) || BigInt(unsigned) === BigInt(value);
  }
  const value = Number(literal);
  // What JSON.stringify wrote comes back the same: the common case, without the regex.
  if (String(value) === literal) return true;
  if (!Number.isFinite(value)) return false;
  const written = decimal(literal);
  if (written === null) return true; // a JSONC form the decimal grammar does not cover (`1.`, `.5` are covered)
  if (written.digits === "") return true; // zero in any spelling, -0 included
  const back = decimal(String(value));
  if (back === null || back.digits === "") return false;
  return back.negative === written.negative && back.digits === written.digits && back.scale === written.scale;
}
