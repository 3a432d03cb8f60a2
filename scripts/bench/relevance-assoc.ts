/**
 * @module scripts/bench/relevance-assoc
 * Issue 16 item 1, second attempt, on the tune sets only: query expansion learned from the catalog
 * itself. Term-term association from co-occurrence inside skills (the snapshot's own postings,
 * inverted to per-skill term sets), top-k associates per term pruned by document frequency, added
 * to a query word's coverage slot at a small weight; a "when to use" field simulated as a re-rank;
 * and the weight of the software shorthand (synonyms.ts). Measured uncut and with the cut-off,
 * beside lemon's scorer without expansion (scripts/bench/relevance.md has the table).
 *
 *   ./node_modules/.bin/bun scripts/bench/relevance-assoc.ts [CORPUS] [--small] [--no-synonyms]
 *
 * `--small` skips the co-occurrence grid; `--no-synonyms` runs the grid and the re-rank with the
 * shorthand off (the table's rows were measured that way).
 */
import { TERM_STRIDE } from "../../src/core/skills/search/format.ts";
import {
  SCORING,
  keeps,
  parseQuery,
  scoreWithNorm,
  type ParsedQuery,
  type QueryTerm,
} from "../../src/core/skills/search/score.ts";
import { requireCorpus } from "./corpus.ts";
import { score } from "./relevance-quality.ts";
import { tuneHarness, tuneSets } from "./tune-harness.ts";

const corpus = requireCorpus(process.argv.slice(2).find((a) => !a.startsWith("--")));
await using harness = await tuneHarness(corpus);
const { docs, valid, snap } = harness;

/** Per document, its distinct terms of fields [0, fields). */
function docTerms(fields: number): number[][] {
  const out: number[][] = Array.from({ length: snap.docCount }, () => []);
  const info = snap.termInfo;
  for (let t = 0; t < snap.terms.size; t++) {
    const seen = new Set<number>();
    for (let f = 0; f < fields; f++) {
      const start = info[t * TERM_STRIDE + 1 + 2 * f]!;
      const end = start + info[t * TERM_STRIDE + 2 + 2 * f]!;
      for (let p = start; p < end; p++) seen.add(snap.post[p]! >>> 8);
    }
    for (const d of seen) out[d]!.push(t);
  }
  return out;
}

interface AssocOpts {
  /** Fields whose terms co-occur (1 name, 2 + keywords, 3 + description, 4 + body). */
  fields: number;
  measure: "cos" | "cond" | "pmi";
  k: number;
  minCo: number;
  /** Associates in more than this share of skills are dropped. */
  maxDfShare: number;
}

type Table = Map<number, { id: number; s: number }[]>;

function build(o: AssocOpts): { table: Table; ms: number } {
  const t0 = performance.now();
  const dt = docTerms(o.fields);
  const n = snap.docCount;
  const df = new Int32Array(snap.terms.size);
  for (const ts of dt) for (const t of ts) df[t]!++;
  const maxDf = Math.max(2, Math.floor(n * o.maxDfShare));
  const co = new Map<number, Map<number, number>>();
  for (const ts0 of dt) {
    const ts = ts0.filter((t) => df[t]! >= 2 && df[t]! <= maxDf);
    for (const a of ts) {
      let m = co.get(a);
      if (!m) co.set(a, (m = new Map()));
      for (const b of ts) if (a !== b) m.set(b, (m.get(b) ?? 0) + 1);
    }
  }
  const table: Table = new Map();
  for (const [a, m] of co) {
    const list: { id: number; s: number }[] = [];
    for (const [b, c] of m) {
      if (c < o.minCo) continue;
      const s =
        o.measure === "cos"
          ? c / Math.sqrt(df[a]! * df[b]!)
          : o.measure === "cond"
            ? c / df[a]!
            : Math.log((c * n) / (df[a]! * df[b]!)) / -Math.log(c / n);
      list.push({ id: b, s });
    }
    list.sort((x, y) => y.s - x.s || x.id - y.id);
    if (list.length) table.set(a, list.slice(0, o.k));
  }
  return { table, ms: performance.now() - t0 };
}

interface ExpandOpts {
  weight: number;
  minS: number;
  /** Expand only query words whose df (any field) is at most this share of skills (1 = every word). */
  weakDf: number;
}

function expand(p: ParsedQuery, table: Table, o: ExpandOpts): ParsedQuery {
  const have = new Map(p.terms.map((t) => [t.term, t]));
  const extra: QueryTerm[] = [];
  const n = snap.docCount;
  for (const q of p.terms) {
    if (q.slot < 0 || !q.expand) continue;
    const id = snap.terms.find(q.bytes);
    if (id < 0) continue;
    if (snap.termInfo[id * TERM_STRIDE]! > n * o.weakDf) continue;
    for (const a of table.get(id) ?? []) {
      if (a.s < o.minS) break;
      const term = snap.terms.get(a.id);
      if (have.has(term)) continue;
      const x: QueryTerm = {
        term,
        bytes: snap.terms.bytes.slice(snap.terms.off[a.id]!, snap.terms.off[a.id + 1]!),
        weight: q.weight * o.weight * a.s,
        expand: false,
        slot: q.slot,
      };
      have.set(term, x);
      extra.push(x);
    }
  }
  return { ...p, terms: [...p.terms, ...extra] };
}

const sets = await tuneSets();

function run(label: string, table: Table | null, o: ExpandOpts): void {
  const cells = sets.map(({ queries }) => {
    const acc = { mrr: 0, hit: 0, cmrr: 0, chit: 0, n: 0, na: 0, empty: 0 };
    for (const q of queries) {
      const parsed = parseQuery(q.query);
      const pq = table ? expand(parsed, table, o) : parsed;
      const scored = scoreWithNorm(snap, pq, 10);
      const ranked = scored.hits.map((h) => snap.keyOf(h.doc));
      const cutAt = scored.hits.findIndex((h) => !keeps(h, pq, scored));
      const cut = cutAt < 0 ? ranked : ranked.slice(0, cutAt);
      if (q.relevant.length === 0) {
        acc.na++;
        if (cut.length === 0) acc.empty++;
        continue;
      }
      const rel = new Set(q.relevant.filter((k) => valid.has(k)));
      if (rel.size === 0) continue;
      acc.n++;
      const m = score(ranked, rel);
      const c = score(cut, rel);
      acc.mrr += m.mrr10;
      acc.hit += m.hit3;
      acc.cmrr += c.mrr10;
      acc.chit += c.hit3;
    }
    const f = (x: number) => (x / acc.n).toFixed(3);
    const e = acc.na ? ` empty ${(acc.empty / acc.na).toFixed(2)}` : "";
    return `${f(acc.mrr)} / ${f(acc.hit)}  cut ${f(acc.cmrr)} / ${f(acc.chit)}${e}`;
  });
  console.log(`${label.padEnd(58)} ${cells.join("   ")}`);
}

const baseline: ExpandOpts = { weight: 0, minS: 0, weakDf: 1 };
const synonymDefault = SCORING.synonymWeight;
for (const w of [0, 0.3, 0.5, 0.8, 1]) {
  SCORING.synonymWeight = w;
  run(`no expansion, software synonyms at ${w}`, null, baseline);
}
SCORING.synonymWeight = process.argv.includes("--no-synonyms") ? 0 : synonymDefault;
const grid = process.argv.includes("--small")
  ? []
  : ([
      [3, "cos", 5, 2, 0.05],
      [3, "cond", 5, 2, 0.05],
      [3, "pmi", 5, 2, 0.05],
      [4, "cos", 5, 2, 0.05],
      [4, "pmi", 5, 3, 0.05],
    ] as const);
for (const [fields, measure, k, minCo, maxDfShare] of grid) {
  const { table, ms } = build({ fields, measure, k, minCo, maxDfShare });
  for (const weight of [0.1, 0.2, 0.4])
    for (const weakDf of [1, 0.01])
      run(
        `f${fields} ${measure} k${k} co>=${minCo} df<=${maxDfShare} | w ${weight} weak ${weakDf} (${ms.toFixed(0)} ms)`,
        table,
        { weight, minS: 0, weakDf },
      );
}

// Item 2: a "triggers" field (the body's "When to use" sections, the body's headings and the
// description's "Use when/for ..." sentences), simulated as a re-rank of the top 100: its BM25
// over the query's own words, × lambda, added to lemon's score.
const { tokenize } = await import("../../src/core/skills/search/tokenize.ts");
function triggers(description: string, body: string): string {
  const out: string[] = [];
  for (const s of description.split(/(?<=[.!?])\s+/))
    if (/^(use|trigger|invoke|apply)\b|\bwhen\b/i.test(s)) out.push(s);
  let inWhen = false;
  for (const line of body.split("\n")) {
    const h = /^#{1,6}\s+(.*)$/.exec(line);
    if (h) {
      out.push(h[1]!);
      inWhen = /when to use|use (this skill )?when|use cases?|triggers?|when should/i.test(h[1]!);
    } else if (inWhen) out.push(line);
  }
  return out.join("\n");
}
const trig = new Map<string, Map<string, number>>();
let trigLen = 0;
for (const d of docs) {
  const tf = new Map<string, number>();
  const toks = tokenize(triggers(d.description, d.body));
  for (const t of toks) tf.set(t, (tf.get(t) ?? 0) + 1);
  trig.set(d.key, tf);
  trigLen += toks.length;
}
const avgTrig = trigLen / Math.max(1, docs.length);
const trigDf = new Map<string, number>();
for (const tf of trig.values()) for (const t of tf.keys()) trigDf.set(t, (trigDf.get(t) ?? 0) + 1);
const haveTriggers = [...trig.values()].filter((m) => m.size > 0).length;
console.log(`triggers: ${haveTriggers}/${docs.length} skills have some, ${avgTrig.toFixed(0)} words on average`);

function runTriggers(lambda: number, k1: number): void {
  const cells = sets.map(({ queries }) => {
    const acc = { mrr: 0, hit: 0, n: 0 };
    for (const q of queries) {
      if (q.relevant.length === 0) continue;
      const rel = new Set(q.relevant.filter((k) => valid.has(k)));
      if (rel.size === 0) continue;
      const p = parseQuery(q.query);
      const scored = scoreWithNorm(snap, p, 100);
      const words = [...new Set(p.terms.filter((t) => t.slot >= 0).map((t) => t.term))];
      const ranked = scored.hits
        .map((h) => {
          const key = snap.keyOf(h.doc);
          const tf = trig.get(key);
          let add = 0;
          if (tf)
            for (const w of words) {
              const c = tf.get(w) ?? 0;
              if (c === 0) continue;
              const df = trigDf.get(w) ?? 0;
              const idf = Math.log(1 + (docs.length - df + 0.5) / (df + 0.5));
              const len = [...tf.values()].reduce((a, b) => a + b, 0);
              const t = c / (0.25 + 0.75 * (len / avgTrig));
              add += (idf * t) / (k1 + t);
            }
          return { key, s: (h.exact ? 1e9 : 0) + h.score + lambda * add * (scored.norm / Math.max(1, words.length)) };
        })
        .sort((a, b) => b.s - a.s)
        .map((x) => x.key);
      const m = score(ranked.slice(0, 10), rel);
      acc.n++;
      acc.mrr += m.mrr10;
      acc.hit += m.hit3;
    }
    return `${(acc.mrr / acc.n).toFixed(3)} / ${(acc.hit / acc.n).toFixed(3)}`;
  });
  console.log(`${`triggers field re-rank, lambda ${lambda}, k1 ${k1}`.padEnd(58)} ${cells.join("   ")}`);
}
for (const lambda of [0, 0.05, 0.1, 0.2, 0.4]) for (const k1 of [1.2]) runTriggers(lambda, k1);
