/**
 * @module skills/audit/normalize
 * Undoes the cheap disguises an attacker puts on a command so the rules see it plainly:
 * invisible characters, compatibility forms (fullwidth letters), Latin look-alikes from Cyrillic
 * and Greek, quote splitting (`c''u"r"l`), string concatenation (`"cu" + "rl"`), and encoded
 * payloads (base64, hex and `\x` escapes, `String.fromCharCode`). Line structure is preserved.
 */

// eslint-disable-next-line no-control-regex
const INVISIBLE_G =
  /[\u00AD\u034F\u061C\u115F\u1160\u17B4\u17B5\u180B-\u180E\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u206F\u3164\uFE00-\uFE0F\uFEFF\uFFA0]/g;
const TAG_G = /[\u{E0000}-\u{E007F}]/gu;

/** Cyrillic and Greek letters that render like Latin ones. */
const CONFUSABLES: Record<string, string> = {
  а: "a",
  в: "b",
  е: "e",
  ё: "e",
  к: "k",
  м: "m",
  н: "h",
  о: "o",
  р: "p",
  с: "c",
  т: "t",
  у: "y",
  х: "x",
  і: "i",
  ї: "i",
  ј: "j",
  ѕ: "s",
  һ: "h",
  ԁ: "d",
  ԛ: "q",
  ԝ: "w",
  ɡ: "g",
  ℓ: "l",
  А: "A",
  В: "B",
  Е: "E",
  К: "K",
  М: "M",
  Н: "H",
  О: "O",
  Р: "P",
  С: "C",
  Т: "T",
  Х: "X",
  І: "I",
  Ј: "J",
  Ѕ: "S",
  α: "a",
  ο: "o",
  ρ: "p",
  ν: "v",
  υ: "u",
  ι: "i",
  κ: "k",
  τ: "t",
  χ: "x",
  ε: "e",
  Α: "A",
  Β: "B",
  Ε: "E",
  Ζ: "Z",
  Η: "H",
  Ι: "I",
  Κ: "K",
  Μ: "M",
  Ν: "N",
  Ο: "O",
  Ρ: "P",
  Τ: "T",
  Υ: "Y",
  Χ: "X",
};
const CONFUSABLE_G = new RegExp(`[${Object.keys(CONFUSABLES).join("")}]`, "g");
const NON_ASCII = /[^\x00-\x7F]/;

/** The text with disguises removed; the same number of lines as the input. */
export function normalizeText(text: string): string {
  let s = text;
  if (NON_ASCII.test(s)) {
    s = s.replace(INVISIBLE_G, "");
    if (s.includes("\uDB40")) s = s.replace(TAG_G, "");
    s = s.normalize("NFKC");
    s = s.replace(CONFUSABLE_G, (c) => CONFUSABLES[c] ?? c);
  }
  return s
    .replace(/(["'`])[ \t]*\+[ \t]*\1/g, "") // "cu" + "rl" -> "curl"
    .replace(/(?<=[A-Za-z0-9_./-])(?:''|"")(?=[A-Za-z0-9_./-])/g, "") // c''url -> curl
    .replace(/(?<=[A-Za-z])(["'])([A-Za-z]{1,6})\1(?=[A-Za-z])/g, "$2") // c"ur"l -> curl
    .replace(/(?<=[a-z])\\(?=[a-z])/g, ""); // c\url -> curl
}

export interface Decoded {
  encoding: "base64" | "hex" | "escapes" | "char codes";
  text: string;
}

const B64_TOKEN_G = /(?<![A-Za-z0-9+/])[A-Za-z0-9+/]{20,}={0,2}/g;
const LONG_BLOB = 2000;
const HEX_ESCAPES_G =
  /\\(?:x[0-9a-fA-F]{2}(?:\\x[0-9a-fA-F]{2}){3,}|u00[0-9a-fA-F]{2}(?:\\u00[0-9a-fA-F]{2}){3,}|[0-7]{3}(?:\\[0-7]{3}){3,})/g;
const HEX_RUN_G = /\b[0-9a-fA-F]{20,4096}\b/g;
const CHAR_CODES_G =
  /fromCharCode\(\s*((?:\d{1,3}\s*,\s*){3,}\d{1,3})\s*\)|\bchr\(\d{1,3}\)(?:\s*\+\s*chr\(\d{1,3}\)){3,}/g;

/** Printable text (mostly ASCII letters, digits, punctuation and spaces), else null. */
function printable(bytes: Buffer): string | null {
  if (bytes.length < 8) return null;
  let good = 0;
  for (const b of bytes) if ((b >= 0x20 && b < 0x7f) || b === 0x0a || b === 0x09 || b === 0x0d) good++;
  if (good / bytes.length < 0.95) return null;
  const s = bytes.toString("utf8");
  return /[a-z]{2,}/i.test(s) && /[ /|;.:]/.test(s) ? s : null;
}

function decodeEscapes(s: string): Buffer {
  const out: number[] = [];
  for (const m of s.matchAll(/\\x([0-9a-fA-F]{2})|\\u00([0-9a-fA-F]{2})|\\([0-7]{3})/g)) {
    out.push(m[3] !== undefined ? parseInt(m[3], 8) & 0xff : parseInt(m[1] ?? m[2] ?? "0", 16));
  }
  return Buffer.from(out);
}

export interface DecodedAt extends Decoded {
  /** Character offset of the encoded token in the text. */
  offset: number;
}

/** Encoded payloads anywhere in a text that decode to readable text (checked again by the rules). */
export function decodePayloads(text: string): { payloads: DecodedAt[]; blobs: number[] } {
  const out: DecodedAt[] = [];
  const blobs: number[] = [];
  for (const m of text.matchAll(B64_TOKEN_G)) {
    const tok = m[0];
    if (tok.length >= LONG_BLOB) {
      blobs.push(m.index);
      continue;
    }
    // Hex digests and plain words are not base64 payloads.
    if (!/[A-Z]/.test(tok) || !/[a-z]/.test(tok) || /^[0-9a-fA-F]+$/.test(tok)) continue;
    const decoded = printable(Buffer.from(tok, "base64"));
    if (decoded !== null) out.push({ offset: m.index, encoding: "base64", text: decoded });
  }
  if (text.includes("\\x") || text.includes("\\u00") || /\\[0-7]{3}/.test(text)) {
    for (const m of text.matchAll(HEX_ESCAPES_G)) {
      const decoded = printable(decodeEscapes(m[0]));
      if (decoded !== null) out.push({ offset: m.index, encoding: "escapes", text: decoded });
    }
  }
  for (const m of text.matchAll(HEX_RUN_G)) {
    if (m[0].length % 2 !== 0) continue;
    const decoded = printable(Buffer.from(m[0], "hex"));
    if (decoded !== null) out.push({ offset: m.index, encoding: "hex", text: decoded });
  }
  if (text.includes("fromCharCode") || text.includes("chr(")) {
    for (const m of text.matchAll(CHAR_CODES_G)) {
      const codes = (m[1] ?? m[0].replace(/chr\(|\)|\+/g, ",")).split(",").filter((x) => x.trim() !== "");
      const decoded = printable(Buffer.from(codes.map((c) => Number(c.trim()) & 0xff)));
      if (decoded !== null) out.push({ offset: m.index, encoding: "char codes", text: decoded });
    }
  }
  return { payloads: out, blobs };
}
