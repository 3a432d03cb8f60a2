/**
 * @module scripts/bench/corpus
 * Where the real skills corpus is, for the benchmarks and the tests that need one (a folder laid
 * out `<source>/<key>/SKILL.md`). A clone from a git host has none, so nothing may assume it: a
 * path given on the command line, else `LEMON_CORPUS`, else `../shared/corpus/skills` beside the
 * repository (where CI lays a read-only copy); otherwise the caller explains with CORPUS_HINT.
 */
import { statSync } from "node:fs";
import { join, resolve } from "node:path";

const REPO = resolve(import.meta.dir, "..", "..");

/** The one line every benchmark and test prints when it has no corpus. */
export const CORPUS_HINT = "no skills corpus: set LEMON_CORPUS to a folder of skills laid out <source>/<key>/SKILL.md";

function isDir(p: string): boolean {
  return statSync(p, { throwIfNoEntry: false })?.isDirectory() === true;
}

/**
 * The corpus directory, or null. An explicit or `LEMON_CORPUS` path that is not a directory is
 * null too (never a silent fall back to another corpus than the one asked for).
 */
export function findCorpus(
  explicit?: string | null,
  env: Record<string, string | undefined> = process.env,
): string | null {
  const asked = explicit || env.LEMON_CORPUS;
  if (asked) return isDir(asked) ? resolve(asked) : null;
  const beside = join(REPO, "..", "shared", "corpus", "skills");
  return isDir(beside) ? beside : null;
}

/** The corpus, or exit 2 with CORPUS_HINT: a benchmark without one has nothing to print. */
export function requireCorpus(explicit?: string | null): string {
  const dir = findCorpus(explicit);
  if (dir !== null) return dir;
  console.error(CORPUS_HINT);
  process.exit(2);
}
