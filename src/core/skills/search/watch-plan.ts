/**
 * @module skills/search/watch-plan
 * Which paths a scope's watch covers (watcher.ts), each watched without recursion: what discovery
 * reads (skills.md §2.2: the roots, their categories and the directories it probed, and every
 * skill directory), the directory holding each symlink met on the way to any of them or to a
 * linked SKILL.md (a hop retargeted is an event there), a linked SKILL.md's real directory, and a
 * SKILL.md with other hard links itself (an edit through another name is an event on the inode
 * only). Nothing below a skill directory: a tree under a skill (node_modules, a checkout) costs no
 * inotify watch, and the identity never reads it.
 *
 * A plan is data only: the worker follows the chains and probes the SKILL.md files, so making one
 * costs the agent's thread no system call per skill (11k lstats were ~150 ms).
 */
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import type { SkillRoot } from "../roots.ts";
import type { ScopeIdentity } from "./identity.ts";
import { MAX_PLAN_WATCHES, type WatchPlan } from "./watcher.ts";

/** The plan for a scope, or a reason why it cannot be watched. */
export function watchPlan(roots: readonly SkillRoot[], idn: ScopeIdentity): WatchPlan | { reason: string } {
  const single = new Set<string>();
  const chains: string[] = [];
  for (const r of roots)
    if (r.exists) {
      single.add(r.realPath);
      chains.push(r.path);
    }
  if (single.size === 0) return { reason: "no root exists" };
  // The roots, categories and probed directories, and the symlink entries the scan resolved.
  for (const p of idn.watchedPaths()) chains.push(p);
  const candidates = idn.candidates();
  const probe = new Array<string>(candidates.length);
  for (let i = 0; i < candidates.length; i++) {
    const c = candidates[i]!;
    single.add(c.realPath);
    probe[i] = c.skillFile;
  }
  if (single.size + chains.length > MAX_PLAN_WATCHES)
    return { reason: `more than ${MAX_PLAN_WATCHES} directories and files to watch` };
  return { recursive: [], single: [...single], chains, probe };
}

/** A plan's identity, to tell when a rebuilt scope needs other watches (the lists in order). */
export const planKey = (p: WatchPlan) =>
  [p.recursive, p.single, p.chains ?? [], p.links ?? [], p.probe ?? []].map((l) => l.join("\0")).join("\n");

/** The nearest existing ancestor of `p` (inclusive). */
function nearestExisting(p: string): string {
  let d = p;
  while (!existsSync(d)) {
    const up = dirname(d);
    if (up === d) return d;
    d = up;
  }
  return d;
}

/**
 * What a cwd's root resolution (roots.ts) depends on, as directories to watch without recursion:
 * the parent of every existing root (and of its real path: a link retargeted or its target
 * renamed), the directory holding every symlink on the way to a root (a symlinked parent
 * retargeted), the nearest existing ancestor of every root that does not exist yet, and every
 * directory from the cwd up to its repository (where a `.git` appearing or going changes the
 * project roots; up to the file-system root when there is none).
 */
export function rootsPlan(cwd: string, roots: { project: SkillRoot[]; global: SkillRoot[] }): WatchPlan {
  const dirs = new Set<string>();
  const links: string[] = [];
  for (const r of [...roots.project, ...roots.global]) {
    if (r.exists) {
      dirs.add(dirname(r.path));
      dirs.add(dirname(r.realPath));
      links.push(r.path);
    } else dirs.add(nearestExisting(dirname(r.path)));
  }
  for (let d = cwd; ; ) {
    dirs.add(d);
    if (existsSync(join(d, ".git"))) break;
    const up = dirname(d);
    if (up === d) break;
    d = up;
  }
  return { recursive: [], single: [...dirs].filter((d) => existsSync(d)).sort(), links };
}
