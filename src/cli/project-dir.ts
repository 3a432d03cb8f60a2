/**
 * @module cli/project-dir
 * The project directory of a CLI run, checked before anything reads or writes under it; apart
 * from cli/context.ts so `lemon mcp …` can use it without loading the skills stack.
 */
import { statSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import { usageError } from "./args.ts";
import type { CliIo } from "./io.ts";

const CWD_GONE = "the current directory no longer exists; use --cwd";

/**
 * The project directory: `--cwd` (relative to the process cwd) when given, else the process cwd.
 * `--cwd` must name an existing directory, so no later write creates it (cli.md §1.2).
 */
export function projectDir(io: CliIo, args: Record<string, unknown>): string {
  const flag = args.cwd;
  if (typeof flag !== "string") {
    if (io.cwd === null) throw usageError(CWD_GONE);
    return io.cwd;
  }
  if (!isAbsolute(flag) && io.cwd === null) throw usageError(CWD_GONE);
  const dir = io.cwd === null ? resolve(flag) : resolve(io.cwd, flag);
  let isDir = false;
  try {
    isDir = flag !== "" && statSync(dir).isDirectory();
  } catch {
    // missing, or not reachable: the same answer
  }
  if (!isDir) throw usageError(`--cwd: ${flag} is not a directory`);
  return dir;
}
