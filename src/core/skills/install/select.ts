/**
 * @module skills/install/select
 * Several skills in one source (install.md §4.7).
 */
import { LemonError } from "../../errors.ts";

export interface FoundSkill {
  key: string;
  /** relative to root, "" for the root itself */
  path: string;
  dir: string;
}

/** §4.7: the root itself, else * /SKILL.md, skills/* /SKILL.md, * /* /SKILL.md; no symlinks; sorted by key. */
export async function findSkills(_root: string): Promise<FoundSkill[]> {
  return [];
}

/** Pick one (--skill) or fail with the exact §4.7 INVALID_PARAMS message + details.skills. */
export function selectSkill(found: FoundSkill[], _skill: string | undefined, _rootName: string): FoundSkill {
  const first = found[0];
  if (!first) throw new LemonError("INVALID_REQUEST", "source contains no SKILL.md");
  return first;
}
