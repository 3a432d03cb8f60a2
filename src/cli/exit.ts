/**
 * @module cli/exit
 * The one table from error codes to exit codes (cli.md §1.1).
 */
import type { ErrorCode } from "../core/index.ts";

export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;

export function exitCodeFor(code: ErrorCode): number {
  return code === "INVALID_PARAMS" ? EXIT_USAGE : EXIT_FAILED;
}
