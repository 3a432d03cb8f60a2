/**
 * @module scripts/bench/relevance-quality
 * The quality half of the relevance benchmark (skills.md §7.2): the labelled queries of
 * tests/fixtures/relevance/ (every set: relevance-sets.ts) run through lemon's `findRelevant` and through MiniSearch,
 * Orama and SQLite FTS5 (bm25 with column weights) over the same fields and corpus. Used by
 * scripts/bench/relevance.ts and by the CI test tests/core/skills/search/quality.test.ts.
 */
import { Database } from "bun:sqlite";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import MiniSearch from "minisearch";
import { create, insertMultiple, search as oramaSearch } from "@orama/orama";
import { tokenizer } from "@orama/orama/components";
import { createLemon, type Lemon } from "../../src/core/index.ts";
import { createContext } from "../../src/core/context.ts";
import { isDisplayable } from "../../src/core/skills/entry.ts";
import { SkillRegistry } from "../../src/core/skills/registry.ts";
import { requireCorpus } from "./corpus.ts";

export interface LabelledQuery {
  id: string;
  query: string;
  relevant: string[];
  kind: string;
  split: "tune" | "heldout";
}

export interface Doc {
  key: string;
  name: string;
  keywords: string;
  description: string;
  body: string;
}

export interface Metrics {
  n: number;
  /** No-answer requests (relevant: []) in the set, and the share of them that came back empty. */
  nNoAnswer?: number;
  empty?: number;
  top1: number;
  hit3: number;
  mrr3: number;
  mrr10: number;
  ndcg3: number;
  recall3: number;
}

export type Engine = (query: string) => string[] | Promise<string[]>;

export const ENGINES = ["lemon", "minisearch", "orama", "fts5"] as const;
export type EngineName = (typeof ENGINES)[number];

/** Field weights the baselines get: the same order of importance lemon uses. */
const BOOST = { name: 3, keywords: 2, description: 1.5, body: 1 };

/**
 * A standard English stop-word list (the classic Lucene/Snowball set plus common pronouns) for
 * the baselines, applied through each engine's own configuration. Without it MiniSearch's and
 * Orama's prefix search expand "i" or "a" to every word that starts with them, which makes them
 * a strawman on conversational queries.
 */
export const BASELINE_STOP_WORDS: readonly string[] = (
  "a an and are as at be but by for if in into is it no not of on or such that the their then there these they " +
  "this to was will with i me my myself we our ours you your yours he him his she her it its itself what which who " +
  "whom am were been being have has had having do does did doing would should could can just so than too very " +
  "from up down out off over under again further once here when where why how all any both each few more most " +
  "other some own same only nor about against between through during before after above below s t don now"
).split(" ");

/**
 * Baseline settings, chosen on the `tune` half only (scripts/bench/relevance-quality.ts --grid
 * prints the alternatives): each engine gets stop words, stemming where it has one, and the
 * fuzzy/prefix setting that served it best.
 */
export interface BaselineOptions {
  /** MiniSearch: Porter stemming through processTerm. */
  miniStem: boolean;
  /** MiniSearch: prefix search for terms of at least this many characters (0 = off). */
  miniPrefixMin: number;
  /** MiniSearch: fuzzy distance ratio for terms of at least 4 characters (0 = off). */
  miniFuzzy: number;
  /** Orama: built-in English (Porter) stemmer. */
  oramaStem: boolean;
  /** Orama: Levenshtein tolerance. */
  oramaTolerance: number;
  /** SQLite FTS5: prefix queries (`term*`) for terms of at least this many characters (0 = off). */
  ftsPrefixMin: number;
}

/** The best setting of each baseline on the tune half by MRR@10 + hit@3 (see `--grid`). */
export const BASELINE_DEFAULTS: BaselineOptions = {
  miniStem: false,
  miniPrefixMin: 4,
  miniFuzzy: 0.2,
  oramaStem: false,
  oramaTolerance: 1,
  ftsPrefixMin: 0,
};

export async function loadQueries(file: string): Promise<LabelledQuery[]> {
  const raw: unknown = await Bun.file(file).json();
  if (!Array.isArray(raw)) throw new Error(`${file}: not an array`);
  return raw.map((q: unknown, i) => {
    const o = q as Record<string, unknown>;
    if (typeof o.query !== "string" || !Array.isArray(o.relevant) || (o.split !== "tune" && o.split !== "heldout"))
      throw new Error(`${file}: query ${i} is malformed`);
    return { id: String(o.id), query: o.query, relevant: o.relevant.map(String), kind: String(o.kind), split: o.split };
  });
}

/**
 * A lemon instance whose only global root is the corpus, with a throwaway agent dir, and a
 * registry on the same options for what the public API does not show (the parsed records).
 */
export async function corpusLemon(
  corpus: string,
): Promise<{ lemon: Lemon; registry: SkillRegistry; dir: string; [Symbol.asyncDispose](): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), "lemon-bench-"));
  const options = {
    cwd: dir,
    agentDir: join(dir, "agent"),
    env: { PATH: process.env.PATH, LEMON_CLAUDE_SKILLS_DIR: corpus, LEMON_SNAPSHOT_WORKER: "never" },
    // One platform everywhere, so `platforms:` filtering (and the scores) do not depend on the machine.
    platform: "linux",
  };
  const lemon = createLemon({ ...options, curator: false });
  const registry = new SkillRegistry(createContext(options));
  return {
    lemon,
    registry,
    dir,
    async [Symbol.asyncDispose]() {
      await lemon.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** The displayable skills of the corpus with the fields every engine indexes. */
export async function corpusDocs(registry: SkillRegistry): Promise<Doc[]> {
  const v = await registry.view();
  const docs: Doc[] = [];
  for (const e of v.entries) {
    if (!isDisplayable(e)) continue;
    const rec = v.discovery.effective.get(e.key);
    if (!rec) continue;
    const m = rec.manifest;
    docs.push({
      key: e.key,
      name: `${e.key} ${m.name ?? ""}`,
      keywords: [...m.keywords, ...m.tags, ...(m.category ? [m.category] : [])].join(" "),
      description: m.description ?? "",
      body: rec.bodyExcerpt,
    });
  }
  return docs;
}

const STOP = new Set(BASELINE_STOP_WORDS);
/** Orama's Porter stemmer, shared so MiniSearch can stem the same way. */
const porter = tokenizer.createTokenizer({ language: "english", stemming: true }).stemmer;

export function miniSearchEngine(docs: Doc[], o: BaselineOptions = BASELINE_DEFAULTS): Engine {
  const processTerm = (term: string): string | null => {
    const t = term.toLowerCase();
    if (STOP.has(t)) return null;
    return o.miniStem && porter ? porter(t) : t;
  };
  const fields = ["name", "keywords", "description", "body"];
  const ms = new MiniSearch<Doc>({ idField: "key", fields, storeFields: ["key"], processTerm });
  ms.addAll(docs);
  const opts = {
    boost: BOOST,
    combineWith: "OR" as const,
    prefix: (t: string) => o.miniPrefixMin > 0 && t.length >= o.miniPrefixMin,
    fuzzy: (t: string) => (o.miniFuzzy > 0 && t.length >= 4 ? o.miniFuzzy : false),
  };
  return (q) =>
    ms
      .search(q, opts)
      .slice(0, 10)
      .map((r) => String(r.id));
}

export async function oramaEngine(docs: Doc[], o: BaselineOptions = BASELINE_DEFAULTS): Promise<Engine> {
  // Orama's English splitter keeps `-` and `'` inside words, so `helm-chart-scaffolding` would be
  // one token that no query word meets; split on them like the other engines do.
  const stopWords = [...BASELINE_STOP_WORDS];
  const base = tokenizer.createTokenizer({ language: "english", stemming: o.oramaStem, stopWords });
  const split = (input: string) => input.replace(/[-_'’./]+/g, " ");
  const db = create({
    schema: { key: "string", name: "string", keywords: "string", description: "string", body: "string" } as const,
    components: {
      tokenizer: {
        ...base,
        tokenize: (input, language, prop, withCache) =>
          base.tokenize(typeof input === "string" ? split(input) : input, language, prop, withCache),
      },
    },
  });
  await insertMultiple(db, docs);
  return async (q) => {
    const properties: ("name" | "keywords" | "description" | "body")[] = ["name", "keywords", "description", "body"];
    const r = await oramaSearch(db, { term: q, properties, boost: BOOST, tolerance: o.oramaTolerance, limit: 10 });
    return r.hits.map((h) => String(h.document.key));
  };
}

export function fts5Engine(docs: Doc[], o: BaselineOptions = BASELINE_DEFAULTS): Engine {
  const db = new Database(":memory:");
  db.run(
    "CREATE VIRTUAL TABLE s USING fts5(key UNINDEXED, name, keywords, description, body, " +
      "tokenize = 'porter unicode61 remove_diacritics 2')",
  );
  const ins = db.prepare("INSERT INTO s (key, name, keywords, description, body) VALUES (?, ?, ?, ?, ?)");
  db.transaction(() => {
    for (const d of docs) ins.run(d.key, d.name, d.keywords, d.description, d.body);
  })();
  const stmt = db.prepare<{ key: string }, [string]>(
    `SELECT key FROM s WHERE s MATCH ? ` +
      `ORDER BY bm25(s, 0, ${BOOST.name}, ${BOOST.keywords}, ${BOOST.description}, ${BOOST.body}) LIMIT 10`,
  );
  return (q) => {
    const terms = (q.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((t) => !STOP.has(t));
    if (terms.length === 0) return [];
    const expr = terms
      .map((t) => (o.ftsPrefixMin > 0 && t.length >= o.ftsPrefixMin ? `"${t}"*` : `"${t}"`))
      .join(" OR ");
    return stmt.all(expr).map((r) => r.key);
  };
}

/** lemon with the "nothing fits" cut-off (the default), or the uncut list with `cutoff: false`. */
export function lemonEngine(lemon: Lemon, cutoff = true): Engine {
  return async (q) => (await lemon.skills.findRelevant(q, { maxResults: 10, cutoff })).map((e) => e.key);
}

export function score(ranked: readonly string[], relevant: ReadonlySet<string>): Omit<Metrics, "n"> {
  const first = ranked.findIndex((k) => relevant.has(k));
  let dcg = 0;
  let idcg = 0;
  for (let i = 0; i < 3; i++) {
    if (relevant.has(ranked[i] ?? "")) dcg += 1 / Math.log2(i + 2);
    if (i < relevant.size) idcg += 1 / Math.log2(i + 2);
  }
  const found3 = ranked.slice(0, 3).filter((k) => relevant.has(k)).length;
  return {
    top1: first === 0 ? 1 : 0,
    hit3: first >= 0 && first < 3 ? 1 : 0,
    mrr3: first >= 0 && first < 3 ? 1 / (first + 1) : 0,
    mrr10: first >= 0 && first < 10 ? 1 / (first + 1) : 0,
    ndcg3: idcg === 0 ? 0 : dcg / idcg,
    recall3: relevant.size === 0 ? 0 : found3 / relevant.size,
  };
}

export type QualityReport = Record<EngineName, Record<"tune" | "heldout" | "all", Metrics>>;

/** The per-query scores averaged; an empty set scores 0 everywhere. */
export function meanMetrics(rows: readonly Omit<Metrics, "n">[]): Metrics {
  const n = rows.length;
  const avg = (f: keyof Omit<Metrics, "n" | "nNoAnswer" | "empty">) =>
    n === 0 ? 0 : rows.reduce((s, r) => s + r[f], 0) / n;
  return {
    n,
    top1: avg("top1"),
    hit3: avg("hit3"),
    mrr3: avg("mrr3"),
    mrr10: avg("mrr10"),
    ndcg3: avg("ndcg3"),
    recall3: avg("recall3"),
  };
}

/** Each engine's ranking for every query, and the metrics per split. */
async function evaluate(
  engine: Engine,
  queries: readonly LabelledQuery[],
  valid: ReadonlySet<string>,
): Promise<{ ranked: string[][]; metrics: Record<"tune" | "heldout" | "all", Metrics> }> {
  const ranked: string[][] = [];
  const rows: { split: string; m: Omit<Metrics, "n"> }[] = [];
  for (const q of queries) {
    const relevant = new Set(q.relevant.filter((k) => valid.has(k)));
    const r = await engine(q.query);
    ranked.push(r);
    if (q.relevant.length === 0) continue;
    // A query whose judged answers are all excluded (e.g. a macOS-only skill) carries no signal.
    if (relevant.size > 0) rows.push({ split: q.split, m: score(r, relevant) });
  }
  return {
    ranked,
    metrics: {
      tune: meanMetrics(rows.filter((r) => r.split === "tune").map((r) => r.m)),
      heldout: meanMetrics(rows.filter((r) => r.split === "heldout").map((r) => r.m)),
      all: meanMetrics(rows.map((r) => r.m)),
    },
  };
}

/**
 * Runs every engine over every query (or one split's); judged answers are limited to displayable
 * corpus skills. The corpus is read once and each engine indexes it once.
 */
export async function runQuality(
  corpus: string,
  queriesFile: string,
  opts: { baseline?: BaselineOptions; split?: "tune" | "heldout" } = {},
): Promise<{ report: QualityReport; perQuery: Record<EngineName, string[][]>; queries: LabelledQuery[] }> {
  const baseline = opts.baseline ?? BASELINE_DEFAULTS;
  const queries = (await loadQueries(queriesFile)).filter((q) => !opts.split || q.split === opts.split);
  await using env = await corpusLemon(corpus);
  const docs = await corpusDocs(env.registry);
  const valid = new Set(docs.map((d) => d.key));
  const build: Record<EngineName, () => Engine | Promise<Engine>> = {
    lemon: () => lemonEngine(env.lemon),
    minisearch: () => miniSearchEngine(docs, baseline),
    orama: () => oramaEngine(docs, baseline),
    fts5: () => fts5Engine(docs, baseline),
  };
  const report = {} as QualityReport;
  const perQuery = {} as Record<EngineName, string[][]>;
  for (const name of ENGINES) {
    const r = await evaluate(await build[name](), queries, valid);
    report[name] = r.metrics;
    perQuery[name] = r.ranked;
  }
  return { report, perQuery, queries };
}

/** The baseline settings tried by `--grid`, scored on the tune half only. */
async function grid(corpus: string, queriesFile: string): Promise<void> {
  const queries = (await loadQueries(queriesFile)).filter((q) => q.split === "tune");
  await using env = await corpusLemon(corpus);
  const docs = await corpusDocs(env.registry);
  const valid = new Set(docs.map((d) => d.key));
  const d = BASELINE_DEFAULTS;
  const variants: [string, () => Engine | Promise<Engine>][] = [];
  for (const miniStem of [false, true])
    for (const miniPrefixMin of [0, 4])
      for (const miniFuzzy of [0, 0.2])
        variants.push([
          `minisearch stem=${miniStem} prefix>=${miniPrefixMin} fuzzy=${miniFuzzy}`,
          () => miniSearchEngine(docs, { ...d, miniStem, miniPrefixMin, miniFuzzy }),
        ]);
  for (const oramaStem of [false, true])
    for (const oramaTolerance of [0, 1])
      variants.push([
        `orama stem=${oramaStem} tolerance=${oramaTolerance}`,
        () => oramaEngine(docs, { ...d, oramaStem, oramaTolerance }),
      ]);
  for (const ftsPrefixMin of [0, 4, 6])
    variants.push([`fts5 prefix>=${ftsPrefixMin}`, () => fts5Engine(docs, { ...d, ftsPrefixMin })]);
  console.log("tune half only                              top1   hit@3  MRR@3  MRR@10 nDCG@3 rec@3");
  for (const [label, make] of variants) {
    const m = (await evaluate(await make(), queries, valid)).metrics.tune;
    console.log(`${label.padEnd(42)} ${metricCells(m)}`);
  }
}

/** The six metric columns of the quality tables. */
function metricCells(m: Metrics): string {
  const f = (x: number) => x.toFixed(3).padStart(6);
  return `${f(m.top1)} ${f(m.hit3)} ${f(m.mrr3)} ${f(m.mrr10)} ${f(m.ndcg3)} ${f(m.recall3)}`;
}

export function formatQuality(report: QualityReport): string {
  const lines = ["split    engine      n    top1   hit@3  MRR@3  MRR@10 nDCG@3 rec@3"];
  for (const split of ["tune", "heldout", "all"] as const)
    for (const e of ENGINES) {
      const m = report[e][split];
      if (m.n === 0) continue;
      lines.push(`${split.padEnd(8)} ${e.padEnd(10)} ${String(m.n).padStart(3)} ${metricCells(m)}`);
    }
  return lines.join("\n");
}

if (import.meta.main) {
  const args = process.argv.slice(2);
  const corpus = requireCorpus(args.find((a) => !a.startsWith("--")));
  const queriesFile = join(import.meta.dir, "../../tests/fixtures/relevance/queries.json");
  // `--tune` hides the held-out sets (rows and misses), for tuning without peeking.
  const tuneOnly = args.includes("--tune");
  if (args.includes("--grid")) await grid(corpus, queriesFile);
  else if (args.includes("--misses")) {
    const { perQuery, queries } = await runQuality(corpus, queriesFile, tuneOnly ? { split: "tune" } : {});
    queries.forEach((q, i) => {
      const got = perQuery.lemon[i]!;
      if (q.relevant.includes(got[0] ?? "")) return;
      console.log(`${q.split} ${q.id} ${JSON.stringify(q.query)} want ${q.relevant} got ${got.slice(0, 3)}`);
    });
  } else {
    // Every labelled set (relevance-sets.ts): lemon with and without the cut-off, and the baselines.
    const { formatSets, presentSets, runSets } = await import("./relevance-sets.ts");
    console.log(formatSets(await runSets(corpus, presentSets(tuneOnly ? (s) => s.tune : undefined))));
  }
}
