/**
 * @module text
 * Text hygiene for everything lemon shows a human or a model: control, bidi and invisible
 * characters, clamping, XML escaping and redaction. Skill and MCP content is untrusted data.
 */

/* eslint-disable no-control-regex */
const BIDI = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/u;
const BIDI_G = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/gu;
const ZERO_WIDTH_G = /[\u200B-\u200D\u2060\uFEFF]/gu;
const TAG_CHARS_G = /[\u{E0000}-\u{E007F}]/gu;
// C0 except TAB/LF/CR, DEL, C1.
const CONTROL_G = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/gu;
const ANSI_G = /\u001B\[[0-?]*[ -/]*[@-~]|\u001B\][^\u0007\u001B]*(?:\u0007|\u001B\\)|\u001B[@-Z\\-_]/gu;
const UNSAFE_IN_LINE = /[\u0000-\u0008\u000A-\u001F\u007F-\u009F]/u;

/**
 * Printable ASCII only: nothing to strip or flatten. Checked first because it is the common case
 * and one plain regex, where the Unicode-mode ones below each cost a compile on first use.
 */
const PLAIN = /^[\x20-\x7e]*$/;

export const ELLIPSIS = "…";

/** True for a string the manifest validator accepts as "safe text" (skills.md §4.4). */
export function isSafeText(s: unknown): s is string {
  if (typeof s !== "string") return false;
  if (s.trim() === "") return false;
  if (UNSAFE_IN_LINE.test(s)) return false;
  if (BIDI.test(s)) return false;
  if (hasLoneSurrogate(s)) return false;
  return true;
}

/** True when `s` holds a surrogate without its pair; native, where a loop over every character
 * of every manifest string is hot enough for the JIT to compile it on a cold listing. */
export function hasLoneSurrogate(s: string): boolean {
  return !s.isWellFormed();
}

// fatal: invalid bytes are an error, never U+FFFD; the default ignoreBOM: false drops a leading BOM.
const UTF8 = new TextDecoder("utf-8", { fatal: true });

/**
 * The one strict UTF-8 decoder for bytes lemon did not write (skill files, state and config
 * files, audited bundles): a leading BOM dropped, null when the bytes are not valid UTF-8.
 */
export function decodeUtf8(bytes: Uint8Array): string | null {
  try {
    return UTF8.decode(bytes);
  } catch {
    return null;
  }
}

export function utf8Bytes(s: string): number {
  return Buffer.byteLength(s, "utf8");
}

/** Number of code points (limits in the spec count characters, not UTF-16 units). */
export function charCount(s: string): number {
  if (PLAIN.test(s)) return s.length;
  let n = 0;
  for (const _ of s) n++;
  return n;
}

export function stripAnsi(s: string): string {
  return s.includes("\u001B") ? s.replace(ANSI_G, "") : s;
}

/** Removes everything a terminal or a model could be tricked by; keeps TAB/CR/LF. */
export function stripInvisible(s: string): string {
  if (PLAIN.test(s)) return s;
  return s
    .replace(/[\uD800-\uDFFF]/gu, (m) => (m.length === 2 ? m : ""))
    .replace(CONTROL_G, "")
    .replace(BIDI_G, "")
    .replace(ZERO_WIDTH_G, "")
    .replace(TAG_CHARS_G, "");
}

/** Cuts to at most `max` code points, the last being "…" when cut. */
export function clampChars(s: string, max: number): string {
  // Never more code points than UTF-16 units.
  if (s.length <= max) return s;
  const cps = Array.from(s);
  if (cps.length <= max) return s;
  return cps.slice(0, Math.max(0, max - 1)).join("") + ELLIPSIS;
}

/** Cuts to at most `maxBytes` UTF-8 bytes, ending with "…" when cut, never splitting a code point. */
export function clampBytes(s: string, maxBytes: number): string {
  if (utf8Bytes(s) <= maxBytes) return s;
  const budget = maxBytes - utf8Bytes(ELLIPSIS);
  let out = "";
  let used = 0;
  for (const cp of s) {
    const b = utf8Bytes(cp);
    if (used + b > budget) break;
    out += cp;
    used += b;
  }
  return out + ELLIPSIS;
}

export function xmlEscape(s: string): string {
  return s
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&apos;");
}

/** One line of untrusted text: invisible characters removed, whitespace runs folded, trimmed. */
export function flattenLine(s: string): string {
  if (PLAIN.test(s)) return s.trim();
  // U+2028/U+2029 end a line for JS and many renderers and tokenisers: folded like CR/LF.
  return stripInvisible(s)
    .replace(/[\r\n\t\u2028\u2029]+/g, " ")
    .trim();
}

/** The prompt pipeline of skills.md §6.1: flatten, clamp, XML-escape. */
export function sanitizeForPrompt(s: string, clamp: number): string {
  return xmlEscape(clampChars(flattenLine(s), clamp));
}

/** A terminal-safe single-line message of at most 512 bytes (cli.md §1.2). */
export function sanitizeMessage(s: string, maxBytes = 512): string {
  return clampBytes(flattenLine(stripAnsi(s)).replace(/\s+/g, " "), maxBytes);
}

/** For columns shown to a human: flattened, then cut to `width` characters. */
export function cell(s: string, width?: number): string {
  const flat = flattenLine(stripAnsi(s));
  return width === undefined ? flat : clampChars(flat, width);
}

/** Removes userinfo, query and fragment from a URL so it can appear in a message. */
export function redactUrl(raw: string): string {
  try {
    const u = new URL(raw);
    u.username = "";
    u.password = "";
    u.search = "";
    u.hash = "";
    return u.toString();
  } catch {
    return "<invalid url>";
  }
}

/**
 * Multi-line untrusted text for a terminal (tool results, server stderr): escape sequences,
 * controls, a lone CR, bidi and invisible formatting characters removed; newlines and tabs kept.
 */
export function terminalText(s: string): string {
  return stripAnsi(s).replace(
    /\r(?!\n)|[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\u061C\u200B-\u200F\u202A-\u202E\u2060\u2066-\u2069\uFEFF]/gu,
    "",
  );
}
