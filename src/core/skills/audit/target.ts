/**
 * @module skills/audit/target
 * `skills.audit(target)`: resolves a skill key or a directory path, picks the audit cache of the
 * skill's scope (an arbitrary directory gets no cache, so it can never overwrite an installed
 * skill's record) and runs the audit with the full linter as its `lint` rule input. Every cache
 * lives under the agent dir (skills.md §1.2): nothing under the project can forge a verdict.
 */
import { existsSync, realpathSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { expandUserPath, type LemonContext } from "../../context.ts";
import { notFound } from "../../errors.ts";
import { resolvePaths, type Scope } from "../../paths.ts";
import type { SkillEntry } from "../entry.ts";
import { resolveRoots, scopeId } from "../roots.ts";
import { lintSkillDir } from "../lint.ts";
import { holdsSkillFile, notSkillDirectory } from "../skill-dirs.ts";
import { auditBundle, type AuditReport } from "./engine.ts";
import type { LintHook } from "./lint-bridge.ts";

/** The full linter, without its audit step, as the audit's `lint` rule input. */
const fullLint: LintHook = async (dir) => {
  const r = await lintSkillDir(dir);
  return { valid: r.valid, issues: r.issues.filter((i) => i.code !== "audit_warn" && i.code !== "audit_block") };
};
/**
 * Bump with changes to the linter's codes so cached audits are redone. An install fingerprints the
 * record it writes with it too, so `skills.audit(<key>)` reuses that record.
 */
export const FULL_LINT_VERSION = 3;

const looksLikePath = (s: string) => s.includes("/") || s.includes("\\") || s.startsWith(".") || s.startsWith("~");
const isDir = (p: string) => {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
};
const real = (p: string) => {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
};

/** The audit cache of a scope: `A/skills.audit.json`, or `A/cache/audit/<scope-id>.json` for the project. */
export function auditCacheFile(ctx: LemonContext, scope: Scope): string {
  const paths = resolvePaths(ctx);
  if (scope === "global") return paths.auditCache;
  return join(paths.auditCacheDir, `${scopeId(resolveRoots(ctx).project)}.json`);
}

export async function auditTarget(
  ctx: LemonContext,
  target: string,
  entries: () => Promise<SkillEntry[]>,
  opts: { force?: boolean } = {},
): Promise<AuditReport> {
  const cacheOf = (e: SkillEntry) => auditCacheFile(ctx, e.scope);
  let dir: string;
  let key: string | undefined;
  let cacheFile: string | undefined;
  const entry = looksLikePath(target) ? undefined : (await entries()).find((e) => e.key === target);
  if (entry) {
    dir = entry.path;
    key = entry.key;
    cacheFile = cacheOf(entry);
  } else {
    const p = expandUserPath(ctx, target);
    if (!isDir(p)) {
      if (looksLikePath(target) || existsSync(p)) throw notFound(`skill directory not found: ${target}`);
      throw notFound(`Skill '${target}' not found`, {
        hint: "pass a skill key from 'lemon skill list' or a path to a skill directory",
      });
    }
    dir = resolve(p);
    // A path that is an effective skill shares that skill's cache record.
    const same = (await entries()).find((e) => real(e.path) === real(dir));
    if (same) {
      key = same.key;
      cacheFile = cacheOf(same);
    } else if (!(await holdsSkillFile(dir))) throw notSkillDirectory(dir);
  }
  return auditBundle(dir, {
    force: opts.force === true,
    lint: fullLint,
    lintVersion: FULL_LINT_VERSION,
    now: () => ctx.now(),
    ...(key !== undefined ? { key } : {}),
    ...(cacheFile !== undefined ? { cacheFile } : {}),
  });
}
