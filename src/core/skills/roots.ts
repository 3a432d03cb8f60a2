/**
 * @module skills/roots
 * The skill roots of a cwd in precedence order (skills.md §2.1), as data: project roots from
 * `C/.lemon/skill` up to the repository root, then the global roots with their env overrides.
 */
import { existsSync, realpathSync } from "node:fs";
import { dirname, join } from "node:path";
import type { GlobalRootLabel, LemonContext } from "../context.ts";
import { expandUserPath } from "../context.ts";
import { sha256Hex } from "../hash.ts";
import { resolvePaths, type LemonPaths, type Scope } from "../paths.ts";

/** Root labels of skills.md §2.1. */
export type RootLabel = "lemon" | GlobalRootLabel | "github";

/** One skill root of a scope, in precedence order. */
export interface SkillRoot {
  scope: Scope;
  label: RootLabel;
  /** The path as configured. */
  path: string;
  /** Real path when the root exists, else the configured path. */
  realPath: string;
  exists: boolean;
}

const PROJECT_DIRS: readonly [RootLabel, string][] = [
  ["agents", ".agents/skills"],
  ["omp", ".omp/skills"],
  ["claude", ".claude/skills"],
  ["codex", ".codex/skills"],
  ["github", ".github/skills"],
];

/** Global roots 2–5 of skills.md §2.1: label, override env var, path under the home. */
export const GLOBAL_ROOTS: readonly { label: GlobalRootLabel; env: string; rel: string }[] = [
  { label: "agents", env: "LEMON_HARNESS_SKILLS_DIR", rel: ".agents/skills" },
  { label: "omp", env: "LEMON_OMP_SKILLS_DIR", rel: ".omp/agent/skills" },
  { label: "claude", env: "LEMON_CLAUDE_SKILLS_DIR", rel: ".claude/skills" },
  { label: "codex", env: "LEMON_CODEX_SKILLS_DIR", rel: ".codex/skills" },
];

/** The nearest ancestor of `cwd` (inclusive) holding `.git` as a directory or file. */
function findRepoRoot(cwd: string): string | null {
  let d = cwd;
  for (;;) {
    if (existsSync(join(d, ".git"))) return d;
    const up = dirname(d);
    if (up === d) return null;
    d = up;
  }
}

/**
 * Most of the eleven or more candidate roots do not exist: asking first spares a thrown ENOENT
 * (an error object with a stack) per missing root on every listing.
 */
function real(p: string): { realPath: string; exists: boolean } {
  if (!existsSync(p)) return { realPath: p, exists: false };
  try {
    return { realPath: realpathSync(p), exists: true };
  } catch {
    return { realPath: p, exists: false };
  }
}

/** A label a skill can be installed under (install.md §4.8): lemon's own root or another tool's. */
export type InstallLabel = "lemon" | GlobalRootLabel;

/** A label's root in one scope, or why there is none: its override is "" / null, or isolation hides it. */
export type LabelRoot = { path: string; none: null } | { path: null; none: "switched_off" | "isolated" };

/**
 * The root discovery reads for `label` in `scope`, and so the one `--agent <label>` installs
 * into: the single place that decides it, so lemon never installs where it would not list. In
 * the project scope that is the root at `C` itself (its parents' roots belong to their own
 * directories); in the global scope the `skillRoots` option, else the override variable, else
 * the home root unless LEMON_HOME / LEMON_AGENT_DIR isolate lemon from it.
 */
export function labelRoot(
  ctx: LemonContext,
  scope: Scope,
  label: InstallLabel,
  paths: LemonPaths = resolvePaths(ctx),
): LabelRoot {
  if (label === "lemon") return { path: paths[scope].skillRoot, none: null };
  if (scope === "project") return { path: join(ctx.cwd, PROJECT_DIRS.find(([l]) => l === label)![1]), none: null };
  const g = GLOBAL_ROOTS.find((r) => r.label === label)!;
  const opt = ctx.skillRoots[label];
  const env = ctx.env[g.env];
  const set = opt !== undefined ? opt : env;
  if (set === null || set === "") return { path: null, none: "switched_off" };
  if (set !== undefined) return { path: expandUserPath(ctx, set), none: null };
  return ctx.isolated ? { path: null, none: "isolated" } : { path: join(ctx.homeDir, g.rel), none: null };
}

function globalRootPaths(ctx: LemonContext, paths: LemonPaths): { label: RootLabel; path: string }[] {
  const out: { label: RootLabel; path: string }[] = [];
  for (const label of ["lemon", ...GLOBAL_ROOTS.map((g) => g.label)] as const) {
    const r = labelRoot(ctx, "global", label, paths);
    if (r.path !== null) out.push({ label, path: r.path });
  }
  return out;
}

/** Canonical JSON of a root list (sorted keys), the input of the scope id. */
export function canonicalRoots(roots: readonly SkillRoot[]): string {
  const fields = roots.map((r) => ({
    exists: r.exists,
    label: r.label,
    path: r.path,
    realPath: r.realPath,
    scope: r.scope,
  }));
  return JSON.stringify(fields);
}

/**
 * First 16 hex of sha256 of the canonical root list: the name of a scope's search snapshot and
 * of a project's audit cache (skills.md §1.2).
 */
export function scopeId(roots: readonly SkillRoot[]): string {
  return sha256Hex(canonicalRoots(roots)).slice(0, 16);
}

/** Project roots first, then global; duplicates (same real path) kept once at their first position. */
export function resolveRoots(
  ctx: LemonContext,
  paths: LemonPaths = resolvePaths(ctx),
): { project: SkillRoot[]; global: SkillRoot[] } {
  const global: SkillRoot[] = [];
  const seen = new Set<string>();
  for (const g of globalRootPaths(ctx, paths)) {
    const r = real(g.path);
    if (seen.has(r.realPath)) continue;
    seen.add(r.realPath);
    global.push({ scope: "global", label: g.label, path: g.path, ...r });
  }
  const candidates: { label: RootLabel; path: string }[] = [{ label: "lemon", path: paths.project.skillRoot }];
  const repo = findRepoRoot(ctx.cwd);
  let d = ctx.cwd;
  for (;;) {
    for (const [label, rel] of PROJECT_DIRS) candidates.push({ label, path: join(d, rel) });
    if (repo === null || d === repo) break;
    const up = dirname(d);
    if (up === d) break;
    d = up;
  }
  const globalReal = new Set(global.map((g) => g.realPath));
  const project: SkillRoot[] = [];
  const seenProject = new Set<string>();
  for (const c of candidates) {
    const r = real(c.path);
    // A project root that is really a global root (cwd = home) is that global root only.
    if (globalReal.has(r.realPath) || seenProject.has(r.realPath)) continue;
    seenProject.add(r.realPath);
    project.push({ scope: "project", label: c.label, path: c.path, ...r });
  }
  return { project, global };
}
