/**
 * @module scripts/bench/relevance-sets
 * Every labelled set of tests/fixtures/relevance through lemon (with and without the "nothing
 * fits" cut-off), MiniSearch, Orama and SQLite FTS5, indexed once over the same corpus and fields.
 * Answerable requests give the ranking metrics; requests no skill answers (`relevant: []`) give
 * the share that comes back empty. Used by relevance-quality.ts (`--sets`) and the CI test
 * tests/core/skills/search/quality-sets.test.ts.
 *
 *   ./node_modules/.bin/bun scripts/bench/relevance-sets.ts [CORPUS] [--tune]
 *
 * `--tune` runs only the tune sets (for choosing anything; the held-out sets are for reporting).
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { requireCorpus } from "./corpus.ts";
import {
  corpusDocs,
  corpusLemon,
  fts5Engine,
  lemonEngine,
  loadQueries,
  meanMetrics,
  miniSearchEngine,
  oramaEngine,
  score,
  type Engine,
  type LabelledQuery,
  type Metrics,
} from "./relevance-quality.ts";

export const FIXTURES = join(import.meta.dir, "../../tests/fixtures/relevance");

export interface SetSpec {
  name: string;
  file: string;
  split?: "tune" | "heldout";
  /** May be used to choose weights and thresholds. */
  tune: boolean;
}

export const SETS: readonly SetSpec[] = [
  { name: "queries tune", file: "queries.json", split: "tune", tune: true },
  { name: "tune-v2", file: "tune-v2.json", tune: true },
  { name: "tune-noanswer", file: "tune-noanswer.json", tune: true },
  { name: "queries heldout", file: "queries.json", split: "heldout", tune: false },
  { name: "outsider-short", file: "outsider-short.json", tune: false },
  { name: "outsider-long", file: "outsider-long.json", tune: false },
];

export const SET_ENGINES = ["lemon", "lemon-uncut", "minisearch", "orama", "fts5"] as const;
export type SetEngine = (typeof SET_ENGINES)[number];
export type SetReport = Record<string, Record<SetEngine, Metrics>>;

async function evalSet(
  engine: Engine,
  queries: readonly LabelledQuery[],
  valid: ReadonlySet<string>,
): Promise<Metrics> {
  const rows: Omit<Metrics, "n">[] = [];
  let noAnswer = 0;
  let empty = 0;
  for (const q of queries) {
    const r = await engine(q.query);
    if (q.relevant.length === 0) {
      noAnswer++;
      if (r.length === 0) empty++;
      continue;
    }
    const relevant = new Set(q.relevant.filter((k) => valid.has(k)));
    // A request whose judged answers are all excluded (e.g. a macOS-only skill) carries no signal.
    if (relevant.size > 0) rows.push(score(r, relevant));
  }
  return {
    ...meanMetrics(rows),
    nNoAnswer: noAnswer,
    empty: noAnswer === 0 ? 0 : empty / noAnswer,
  };
}

/** The sets whose file exists (held-out sets may be absent in a checkout). */
export function presentSets(only?: (s: SetSpec) => boolean): SetSpec[] {
  return SETS.filter((s) => existsSync(join(FIXTURES, s.file)) && (!only || only(s)));
}

export async function runSets(
  corpus: string,
  sets: readonly SetSpec[] = presentSets(),
  only: readonly SetEngine[] = SET_ENGINES,
): Promise<SetReport> {
  await using env = await corpusLemon(corpus);
  const docs = await corpusDocs(env.registry);
  const valid = new Set(docs.map((d) => d.key));
  const make: Record<SetEngine, () => Engine | Promise<Engine>> = {
    lemon: () => lemonEngine(env.lemon, true),
    "lemon-uncut": () => lemonEngine(env.lemon, false),
    minisearch: () => miniSearchEngine(docs),
    orama: () => oramaEngine(docs),
    fts5: () => fts5Engine(docs),
  };
  const engines = new Map<SetEngine, Engine>();
  for (const e of only) engines.set(e, await make[e]());
  const report: SetReport = {};
  for (const set of sets) {
    const queries = (await loadQueries(join(FIXTURES, set.file))).filter((q) => !set.split || q.split === set.split);
    const row = {} as Record<SetEngine, Metrics>;
    for (const [e, engine] of engines) row[e] = await evalSet(engine, queries, valid);
    report[set.name] = row;
  }
  return report;
}

export function formatSets(report: SetReport): string {
  const f = (x: number) => x.toFixed(3).padStart(6);
  const lines = ["set              engine        n   MRR@10 hit@3  top1   MRR@3  nDCG@3 rec@3   no-answer empty"];
  for (const [name, row] of Object.entries(report))
    for (const e of SET_ENGINES) {
      const m = row[e];
      if (!m) continue;
      const na = m.nNoAnswer ? `${String(m.nNoAnswer).padStart(4)} ${f(m.empty ?? 0)}` : "";
      lines.push(
        `${name.padEnd(16)} ${e.padEnd(12)} ${String(m.n).padStart(4)} ${f(m.mrr10)} ${f(m.hit3)} ${f(m.top1)} ` +
          `${f(m.mrr3)} ${f(m.ndcg3)} ${f(m.recall3)}   ${na}`,
      );
    }
  return lines.join("\n");
}

if (import.meta.main) {
  const args = process.argv.slice(2);
  const corpus = requireCorpus(args.find((a) => !a.startsWith("--")));
  const sets = presentSets(args.includes("--tune") ? (s) => s.tune : undefined);
  console.log(formatSets(await runSets(corpus, sets)));
}
