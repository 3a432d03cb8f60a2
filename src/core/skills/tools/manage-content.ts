/**
 * @module skills/tools/manage-content
 * What `skill_manage` accepts as a SKILL.md (skills.md §9.1) and how a patch applies (§9
 * `patch`). The manifest is parsed and validated by the one skill reader (skill-file.ts), so a
 * file `skill_manage` accepts is a valid skill to discovery, lint and the audit alike.
 */
import { charCount, stripInvisible } from "../../text.ts";
import { parseSkillBytes } from "../skill-file.ts";
import { isText, MAX_CONTENT_CHARS, ManageError, charLength } from "./manage-params.ts";

const bad = (message: string) => new ManageError("invalid_params", message);

/** Validates SKILL.md text (§9.1, messages of §9.2); throws the first problem. */
export async function checkSkillContent(text: string): Promise<void> {
  if (charLength(text) > MAX_CONTENT_CHARS) throw bad(`content exceeds ${MAX_CONTENT_CHARS} characters`);
  if (!isText(text)) throw bad("content must be UTF-8 text");
  const parsed = await parseSkillBytes(new TextEncoder().encode(text));
  if (!parsed.ok) {
    // A frontmatter that does not parse is as invalid as one that does not validate.
    throw bad(`invalid manifest: ${parsed.message}`);
  }
  if (parsed.frontmatter === "none") throw bad("SKILL.md must start with frontmatter");
  if (parsed.manifest.name === null || parsed.manifest.name.trim() === "") throw bad("frontmatter must include name");
  if (parsed.manifest.description === null || parsed.manifest.description.trim() === "")
    throw bad("frontmatter must include description");
  // Invisible characters are no instructions: a body of only them is blank to every reader.
  if (stripInvisible(parsed.body).trim() === "") throw bad("SKILL.md must include instructions after frontmatter");
}

/** Positions where `needle` starts in `hay`, overlapping ones included, stopping at `limit`. */
function occurrences(hay: string, needle: string, limit: number): number {
  let n = 0;
  for (let i = hay.indexOf(needle); i >= 0 && n < limit; i = hay.indexOf(needle, i + 1)) n++;
  return n;
}

/**
 * `text` with `oldString` replaced (§9 `patch`): exactly one occurrence unless `replaceAll`.
 * Overlapping matches count, so "exactly once" means one place the edit could mean; with
 * `replaceAll` every non-overlapping match from the left is replaced. The result's size is known
 * from the count before it is built: one that would exceed `limit.chars` fails with `limit`'s
 * message at once (a 10 KB new_string times 99,000 matches is a gigabyte never allocated).
 */
export function applyPatch(
  text: string,
  oldString: string,
  newString: string,
  replaceAll: boolean,
  limit: { chars: number; field: "content" | "file_content" } = { chars: MAX_CONTENT_CHARS, field: "content" },
): { text: string; replacements: number } {
  const count = replaceAll ? nonOverlapping(text, oldString) : occurrences(text, oldString, 2);
  if (count === 0) throw bad("old_string was not found");
  if (!replaceAll && count > 1) {
    const all = occurrences(text, oldString, Number.MAX_SAFE_INTEGER);
    throw bad(`old_string matched ${all} times; set replace_all to replace every match`);
  }
  const size = charCount(text) + count * (charCount(newString) - charCount(oldString));
  if (size > limit.chars) throw bad(`${limit.field} exceeds ${limit.chars} characters`);
  if (replaceAll) return { text: text.split(oldString).join(newString), replacements: count };
  const at = text.indexOf(oldString);
  // Not String.replace: `$&` and friends in new_string must stay literal.
  return { text: text.slice(0, at) + newString + text.slice(at + oldString.length), replacements: 1 };
}

/** Non-overlapping matches from the left, as split/join replaces them. */
function nonOverlapping(hay: string, needle: string): number {
  let n = 0;
  for (let i = hay.indexOf(needle); i >= 0; i = hay.indexOf(needle, i + needle.length)) n++;
  return n;
}
