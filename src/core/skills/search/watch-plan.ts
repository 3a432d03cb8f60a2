/**
 * @module skills/search/watch-plan
 * Which directories a scope's watch covers (watcher.ts): its existing roots recursively, and the
 * real directories symlinks lead to outside them, each without recursion (a link may point at a
 * large tree; only the listing and SKILL.md of a linked directory matter to the identity).
 */
import { existsSync, lstatSync, realpathSync } from "node:fs";
import { dirname, join, sep } from "node:path";
import type { SkillRoot } from "../roots.ts";
import type { ScopeIdentity } from "./identity.ts";
import { MAX_SINGLE_WATCHES, type WatchPlan } from "./watcher.ts";

const within = (dir: string, tops: readonly string[]) =>
  tops.some((t) => dir === t || dir.startsWith(t.endsWith(sep) ? t : t + sep));

/** The plan for a scope, or a reason why it cannot be watched. */
export function watchPlan(roots: readonly SkillRoot[], idn: ScopeIdentity): WatchPlan | { reason: string } {
  const recursive: string[] = [];
  for (const r of roots) if (r.exists && !within(r.realPath, recursive)) recursive.push(r.realPath);
  if (recursive.length === 0) return { reason: "no root exists" };
  const single = new Set<string>();
  const add = (dir: string) => {
    if (!within(dir, recursive)) single.add(dir);
  };
  for (const p of idn.watchedPaths()) {
    try {
      if (lstatSync(p, { throwIfNoEntry: false })?.isSymbolicLink()) add(realpathSync(p));
    } catch {
      // Gone or unreadable since the scan: the next check sees it.
    }
  }
  for (const c of idn.candidates()) add(c.realPath);
  if (single.size > MAX_SINGLE_WATCHES) return { reason: `${single.size} linked skill directories` };
  return { recursive, single: [...single].sort() };
}

/** A plan's identity, to tell when a rebuilt scope needs other watches. */
export const planKey = (p: WatchPlan) => JSON.stringify(p);

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
 * renamed), the nearest existing ancestor of every root that does not exist yet, and every
 * directory from the cwd up to its repository (where a `.git` appearing or going changes the
 * project roots; up to the file-system root when there is none).
 */
export function rootsPlan(cwd: string, roots: { project: SkillRoot[]; global: SkillRoot[] }): WatchPlan {
  const dirs = new Set<string>();
  for (const r of [...roots.project, ...roots.global]) {
    if (r.exists) {
      dirs.add(dirname(r.path));
      dirs.add(dirname(r.realPath));
    } else dirs.add(nearestExisting(dirname(r.path)));
  }
  for (let d = cwd; ; ) {
    dirs.add(d);
    if (existsSync(join(d, ".git"))) break;
    const up = dirname(d);
    if (up === d) break;
    d = up;
  }
  return { recursive: [], single: [...dirs].filter((d) => existsSync(d)).sort() };
}
