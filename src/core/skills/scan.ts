/**
 * @module skills/scan
 * Walks one skill root (skills.md §2.2): skills directly in the root or one category level
 * below, symlinks followed once by real path, bounded by depth 2 and 20,000 directory entries.
 */
import { lstatSync, readdirSync, realpathSync, statSync, type Dirent } from "node:fs";
import { join } from "node:path";
import { diagnostic, type Diagnostic } from "../diagnostics.ts";
import { MSG } from "./messages.ts";
import type { SkillRoot } from "./roots.ts";

/** Directory entries one root scan reads at most (skills.md §2.2). */
const MAX_DIR_ENTRIES = 20_000;

/** A directory holding a SKILL.md entry, before the file is read. */
export interface SkillCandidate {
  key: string;
  root: SkillRoot;
  /** Skill directory as found (may contain symlinks). */
  path: string;
  realPath: string;
  category: string | null;
  skillFile: string;
}

/** The candidates of one root in sorted order, with scan diagnostics. */
export interface ScanResult {
  candidates: SkillCandidate[];
  diagnostics: Diagnostic[];
}

const SKIP = new Set(["node_modules", "__pycache__"]);
const skipName = (n: string) => n.startsWith(".") || SKIP.has(n);

function reason(err: unknown): string {
  return (err as NodeJS.ErrnoException).code ?? "error";
}

/**
 * Called just before the scan reads a directory, resolves a symlink entry or settles that a
 * directory holds no SKILL.md: a stat taken there vouches for what the scan saw (an entry added
 * later changes the directory's mtime), so an unchanged tree can be re-checked with stats only.
 */
export type ScanWatch = (path: string) => void;

interface Walk {
  root: SkillRoot;
  watch: ScanWatch | null;
  entries: number;
  stopped: boolean;
  visited: Map<string, string>;
  out: SkillCandidate[];
  diagnostics: Diagnostic[];
}

function list(dir: string, w: Walk, isRoot: boolean): Dirent[] | null {
  let ents: Dirent[];
  try {
    ents = readdirSync(dir, { withFileTypes: true });
  } catch (err) {
    const code = reason(err);
    if (isRoot && code === "ENOENT") return null;
    const message = isRoot ? MSG.rootUnreadable(code) : MSG.dirUnreadable(code);
    w.diagnostics.push(diagnostic("error", "root_unreadable", message, { path: dir }));
    return null;
  }
  ents.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return ents;
}

/**
 * Resolves a directory entry to a real directory, following symlinks; null for anything else. A
 * plain directory's real path is its parent's plus its name, so only symlinks pay a realpath.
 */
function asDir(parent: string, parentReal: string, ent: Dirent, w: Walk): string | null {
  const p = join(parent, ent.name);
  if (ent.isDirectory()) return join(parentReal, ent.name);
  if (!ent.isSymbolicLink()) return null;
  w.watch?.(p);
  try {
    if (!statSync(p).isDirectory()) return null;
    return realpathSync(p);
  } catch (err) {
    if (reason(err) === "ELOOP")
      w.diagnostics.push(diagnostic("warn", "root_unreadable", MSG.dirUnreadable("ELOOP"), { path: p }));
    return null;
  }
}

/** A directory is a skill when it holds an entry named SKILL.md that is not a directory; a link
 * or special file still marks it and is judged when loading (symlink_escape, not a regular file). */
function hasSkillFile(dir: string): boolean {
  try {
    const st = lstatSync(join(dir, "SKILL.md"), { throwIfNoEntry: false });
    return st !== undefined && !st.isDirectory();
  } catch {
    // Unsearchable directory: treated as a category, whose listing then reports the error.
    return false;
  }
}

/**
 * The entries of one listing that fit the root's bound. A listing that crosses it is cut (sorted
 * order, so the same entries are kept every time), the scan stops after them, and one
 * `scan_limit` diagnostic says so: a root with 20,001 entries lists its first 20,000, not none.
 */
function withinBound(w: Walk, ents: Dirent[]): Dirent[] {
  const room = MAX_DIR_ENTRIES - w.entries;
  w.entries += Math.min(ents.length, room);
  if (ents.length <= room) return ents;
  w.stopped = true;
  w.diagnostics.push(diagnostic("warn", "scan_limit", MSG.scanLimit(MAX_DIR_ENTRIES), { path: w.root.path }));
  return ents.slice(0, room);
}

function claim(w: Walk, real: string, path: string): boolean {
  const first = w.visited.get(real);
  if (first !== undefined) {
    w.diagnostics.push(diagnostic("warn", "duplicate_real_path", MSG.duplicateRealPath(first), { path }));
    return false;
  }
  w.visited.set(real, path);
  return true;
}

/** A skill directory? Watched directories are probed again after their stat, so a SKILL.md created in
 * between is either seen here or moves the directory's mtime past the stat. */
function isSkillDir(dir: string, w: Walk): boolean {
  if (hasSkillFile(dir)) return true;
  if (!w.watch) return false;
  w.watch(dir);
  return hasSkillFile(dir);
}

/** `visited` is shared across the roots of one discovery so a skill linked twice is seen once. */
export function scanRoot(root: SkillRoot, visited: Map<string, string>, watch: ScanWatch | null = null): ScanResult {
  const w: Walk = { root, watch, entries: 0, stopped: false, visited, out: [], diagnostics: [] };
  if (!root.exists) return { candidates: [], diagnostics: [] };
  watch?.(root.path);
  const listed = list(root.path, w, true);
  if (!listed) return { candidates: w.out, diagnostics: w.diagnostics };
  const top = withinBound(w, listed);
  // A cut top level leaves no room to read categories; its skills directly in the root still count.
  const topCut = w.stopped;
  for (const ent of top) {
    if (skipName(ent.name)) continue;
    const real = asDir(root.path, root.realPath, ent, w);
    if (real === null) continue;
    const path = join(root.path, ent.name);
    if (isSkillDir(path, w)) {
      if (claim(w, real, path))
        w.out.push({ key: ent.name, root, path, realPath: real, category: null, skillFile: join(path, "SKILL.md") });
      continue;
    }
    if (topCut || real === root.realPath || !claim(w, real, path)) continue;
    const inner = list(path, w, false);
    if (!inner) continue;
    for (const sub of withinBound(w, inner)) {
      if (skipName(sub.name)) continue;
      const subReal = asDir(path, real, sub, w);
      if (subReal === null) continue;
      const subPath = join(path, sub.name);
      if (!isSkillDir(subPath, w)) continue;
      if (claim(w, subReal, subPath))
        w.out.push({
          key: sub.name,
          root,
          path: subPath,
          realPath: subReal,
          category: ent.name,
          skillFile: join(subPath, "SKILL.md"),
        });
    }
    // A category crossed the bound: the scan of this root stops there, in sorted order.
    if (w.stopped) break;
  }
  return { candidates: w.out, diagnostics: w.diagnostics };
}
