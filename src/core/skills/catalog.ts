/**
 * @module skills/catalog
 * Discovery for one cwd: scan every root, load each SKILL.md, and resolve precedence (skills.md
 * §2.1–§2.3). Earlier roots win within a scope, project beats global, invalid files claim nothing;
 * losers are kept as shadowed so `list --all` and `check` can say what hid what.
 */
import type { LemonContext } from "../context.ts";
import { diagnostic, type Diagnostic } from "../diagnostics.ts";
import { resolvePaths, type LemonPaths, type Scope } from "../paths.ts";
import { loadCandidate, type InvalidRecord, type SkillRecord, type ValidRecord } from "./load.ts";
import { MSG } from "./messages.ts";
import { resolveRoots, type SkillRoot } from "./roots.ts";
import { scanRoot, type ScanWatch, type SkillCandidate } from "./scan.ts";

/** Which scopes a read covers: both (project first), or one. */
export type View = "both" | "global" | "project";

/** A valid record that lost its key to a higher-precedence one (`by`). */
export interface Shadowed {
  record: SkillRecord & { valid: true };
  by: ValidRecord;
}

/** The result of discovery for one view: effective skills, losers, invalid files, diagnostics. */
export interface Discovery {
  view: View;
  roots: SkillRoot[];
  /** Effective skills by key (project winners over global ones in the "both" view). */
  effective: Map<string, ValidRecord>;
  shadowed: Shadowed[];
  invalid: InvalidRecord[];
  diagnostics: Diagnostic[];
  /** Every candidate directory found, in precedence order (for identity checks). */
  candidates: SkillCandidate[];
}

/** Parsed records by SKILL.md path, reused while the file fingerprint holds (one per instance). */
export type RecordCache = Map<string, SkillRecord>;

const byPath = (a: SkillCandidate, b: SkillCandidate) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);

/** Scans the roots of a view and returns candidates in precedence order plus scan diagnostics. */
export function scanRoots(
  roots: readonly SkillRoot[],
  watch: ScanWatch | null = null,
): { candidates: SkillCandidate[]; diagnostics: Diagnostic[] } {
  const visited = new Map<string, string>();
  const candidates: SkillCandidate[] = [];
  const diagnostics: Diagnostic[] = [];
  for (const root of roots) {
    const r = scanRoot(root, visited, watch);
    candidates.push(...r.candidates.sort(byPath));
    diagnostics.push(...r.diagnostics);
  }
  return { candidates, diagnostics };
}

/** One scope's candidates in precedence order, their records and the scan's diagnostics. */
export interface ScopeLoad {
  candidates: SkillCandidate[];
  records: SkillRecord[];
  diagnostics: Diagnostic[];
}

/** Scans one scope's roots and loads every candidate's SKILL.md (through the record cache). */
export async function loadScope(roots: SkillRoot[], cache?: RecordCache): Promise<ScopeLoad> {
  const { candidates, diagnostics } = scanRoots(roots);
  return { candidates, diagnostics, records: await Promise.all(candidates.map((c) => loadCandidate(c, cache))) };
}

/** The root lists a view reads, highest precedence first: project then global for "both". */
export function viewScopes(ctx: LemonContext, view: View, paths: LemonPaths = resolvePaths(ctx)): SkillRoot[][] {
  const { project, global } = resolveRoots(ctx, paths);
  return view === "global" ? [global] : view === "project" ? [project] : [project, global];
}

/** Scans and loads every scope of a view, then resolves precedence. */
export async function discover(ctx: LemonContext, view: View, cache?: RecordCache): Promise<Discovery> {
  const scopes = viewScopes(ctx, view);
  return resolvePrecedence(view, scopes, await Promise.all(scopes.map((r) => loadScope(r, cache))));
}

/**
 * Precedence over the loads of a view's scopes, in `viewScopes` order (skills.md §2.1): earlier
 * roots win within a scope, project beats global, invalid files claim nothing. A load may come
 * from anywhere that yields the same candidates and records (the registry uses a current search
 * snapshot when there is one).
 */
export function resolvePrecedence(view: View, scopes: readonly SkillRoot[][], loads: readonly ScopeLoad[]): Discovery {
  const roots = scopes.flat();
  const candidates: SkillCandidate[] = [];
  const records: SkillRecord[] = [];
  const diagnostics: Diagnostic[] = [];
  // Scopes are scanned apart (each has its own snapshot); a skill reachable from both is kept at
  // its first, project, position as one shared scan would.
  const seen = new Map<string, string>();
  for (const load of loads) {
    diagnostics.push(...load.diagnostics);
    load.candidates.forEach((c, i) => {
      const first = seen.get(c.realPath);
      if (first !== undefined && load !== loads[0]) {
        diagnostics.push(diagnostic("warn", "duplicate_real_path", MSG.duplicateRealPath(first), { path: c.path }));
        return;
      }
      seen.set(c.realPath, c.path);
      candidates.push(c);
      records.push(load.records[i]!);
    });
  }
  const effective = new Map<string, ValidRecord>();
  const winnersByScope: Record<Scope, Map<string, ValidRecord>> = { project: new Map(), global: new Map() };
  const shadowed: Shadowed[] = [];
  const invalid: InvalidRecord[] = [];
  for (const rec of records) {
    if (!rec.valid) {
      invalid.push(rec);
      const where = { path: rec.candidate.skillFile, key: rec.candidate.key };
      diagnostics.push(diagnostic("error", rec.code, rec.message, where));
      continue;
    }
    const key = rec.candidate.key;
    const scope = rec.candidate.root.scope;
    const sameScope = winnersByScope[scope].get(key);
    if (sameScope) {
      shadowed.push({ record: rec, by: sameScope });
      if (sameScope.candidate.root === rec.candidate.root) {
        const message = MSG.duplicateKey(sameScope.candidate.path);
        diagnostics.push(diagnostic("warn", "duplicate_key", message, { path: rec.candidate.path, key }));
      }
      continue;
    }
    winnersByScope[scope].set(key, rec);
    const projectWinner = scope === "global" ? winnersByScope.project.get(key) : undefined;
    if (projectWinner) {
      shadowed.push({ record: rec, by: projectWinner });
      continue;
    }
    effective.set(key, rec);
  }
  return { view, roots, effective, shadowed, invalid, diagnostics, candidates };
}
