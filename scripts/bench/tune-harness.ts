/**
 * @module scripts/bench/tune-harness
 * What the tune-set experiments (relevance-assoc.ts, relevance-vectors.ts) start from: the corpus
 * as lemon's only global root, its displayable skills, the relevance snapshot they score against
 * directly, and the labelled sets marked for tuning (held-out sets never reach an experiment).
 */
import { join } from "node:path";
import { createContext } from "../../src/core/context.ts";
import type { Snapshot } from "../../src/core/skills/search/format.ts";
import { corpusDocs, corpusLemon, type Doc, type LabelledQuery, loadQueries } from "./relevance-quality.ts";
import { FIXTURES, SETS } from "./relevance-sets.ts";

export interface TuneHarness {
  docs: Doc[];
  /** Keys of the displayable skills: judged answers outside it carry no signal. */
  valid: Set<string>;
  snap: Snapshot;
  [Symbol.asyncDispose](): Promise<void>;
}

export async function tuneHarness(corpus: string): Promise<TuneHarness> {
  const env = await corpusLemon(corpus);
  const docs = await corpusDocs(env.registry);
  const ctx = createContext({
    cwd: env.dir,
    agentDir: join(env.dir, "agent"),
    env: { PATH: process.env.PATH ?? "", LEMON_CLAUDE_SKILLS_DIR: corpus, LEMON_SNAPSHOT_WORKER: "never" },
    platform: "linux",
  });
  const snap = (await env.registry.relevance().snapshots(ctx, false)).global!;
  return {
    docs,
    valid: new Set(docs.map((d) => d.key)),
    snap,
    [Symbol.asyncDispose]: () => env[Symbol.asyncDispose](),
  };
}

/** Each tune set's queries (its split only, where it names one) that `keep` accepts. */
export async function tuneSets(
  keep: (q: LabelledQuery) => boolean = () => true,
): Promise<{ name: string; queries: LabelledQuery[] }[]> {
  return Promise.all(
    SETS.filter((s) => s.tune).map(async (s) => ({
      name: s.name,
      queries: (await loadQueries(join(FIXTURES, s.file))).filter((q) => (!s.split || q.split === s.split) && keep(q)),
    })),
  );
}
