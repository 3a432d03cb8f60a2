/**
 * @module skills/audit/target
 * `skills.audit(target)`: resolves a skill key or a directory path, picks the audit cache of the
 * skill's scope (an arbitrary directory gets no cache, so it can never overwrite an installed
 * skill's record) and runs the audit with the full linter as its `lint` rule input. Every cache
 * lives under the agent dir (skills.md §1.2): nothing under the project can forge a verdict.
 */
import { existsSync, realpathSync, statSync } from "node:fs";
import { lstat, readdir } from "node:fs/promises";
import { join, resolve } from "node:path";
import { expandUserPath, type LemonContext } from "../../context.ts";
import { invalidRequest, notFound } from "../../errors.ts";
import { resolvePaths, type Scope } from "../../paths.ts";
import type { SkillEntry } from "../entry.ts";
import { resolveRoots, scopeId } from "../roots.ts";
import { lintSkillDir } from "../lint.ts";
import { auditBundle, type AuditReport } from "./engine.ts";
import type { LintHook } from "./lint-bridge.ts";

/** The full linter, without its audit step, as the audit's `lint` rule input. */
const fullLint: LintHook = async (dir) => {
  const r = await lintSkillDir(dir);
  return { valid: r.valid, issues: r.issues.filter((i) => i.code !== "audit_warn" && i.code !== "audit_block") };
};
/** Bump with changes to the linter's codes so cached audits are redone. */
const FULL_LINT_VERSION = 2;

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

/** Directory entries the SKILL.md search may read before it gives up on a path. */
const SEARCH_ENTRIES = 5_000;

/**
 * Whether `dir` holds `SKILL.md`, `*\/SKILL.md` or `*\/*\/SKILL.md` (install.md §4.7's depth ≤ 3;
 * `skills/*\/SKILL.md` is one of the latter): hidden dirs skipped, symlinks never followed, reads
 * bounded, so `lemon skill audit /` is refused at once instead of walking the file system.
 */
async function holdsSkillFile(dir: string): Promise<boolean> {
  let budget = SEARCH_ENTRIES;
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
      return names.filter((n) => n.isDirectory() && !n.name.startsWith(".")).map((n) => join(d, n.name));
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
      throw notFound(`Skill '${target}' not found`, { hint: "pass a skill key from 'lemon skill list' or a path to a skill directory" });
    }
    dir = resolve(p);
    // A path that is an effective skill shares that skill's cache record.
    const same = (await entries()).find((e) => real(e.path) === real(dir));
    if (same) {
      key = same.key;
      cacheFile = cacheOf(same);
    } else if (!(await holdsSkillFile(dir))) {
      throw invalidRequest(`not a skill directory: ${dir} (no SKILL.md in it or up to 2 levels below)`, {
        hint: "pass a skill directory, the folder holding SKILL.md",
      });
    }
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
