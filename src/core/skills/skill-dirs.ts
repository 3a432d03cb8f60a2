/**
 * @module skills/skill-dirs
 * Whether a directory a user names (`skill lint PATH`, `skill audit PATH`) is worth walking: it
 * must hold a SKILL.md within install.md §4.7's depth. Both commands refuse any other directory at
 * once with the same error, so `lemon skill lint /` never walks the file system.
 */
import type { Dirent } from "node:fs";
import { lstat, readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { invalidRequest, type LemonError } from "../errors.ts";

/** Directory entries the SKILL.md search may read before it gives up on a path. */
const SEARCH_ENTRIES = 5_000;

/**
 * Whether `dir` holds `SKILL.md`, `*\/SKILL.md` or `*\/*\/SKILL.md` (install.md §4.7's depth ≤ 3;
 * `skills/*\/SKILL.md` is one of the latter): hidden dirs skipped, symlinks never followed, reads
 * bounded, so a path like `/` is answered at once instead of walking the file system. With
 * `followLinks` (default false) a symlinked directory counts too.
 */
export async function holdsSkillFile(dir: string, opts: { followLinks?: boolean } = {}): Promise<boolean> {
  let budget = SEARCH_ENTRIES;
  // Lint follows linked skill dirs (a root of links to a store is common); depth and budget bound it.
  const linkedDir = async (d: string, n: Dirent) => {
    if (opts.followLinks !== true || !n.isSymbolicLink()) return false;
    try {
      return (await stat(join(d, n.name))).isDirectory();
    } catch {
      return false;
    }
  };
  const present = async (d: string) => {
    try {
      return !(await lstat(join(d, "SKILL.md"))).isDirectory();
    } catch {
      return false;
    }
  };
  const subdirs = async (d: string): Promise<string[]> => {
    if (budget <= 0) return [];
    try {
      const names = await readdir(d, { withFileTypes: true });
      budget -= names.length;
      const out: string[] = [];
      for (const n of names)
        if (!n.name.startsWith(".") && (n.isDirectory() || (await linkedDir(d, n)))) out.push(join(d, n.name));
      return out;
    } catch {
      return [];
    }
  };
  if (await present(dir)) return true;
  for (const level1 of await subdirs(dir)) {
    if (await present(level1)) return true;
    for (const level2 of await subdirs(level1)) if (await present(level2)) return true;
  }
  return false;
}

/** INVALID_REQUEST for a directory `holdsSkillFile` said no to. */
export function notSkillDirectory(dir: string): LemonError {
  return invalidRequest(`not a skill directory: ${dir} (no SKILL.md in it or up to 2 levels below)`, {
    hint: "pass a skill directory, the folder holding SKILL.md",
  });
}
