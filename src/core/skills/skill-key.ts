/**
 * @module skills/skill-key
 * Which directory names can be skill keys (skills.md §2.2). The key is what the model reads in the
 * listing and what the user types to `enable` or `read_skill`, so two keys that look alike are one
 * skill spoofing another: `dep\u200bloy` renders as `deploy` once the prompt sanitiser (§6.1) has
 * removed the zero-width space. A key must therefore be safe text (§4.4) that the sanitiser leaves
 * exactly as it is, with no character a reader cannot see; any other name makes the skill invalid.
 */
import { clampChars, flattenLine, isSafeText } from "../text.ts";

/** The clamp of a key in the listing (skills.md §6.1): a longer key would render cut. */
const MAX_KEY_CHARS = 128;

/**
 * Characters no one sees or that change what the text around them shows: controls (TAB too: the
 * sanitiser turns it into a space), format characters (bidi, zero-width, soft hyphen, tags),
 * default-ignorable ones (Hangul fillers, variation selectors), line and paragraph separators, and
 * every space but U+0020 (a no-break space reads as a space).
 */
const UNSEEN_SOURCE = "[\\p{Cc}\\p{Cf}\\p{Cs}\\p{Zl}\\p{Zp}\\p{Default_Ignorable_Code_Point}]|(?! )\\p{Zs}";
// Compiled on first use: a listing of plain ASCII keys never pays for the Unicode tables.
let unseen: RegExp | null = null;
const unseenIn = (key: string) => (unseen ??= new RegExp(UNSEEN_SOURCE, "u")).test(key);

/** Printable ASCII without edge spaces, at most 128 characters: the common key, valid at a glance. */
const PLAIN_KEY = /^[\x21-\x7e](?:[\x20-\x7e]{0,126}[\x21-\x7e])?$/;

/** `key` with every unseen character and edge whitespace written as `\uXXXX`, so a message shows it. */
export function escapeKey(key: string): string {
  const hex = (c: string) => {
    const cp = c.codePointAt(0) ?? 0;
    return cp > 0xffff ? `\\u{${cp.toString(16)}}` : `\\u${cp.toString(16).padStart(4, "0")}`;
  };
  const inner = key.replace(new RegExp(UNSEEN_SOURCE, "gu"), hex);
  // Leading and trailing spaces are the one case where a plain U+0020 is the difference.
  return inner.replace(/^ +| +$/g, (s) => s.replace(/ /g, "\\u0020"));
}

/** Why `key` cannot name a skill (a message quoting it escaped), or null when it can. */
export function keyProblem(key: string): string | null {
  if (PLAIN_KEY.test(key)) return null;
  const shown = `skill key '${escapeKey(key)}'`;
  if (unseenIn(key)) return `${shown} holds control, invisible or formatting characters`;
  // Safe text (§4.4) beyond that is only "not blank": a name of spaces is trimmed away like edge spaces.
  if (flattenLine(key) !== key || !isSafeText(key)) return `${shown} has leading or trailing spaces`;
  if (clampChars(key, MAX_KEY_CHARS) !== key) return `${shown} is longer than ${MAX_KEY_CHARS} characters`;
  return null;
}
