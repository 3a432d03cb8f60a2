/**
 * @module fsx/state-dir
 * A state directory (`P` = `<cwd>/.lemon`, or the agent dir) that exists but is not a directory:
 * every file lemon would read there reads as missing, so listings say why (cli.md §1.2 names "a
 * `.lemon` that is a file" among the diagnostics shown), and writes refuse it (fsx/atomic.ts).
 */
import { statSync } from "node:fs";
import { diagnostic, type Diagnostic } from "../diagnostics.ts";

/** A warn diagnostic when `dir` exists and is not a directory (links followed); null otherwise. */
export function stateDirProblem(dir: string, source?: string): Diagnostic | null {
  let isDir: boolean;
  try {
    isDir = statSync(dir).isDirectory();
  } catch {
    return null; // absent (or unreadable: the reads themselves report that)
  }
  if (isDir) return null;
  const message = "not a directory: lemon's state files there are ignored";
  return diagnostic("warn", "state_dir_not_directory", message, { path: dir, ...(source ? { source } : {}) });
}
