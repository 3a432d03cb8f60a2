/**
 * @module skills/install/fs-errors
 * File-system failures of the install machinery as one line saying what is wrong (cli.md §1.1).
 */
import { statSync } from "node:fs";
import { conflict, forbidden, LemonError } from "../../errors.ts";

/**
 * A failed mkdir of a private dir as one line saying what is wrong (cli.md §1.1): a file where
 * the parent directory should be is a CONFLICT naming it, a denied one FORBIDDEN, anything else
 * an OPERATION_FAILED,
 * never the raw syscall string or a NOT_FOUND (which means a missing skill, ref or source).
 */
export function tempDirError(parent: string, err: unknown): LemonError {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === "ENOTDIR" || (code === "EEXIST" && !isDirectory(parent)))
    return conflict(`${parent} is not a directory`);
  if (code === "EACCES" || code === "EPERM")
    return forbidden(`permission denied: cannot create a directory in ${parent}`);
  return new LemonError("OPERATION_FAILED", `cannot create a temporary directory in ${parent}`, {
    ...(code !== undefined ? { details: { errno: code } } : {}),
  });
}

function isDirectory(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}
