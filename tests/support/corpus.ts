// The real corpus of public skills, read-only (tests never write into it): found as
// scripts/bench/corpus.ts says (LEMON_CORPUS, else ../shared/corpus/skills beside the repository).
// A clone without one still passes: the tests that need it skip, and the run says once how to
// get it.
import { CORPUS_HINT, findCorpus } from "../../scripts/bench/corpus.ts";
import { corpusSkills } from "../../scripts/bench/replicate.ts";

/** The corpus directory; "" when there is none (every test using it is skipped then). */
export const CORPUS_DIR = findCorpus() ?? "";

/** The corpus the recorded counts and quality figures belong to: 1,124 skills in 10 sources. */
const REFERENCE = { skills: 1124, sources: 10 };

// Test files may each load this module afresh; each note is for the whole run.
const NOTED = Symbol.for("lemon.tests.corpus-notes");

function noteOnce(key: string, line: string): void {
  const g = globalThis as { [NOTED]?: Set<string> };
  const noted = (g[NOTED] ??= new Set());
  if (noted.has(key)) return;
  noted.add(key);
  console.error(line);
}

/** Whether a corpus is there; when not, prints CORPUS_HINT once per test run. */
export function corpusAvailable(): boolean {
  if (CORPUS_DIR !== "") return true;
  noteOnce("missing", `corpus tests skipped: ${CORPUS_HINT}`);
  return false;
}

/**
 * Whether the corpus is the reference one, which the tests of recorded figures (counts, ranking
 * quality) need; another folder of skills runs the other corpus tests and skips these, saying so once.
 */
export function referenceCorpusAvailable(): boolean {
  if (!corpusAvailable()) return false;
  const skills = corpusSkills(CORPUS_DIR);
  const sources = new Set(skills.map((s) => s.source)).size;
  if (skills.length === REFERENCE.skills && sources === REFERENCE.sources) return true;
  noteOnce(
    "other",
    `recorded-figure tests skipped: ${CORPUS_DIR} holds ${skills.length} skills in ${sources} sources, ` +
      `not the reference corpus's ${REFERENCE.skills} in ${REFERENCE.sources}`,
  );
  return false;
}
