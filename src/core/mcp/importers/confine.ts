/**
 * @module mcp/importers/confine
 * What a project-level file of another tool may make lemon read besides itself: opencode's
 * `{file:…}` and the `envFile` of Cursor, Windsurf and VS Code (mcp.md §4.3). A cloned repository
 * is untrusted input (§4.4), and `lemon mcp get` prints the substituted name and URL, so a
 * project file that could name `/home/u/.ssh/id_ed25519` or `../../secrets` would hand any
 * file on the machine to whoever wrote the repository. Such a reference is honoured only when
 * its real path (symlinks resolved) lies inside the project directory C; anything else is never
 * opened. User-level files are the user's own and keep reading wherever they point.
 */
import { realpathSync } from "node:fs";
import { isInside } from "../../paths.ts";
import type { SourceLevel } from "../types.ts";

export type Reference = { ok: true; path: string } | { ok: false; problem: "missing" | "outside" };

/** The diagnostic wording of a refused reference (never the path itself: it is file content). */
export const OUTSIDE_PROJECT = "outside the project directory, not read";

function real(path: string): string | null {
  try {
    return realpathSync(path);
  } catch {
    return null;
  }
}

/**
 * The path to read for a reference `target` (absolute) written in a file of `level`: for a
 * project file its real path when inside C's, `missing` when it does not resolve, else `outside`.
 */
export function referencedFile(target: string, level: SourceLevel, cwd: string): Reference {
  if (level === "user") return { ok: true, path: target };
  const path = real(target);
  if (path === null) return { ok: false, problem: "missing" };
  const root = real(cwd);
  return root !== null && isInside(path, root) ? { ok: true, path } : { ok: false, problem: "outside" };
}
