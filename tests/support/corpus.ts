// The real corpus of public skills, read-only (tests never write into it): found as
// scripts/bench/corpus.ts says (LEMON_CORPUS, else ../shared/corpus/skills beside the repository).
// A clone without one still passes: the tests that need it skip, and the run says once how to
// get it.
import { CORPUS_HINT, findCorpus } from "../../scripts/bench/corpus.ts";

/** The corpus directory; "" when there is none (every test using it is skipped then). */
export const CORPUS_DIR = findCorpus() ?? "";

// Test files may each load this module afresh; the note is for the whole run.
const NOTED = Symbol.for("lemon.tests.corpus-hint");

/** Whether the corpus is there; when not, prints CORPUS_HINT once per test run. */
export function corpusAvailable(): boolean {
  if (CORPUS_DIR !== "") return true;
  const g = globalThis as { [NOTED]?: boolean };
  if (!g[NOTED]) {
    g[NOTED] = true;
    console.error(`corpus tests skipped: ${CORPUS_HINT}`);
  }
  return false;
}
