/**
 * @module skills/install/select
 * Several skills in one source (install.md §4.7). The search only lists directory entries with
 * lstat: it never descends into a symlinked directory, so a repository cannot make lemon look
 * (or install) outside itself, and hidden directories (`.git`, `.github`, …) are skipped.
 */
import { lstat, readdir } from "node:fs/promises";
import { basename, join } from "node:path";
import { LemonError, invalidParams, notFound } from "../../errors.ts";

export interface FoundSkill {
  key: string;
  /** relative to root, "" for the root itself */
  path: string;
  dir: string;
}

/** Real subdirectories of `dir`, hidden and symlinked ones left out, sorted by name. */
async function subdirs(dir: string): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return [];
  }
  const out: string[] = [];
  for (const name of names.sort()) {
    if (name.startsWith(".")) continue;
    const st = await lstat(join(dir, name)).catch(() => null);
    if (st?.isDirectory()) out.push(name);
  }
  return out;
}

/** A SKILL.md entry of any kind counts (a symlinked one is refused later, never skipped quietly). */
async function holdsSkill(dir: string): Promise<boolean> {
  return (await lstat(join(dir, "SKILL.md")).catch(() => null)) !== null;
}

/** §4.7: the root itself, else * /SKILL.md, skills/* /SKILL.md, * /* /SKILL.md; no symlinks; sorted by key. */
export async function findSkills(root: string): Promise<FoundSkill[]> {
  if (await holdsSkill(root)) return [{ key: basename(root), path: "", dir: root }];
  const found: FoundSkill[] = [];
  // `skills/*/SKILL.md` is one case of `*/*/SKILL.md`: two levels cover all three patterns.
  for (const a of await subdirs(root)) {
    const dirA = join(root, a);
    if (await holdsSkill(dirA)) found.push({ key: a, path: a, dir: dirA });
    for (const b of await subdirs(dirA)) {
      const dirB = join(dirA, b);
      if (await holdsSkill(dirB)) found.push({ key: b, path: `${a}/${b}`, dir: dirB });
    }
  }
  return found.sort((x, y) => (x.key < y.key ? -1 : x.key > y.key ? 1 : x.path < y.path ? -1 : 1));
}

/**
 * Pick one (--skill) or fail with the exact §4.7 INVALID_PARAMS message + details.skills.
 * `--skill` matches a key, or a path when two skills share a key. The root skill answers to
 * `rootName` (the repository or directory name).
 */
export function selectSkill(found: FoundSkill[], skill: string | undefined, rootName: string): FoundSkill {
  const named = found.map((f) => (f.path === "" ? { ...f, key: rootName } : f));
  if (named.length === 0) throw new LemonError("INVALID_REQUEST", "source contains no SKILL.md");
  const keys = named.map((f) => f.key);
  if (skill === undefined) {
    const only = named[0];
    if (named.length === 1 && only) return only;
    throw invalidParams(`source contains ${named.length} skills; choose one with --skill: ${keys.join(", ")}`, {
      details: { skills: keys },
    });
  }
  const byPath = named.find((f) => f.path !== "" && f.path === skill.replace(/\/$/, ""));
  if (byPath) return byPath;
  const byKey = named.filter((f) => f.key === skill);
  const one = byKey[0];
  if (byKey.length === 1 && one) return one;
  if (byKey.length > 1)
    throw invalidParams(
      `source contains ${byKey.length} skills named '${skill}'; choose one with --skill: ${byKey.map((f) => f.path).join(", ")}`,
      { details: { skills: byKey.map((f) => f.path) } },
    );
  throw notFound(`skill '${skill}' not found in source; it contains: ${keys.join(", ")}`, {
    details: { skills: keys },
  });
}
