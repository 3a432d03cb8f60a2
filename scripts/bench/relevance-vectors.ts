/**
 * @module scripts/bench/relevance-vectors
 * The word-vector experiment of issue 16 item 1, on the tune sets only: lemon's scorer (uncut,
 * straight over the corpus snapshot) without vectors, with neighbour expansion (expand.ts) at
 * several weights, with neighbours standing in only for words the catalog lacks, and with a dense
 * re-rank of the top 30 by the cosine of idf-weighted mean vectors; and, learned from the corpus
 * itself, pseudo-relevance feedback (the key, description, keywords and tags words of the first
 * pass's top K skills, E best by score-weighted count × idf, added at weight beta for a second
 * pass). Needs the table scripts/build-vectors.ts writes (default $TMPDIR/lemon-vectors.bin, or
 * LEMON_VECTORS).
 *
 *   ./node_modules/.bin/bun scripts/build-vectors.ts && ./node_modules/.bin/bun scripts/bench/relevance-vectors.ts
 */
import { readFileSync } from "node:fs";
import { NEIGHBOURS } from "../../src/core/skills/search/expand.ts";
import { docMeta } from "../../src/core/skills/search/doc-meta.ts";
import { TERM_STRIDE, utf8 } from "../../src/core/skills/search/format.ts";
import { parseQuery, scoreWithNorm, type ParsedQuery, type QueryTerm } from "../../src/core/skills/search/score.ts";
import { tokenize } from "../../src/core/skills/search/tokenize.ts";
import { ASSET } from "../build-vectors.ts";
import { requireCorpus } from "./corpus.ts";
import { score } from "./relevance-quality.ts";
import { tuneHarness, tuneSets } from "./tune-harness.ts";
import { openVectors, VECTOR_DIMS as D, type Vectors } from "./vector-format.ts";

const corpus = requireCorpus(process.argv[2]);
const opened = openVectors(new Uint8Array(readFileSync(ASSET)));
if (typeof opened === "string") throw new Error(`${ASSET}: ${opened}`);
const vec: Vectors = opened;
await using harness = await tuneHarness(corpus);
const { docs, valid, snap } = harness;
const enc = new TextEncoder();

/** Unit mean of the words' vectors, rarer words (by the table's frequency rank) weighing more. */
function embed(text: string): Float64Array {
  const out = new Float64Array(D);
  for (const t of tokenize(text)) {
    const id = vec.find(enc.encode(t));
    if (id < 0) continue;
    const w = Math.log(2 + id / 50) * vec.scale[id]!;
    for (let i = 0; i < D; i++) out[i]! += w * vec.vec[id * D + i]!;
  }
  const n = Math.hypot(...out) || 1;
  return out.map((x) => x / n);
}
const docVec = new Map(
  docs.map((d) => [d.key, embed(`${d.name} ${d.name} ${d.keywords} ${d.description} ${d.body.slice(0, 3000)}`)]),
);

const sets = await tuneSets((q) => q.relevant.some((k) => valid.has(k)));

/** The first pass's top K skills' own words as extra terms (pseudo-relevance feedback). */
function feedback(p: ParsedQuery, prf: { k: number; e: number; beta: number }): ParsedQuery {
  const hits = scoreWithNorm(snap, p, prf.k).hits;
  if (hits.length === 0) return p;
  const count = new Map<string, number>();
  for (const h of hits) {
    const m = docMeta(snap, h.doc);
    if (!m) continue;
    const man = m.manifest;
    const words = [m.key.replace(/-/g, " "), man.description ?? "", ...man.keywords, ...man.tags].flatMap(tokenize);
    for (const t of new Set(words)) count.set(t, (count.get(t) ?? 0) + h.score / hits[0]!.score);
  }
  const have = new Set(p.terms.map((t) => t.term));
  const n = snap.docCount;
  const extra: QueryTerm[] = [...count]
    .filter(([t]) => !have.has(t))
    .map(([t, c]) => {
      const id = snap.terms.find(utf8(t));
      const df = id >= 0 ? snap.termInfo[id * TERM_STRIDE]! : n;
      return { t, w: c * Math.log(1 + (n - df + 0.5) / (df + 0.5)) };
    })
    .sort((a, b) => b.w - a.w || (a.t < b.t ? -1 : 1))
    .slice(0, prf.e)
    .map((x) => ({ term: x.t, bytes: utf8(x.t), weight: prf.beta, expand: false, slot: -1 }));
  return { ...p, terms: [...p.terms, ...extra] };
}

function run(label: string, useVec: boolean, dense: number, prf?: { k: number; e: number; beta: number }): void {
  const cells = sets.map(({ name, queries }) => {
    let mrr = 0;
    let hit = 0;
    for (const q of queries) {
      const parsed = parseQuery(q.query, useVec ? vec : null);
      const { hits, norm } = scoreWithNorm(snap, prf ? feedback(parsed, prf) : parsed, 30);
      const qv = dense > 0 ? embed(q.query) : null;
      const ranked = hits
        .map((h) => {
          const key = snap.keyOf(h.doc);
          const dv = docVec.get(key);
          let cos = 0;
          if (qv && dv) for (let i = 0; i < D; i++) cos += qv[i]! * dv[i]!;
          return { key, s: (h.exact ? 1e9 : 0) + h.score / (norm || 1) + dense * cos };
        })
        .sort((a, b) => b.s - a.s)
        .map((x) => x.key);
      const m = score(ranked.slice(0, 10), new Set(q.relevant.filter((k) => valid.has(k))));
      mrr += m.mrr10;
      hit += m.hit3;
    }
    return `${name} MRR@10 ${(mrr / queries.length).toFixed(3)} hit@3 ${(hit / queries.length).toFixed(3)}`;
  });
  console.log(`${label.padEnd(44)} ${cells.join("   ")}`);
}

run("no vectors", false, 0);
NEIGHBOURS.onlyMissing = 0;
for (const [weight, min] of [
  [0.25, 0.7],
  [0.25, 0.8],
  [0.5, 0.7],
  [0.5, 0.8],
]) {
  Object.assign(NEIGHBOURS, { weight, min });
  run(`neighbours weight ${weight} cos >= ${min}`, true, 0);
}
NEIGHBOURS.onlyMissing = 1;
for (const weight of [0.3, 1]) {
  Object.assign(NEIGHBOURS, { weight, min: 0.6 });
  run(`neighbours for unknown words, weight ${weight}`, true, 0);
}
for (const lambda of [0.3, 1]) run(`dense re-rank of top 30, lambda ${lambda}`, false, lambda);
for (const [k, e, beta] of [
  [2, 3, 0.1],
  [2, 10, 0.1],
  [3, 6, 0.1],
  [5, 3, 0.1],
  [3, 6, 0.25],
])
  run(`feedback: top ${k}, ${e} words, weight ${beta}`, false, 0, { k: k!, e: e!, beta: beta! });
