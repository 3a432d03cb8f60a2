/**
 * @module scripts/bench/relevance-quality
 * The quality half of the relevance benchmark (skills.md §7.2): the labelled queries of
 * tests/fixtures/relevance/queries.json run through lemon's `findRelevant` and through MiniSearch,
 * Orama and SQLite FTS5 (bm25 with column weights) over the same fields and corpus. Used by
 * scripts/bench/relevance.ts and by the CI test tests/core/skills/search/quality.test.ts.
 */
import { Database } from "bun:sqlite";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import MiniSearch from "minisearch";
import { create, insertMultiple, search as oramaSearch } from "@orama/orama";
import { createLemon, type Lemon } from "../../src/core/index.ts";
import { isDisplayable } from "../../src/core/skills/entry.ts";

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

/** A lemon instance whose only global root is the corpus, with a throwaway agent dir. */
export async function corpusLemon(corpus: string): Promise<{ lemon: Lemon; dir: string; [Symbol.asyncDispose](): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), "lemon-bench-"));
  const lemon = createLemon({
    cwd: dir,
    agentDir: join(dir, "agent"),
    env: { PATH: process.env.PATH, LEMON_CLAUDE_SKILLS_DIR: corpus, LEMON_SNAPSHOT_WORKER: "never" },
    curator: false,
  });
  return {
    lemon,
    dir,
    async [Symbol.asyncDispose]() {
      await lemon.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** The displayable skills of the corpus with the fields every engine indexes. */
export async function corpusDocs(lemon: Lemon): Promise<Doc[]> {
  const v = await lemon.registry.view();
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

export function miniSearchEngine(docs: Doc[]): Engine {
  const ms = new MiniSearch<Doc>({ idField: "key", fields: ["name", "keywords", "description", "body"], storeFields: ["key"] });
  ms.addAll(docs);
  return (q) =>
    ms
      .search(q, { boost: BOOST, prefix: true, fuzzy: 0.2, combineWith: "OR" })
      .slice(0, 10)
      .map((r) => String(r.id));
}

export async function oramaEngine(docs: Doc[]): Promise<Engine> {
  const db = create({ schema: { key: "string", name: "string", keywords: "string", description: "string", body: "string" } as const });
  await insertMultiple(db, docs);
  return async (q) => {
    const r = await oramaSearch(db, { term: q, properties: ["name", "keywords", "description", "body"], boost: BOOST, tolerance: 1, limit: 10 });
    return r.hits.map((h) => String(h.document.key));
  };
}

export function fts5Engine(docs: Doc[]): Engine {
  const db = new Database(":memory:");
  db.run("CREATE VIRTUAL TABLE s USING fts5(key UNINDEXED, name, keywords, description, body, tokenize = 'porter unicode61 remove_diacritics 2')");
  const ins = db.prepare("INSERT INTO s (key, name, keywords, description, body) VALUES (?, ?, ?, ?, ?)");
  db.transaction(() => {
    for (const d of docs) ins.run(d.key, d.name, d.keywords, d.description, d.body);
  })();
  const stmt = db.prepare<{ key: string }, [string]>(
    `SELECT key FROM s WHERE s MATCH ? ORDER BY bm25(s, 0, ${BOOST.name}, ${BOOST.keywords}, ${BOOST.description}, ${BOOST.body}) LIMIT 10`,
  );
  return (q) => {
    const terms = q.match(/[\p{L}\p{N}]+/gu) ?? [];
    if (terms.length === 0) return [];
    return stmt.all(terms.map((t) => `"${t}"`).join(" OR ")).map((r) => r.key);
  };
}

export function lemonEngine(lemon: Lemon): Engine {
  return async (q) => (await lemon.skills.findRelevant(q, { maxResults: 10 })).map((e) => e.key);
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

function mean(rows: Omit<Metrics, "n">[]): Metrics {
  const n = rows.length;
  const avg = (f: keyof Omit<Metrics, "n">) => (n === 0 ? 0 : rows.reduce((s, r) => s + r[f], 0) / n);
  return { n, top1: avg("top1"), hit3: avg("hit3"), mrr3: avg("mrr3"), mrr10: avg("mrr10"), ndcg3: avg("ndcg3"), recall3: avg("recall3") };
}

/** Runs every engine over every query; judged answers are limited to displayable corpus skills. */
export async function runQuality(corpus: string, queriesFile: string): Promise<{ report: QualityReport; perQuery: Record<EngineName, string[][]>; queries: LabelledQuery[] }> {
  const queries = await loadQueries(queriesFile);
  await using env = await corpusLemon(corpus);
  const docs = await corpusDocs(env.lemon);
  const valid = new Set(docs.map((d) => d.key));
  const engines: Record<EngineName, Engine> = {
    lemon: lemonEngine(env.lemon),
    minisearch: miniSearchEngine(docs),
    orama: await oramaEngine(docs),
    fts5: fts5Engine(docs),
  };
  const report = {} as QualityReport;
  const perQuery = {} as Record<EngineName, string[][]>;
  for (const name of ENGINES) {
    const rows: { split: string; m: Omit<Metrics, "n"> }[] = [];
    perQuery[name] = [];
    for (const q of queries) {
      const relevant = new Set(q.relevant.filter((k) => valid.has(k)));
      const ranked = await engines[name](q.query);
      perQuery[name].push(ranked);
      rows.push({ split: q.split, m: score(ranked, relevant) });
    }
    report[name] = {
      tune: mean(rows.filter((r) => r.split === "tune").map((r) => r.m)),
      heldout: mean(rows.filter((r) => r.split === "heldout").map((r) => r.m)),
      all: mean(rows.map((r) => r.m)),
    };
  }
  return { report, perQuery, queries };
}

export function formatQuality(report: QualityReport): string {
  const lines = ["split    engine      n    top1   hit@3  MRR@3  MRR@10 nDCG@3 rec@3"];
  for (const split of ["tune", "heldout", "all"] as const)
    for (const e of ENGINES) {
      const m = report[e][split];
      const f = (x: number) => x.toFixed(3).padStart(6);
      lines.push(`${split.padEnd(8)} ${e.padEnd(10)} ${String(m.n).padStart(3)} ${f(m.top1)} ${f(m.hit3)} ${f(m.mrr3)} ${f(m.mrr10)} ${f(m.ndcg3)} ${f(m.recall3)}`);
    }
  return lines.join("\n");
}

if (import.meta.main) {
  const corpus = process.argv[2] ?? join(import.meta.dir, "../../../shared/corpus/skills");
  const { report, perQuery, queries } = await runQuality(corpus, join(import.meta.dir, "../../tests/fixtures/relevance/queries.json"));
  console.log(formatQuality(report));
  if (process.argv.includes("--misses"))
    queries.forEach((q, i) => {
      const got = perQuery.lemon[i]!;
      if (!q.relevant.includes(got[0] ?? "")) console.log(`${q.split} ${q.id} ${JSON.stringify(q.query)} want ${q.relevant.join(",")} got ${got.slice(0, 3).join(",")}`);
    });
}
