/**
 * @module skills/search/watch-plan
 * Which directories a scope's watch covers (watcher.ts): its existing roots recursively, and the
 * real directories symlinks lead to outside them, each without recursion (a link may point at a
 * large tree; only the listing and SKILL.md of a linked directory matter to the identity).
 */
import { lstatSync, realpathSync } from "node:fs";
import { sep } from "node:path";
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
