/**
 * @module skills/search/score
 * lemon's scorer: BM25F over four fields (key/name, keywords/tags/category, description, body
 * excerpt) read straight from the snapshot's postings, with per-field weights and saturation
 * applied after the fields are combined. Query terms that are not in the dictionary are matched
 * to near spellings (edit distance 1, or 2 for long words) and longer words sharing the prefix;
 * requests in other languages get English glossary terms. Documents that match more of the
 * query get a coverage bonus. Ties are broken by key (a rank baked into the snapshot).
 */
import { DOC_STRIDE, FIELD_COUNT, FLAG_EFFECTIVE, FLAG_HIDDEN, TERM_STRIDE, utf8, type Snapshot } from "./format.ts";
import { glossaryExpansion } from "./glossary.ts";
import { exactLabel, fold, nameTerms, tokenize } from "./tokenize.ts";

/** Tuned on the `tune` half of tests/fixtures/relevance/queries.json only. */
export const SCORING = {
  weights: [6, 4, 2.5, 1] as readonly number[],
  /** Length normalisation per field, baked into the snapshot's norms. */
  b: [0.4, 0.4, 0.6, 0.75] as readonly number[],
  /**
   * Saturation of the combined, field-weighted term frequency. The weights put a single name hit at
   * 6x a body hit, so the pseudo-frequency runs several times larger than plain BM25's and k1 is
   * scaled with it (tune half: 4 to 8 is a plateau, 2.2 saturated name matches too early).
   */
  k1: 6,
  coverage: 1.0,
  /** Bonus for matching all of a skill's key/name terms. */
  nameCoverage: 0.3,
  fuzzyWeight: 0.7,
  prefixWeight: 0.35,
  glossaryWeight: 0.8,
  joinedWeight: 0.6,
  maxPrefixExpansions: 6,
};

export interface QueryTerm {
  term: string;
  bytes: Uint8Array;
  weight: number;
  /** Look for near spellings and longer words when the term is not in the dictionary. */
  expand: boolean;
  /** Counts toward coverage (one slot per distinct query word). */
  slot: number;
}

export interface ParsedQuery {
  terms: QueryTerm[];
  slots: number;
  label: string;
}

/** Splits a query into weighted terms; `terms` is empty when nothing usable remains. */
export function parseQuery(query: string): ParsedQuery {
  const terms: QueryTerm[] = [];
  const seen = new Map<string, QueryTerm>();
  let slots = 0;
  const add = (t: string, weight: number, expand: boolean, slot: number) => {
    const prev = seen.get(t);
    if (prev) {
      prev.weight = Math.max(prev.weight, weight);
      return;
    }
    const q: QueryTerm = { term: t, bytes: utf8(t), weight, expand, slot };
    seen.set(t, q);
    terms.push(q);
  };
  const base = tokenize(query);
  for (const t of base) if (!seen.has(t)) add(t, 1, true, slots++);
  if (slots === 0) return { terms: [], slots: 0, label: exactLabel(query) };
  // Adjacent words joined ("next js" -> "nextjs") meet the joined forms indexed for names.
  const joined = nameTerms(query).slice(base.length);
  for (const t of joined) add(t, SCORING.joinedWeight, false, -1);
  const folded = fold(query);
  const words = [...folded.matchAll(/[\p{L}\p{N}]+/gu)].map((m) => m[0]);
  const gloss = glossaryExpansion(folded, words);
  if (gloss !== "") for (const t of tokenize(gloss)) add(t, SCORING.glossaryWeight, false, slots++);
  return { terms, slots, label: exactLabel(query) };
}

/** Bounded Damerau-Levenshtein distance between `a` and bytes[s, e); > max means "too far". */
function editDistance(a: Uint8Array, bytes: Uint8Array, s: number, e: number, max: number): number {
  const n = a.length;
  const m = e - s;
  if (Math.abs(n - m) > max) return max + 1;
  let prev2 = new Array<number>(m + 1).fill(0);
  let prev = Array.from({ length: m + 1 }, (_, j) => j);
  let cur = new Array<number>(m + 1).fill(0);
  for (let i = 1; i <= n; i++) {
    cur[0] = i;
    let rowMin = i;
    for (let j = 1; j <= m; j++) {
      const cost = a[i - 1] === bytes[s + j - 1] ? 0 : 1;
      let v = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === bytes[s + j - 2] && a[i - 2] === bytes[s + j - 1]) v = Math.min(v, prev2[j - 2]! + 1);
      cur[j] = v;
      if (v < rowMin) rowMin = v;
    }
    if (rowMin > max) return max + 1;
    [prev2, prev, cur] = [prev, cur, prev2];
  }
  return prev[m]!;
}

const IS_ASCII_WORD = /^[a-z][a-z0-9]*$/;

/** Dictionary ids and weights for one query term in one snapshot. */
function resolveTerm(snap: Snapshot, q: QueryTerm, out: { id: number; weight: number; slot: number }[]): void {
  const dict = snap.terms;
  const id = dict.find(q.bytes);
  if (id >= 0) out.push({ id, weight: q.weight, slot: q.slot });
  if (!q.expand || q.bytes.length < 4 || !IS_ASCII_WORD.test(q.term)) return;
  // Longer words sharing the prefix ("kube" -> "kubectl"), a few, most frequent first.
  const [lo, hi] = dict.prefixRange(q.bytes);
  const longer: { id: number; df: number }[] = [];
  for (let i = lo; i < hi; i++) if (i !== id) longer.push({ id: i, df: snap.termInfo[i * TERM_STRIDE]! });
  longer.sort((a, b) => b.df - a.df || a.id - b.id);
  for (const x of longer.slice(0, SCORING.maxPrefixExpansions))
    out.push({ id: x.id, weight: q.weight * SCORING.prefixWeight * (q.bytes.length / dict.length(x.id)), slot: q.slot });
  if (id >= 0) return;
  // Near spellings among words with the same first letter.
  const max = q.bytes.length >= 8 ? 2 : 1;
  const [flo, fhi] = dict.prefixRange(q.bytes.subarray(0, 1));
  let best = max + 1;
  let found: { id: number; df: number }[] = [];
  for (let i = flo; i < fhi; i++) {
    const s = dict.off[i]!;
    const e = dict.off[i + 1]!;
    if (Math.abs(e - s - q.bytes.length) > max) continue;
    const d = editDistance(q.bytes, dict.bytes, s, e, Math.min(max, best));
    if (d < best) {
      best = d;
      found = [];
    }
    if (d === best && d <= max) found.push({ id: i, df: snap.termInfo[i * TERM_STRIDE]! });
  }
  found.sort((a, b) => b.df - a.df || a.id - b.id);
  for (const x of found.slice(0, 2)) out.push({ id: x.id, weight: q.weight * SCORING.fuzzyWeight * (best === 1 ? 1 : 0.7), slot: q.slot });
}

export interface Hit {
  doc: number;
  score: number;
  /** The query equals this skill's key or name (skills.md §7.1 rule 5). */
  exact: boolean;
}

function scratchFor(snap: Snapshot) {
  const n = snap.docCount;
  if (!snap.scratch)
    snap.scratch = { acc: new Float64Array(n), tf: new Float64Array(n), touched: new Int32Array(n), stamp: new Int32Array(n), bits: new Uint32Array(n), names: new Float64Array(n), epoch: 0 };
  return snap.scratch;
}

const keyRank = (snap: Snapshot, d: number) => snap.docs[d * DOC_STRIDE + 7]!;

/** Hit a ranks before hit b: exact first, then score descending, then key ascending. */
function before(snap: Snapshot, a: Hit, b: Hit): boolean {
  if (a.exact !== b.exact) return a.exact;
  if (a.score !== b.score) return a.score > b.score;
  return keyRank(snap, a.doc) < keyRank(snap, b.doc);
}

/**
 * The best `limit` effective, non-hidden documents of a snapshot for a parsed query, best first.
 * Synchronous, so the shared scratch buffers are never used by two calls at once.
 */
export function scoreSnapshot(snap: Snapshot, q: ParsedQuery, limit: number): Hit[] {
  const n = snap.docCount;
  if (n === 0 || q.terms.length === 0 || limit <= 0) return [];
  const resolved: { id: number; weight: number; slot: number }[] = [];
  for (const t of q.terms) resolveTerm(snap, t, resolved);
  const exactDocs = new Set(snap.docsForLabel(q.label));
  if (resolved.length === 0 && exactDocs.size === 0) return [];
  const sc = scratchFor(snap);
  const { acc, tf, touched, stamp, bits: slotBits, names } = sc;
  let touchedCount = 0;
  const W = SCORING.weights;
  const k1 = SCORING.k1;
  const info = snap.termInfo;
  const post = snap.post;
  const norms = snap.norms;
  const termDocs: number[] = [];
  for (const r of resolved) {
    const epoch = ++sc.epoch;
    const df = info[r.id * TERM_STRIDE]!;
    const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
    termDocs.length = 0;
    for (let f = 0; f < FIELD_COUNT; f++) {
      const start = info[r.id * TERM_STRIDE + 1 + 2 * f]!;
      const end = start + info[r.id * TERM_STRIDE + 2 + 2 * f]!;
      const wf = W[f]!;
      for (let p = start; p < end; p++) {
        const v = post[p]!;
        const d = v >>> 8;
        if (stamp[d] !== epoch) {
          stamp[d] = epoch;
          tf[d] = 0;
          termDocs.push(d);
        }
        tf[d] = tf[d]! + wf * (v & 0xff) * norms[d * FIELD_COUNT + f]!;
        if (f === 0) names[d] = names[d]! + (v & 0xff);
      }
    }
    const w = r.weight * idf;
    const bit = r.slot < 0 ? 0 : 1 << Math.min(r.slot, 30);
    for (const d of termDocs) {
      const t = tf[d]!;
      if (acc[d] === 0) touched[touchedCount++] = d;
      acc[d] = acc[d]! + (w * t) / (k1 + t);
      slotBits[d] = slotBits[d]! | bit;
    }
  }
  const heap: Hit[] = [];
  const slots = Math.max(1, Math.min(q.slots, 31));
  const consider = (h: Hit) => {
    if (heap.length < limit) {
      heap.push(h);
      siftUp(snap, heap, heap.length - 1);
    } else if (before(snap, h, heap[0]!)) {
      heap[0] = h;
      siftDown(snap, heap, 0);
    }
  };
  for (let i = 0; i < touchedCount; i++) {
    const d = touched[i]!;
    const raw = acc[d]!;
    const hitBits = slotBits[d]!;
    const nameHits = names[d]!;
    acc[d] = 0;
    slotBits[d] = 0;
    names[d] = 0;
    if ((snap.flags(d) & (FLAG_EFFECTIVE | FLAG_HIDDEN)) !== FLAG_EFFECTIVE || raw <= 0) continue;
    const cov = popcount(hitBits) / slots;
    const nameLen = snap.fieldLength(d, 0);
    const nameCov = nameLen === 0 ? 0 : Math.min(1, nameHits / nameLen);
    const s = raw * (1 + SCORING.coverage * cov) * (1 + SCORING.nameCoverage * nameCov);
    consider({ doc: d, score: s, exact: exactDocs.has(d) });
    exactDocs.delete(d);
  }
  for (const d of exactDocs)
    if ((snap.flags(d) & (FLAG_EFFECTIVE | FLAG_HIDDEN)) === FLAG_EFFECTIVE) consider({ doc: d, score: 0, exact: true });
  return heap.sort((a, b) => (before(snap, a, b) ? -1 : before(snap, b, a) ? 1 : 0));
}

function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

// A min-heap by rank: heap[0] is the worst hit kept.
function siftUp(snap: Snapshot, h: Hit[], i: number): void {
  while (i > 0) {
    const p = (i - 1) >> 1;
    if (!before(snap, h[p]!, h[i]!)) break;
    [h[p], h[i]] = [h[i]!, h[p]!];
    i = p;
  }
}

function siftDown(snap: Snapshot, h: Hit[], i: number): void {
  for (;;) {
    const l = 2 * i + 1;
    const r = l + 1;
    let worst = i;
    if (l < h.length && before(snap, h[worst]!, h[l]!)) worst = l;
    if (r < h.length && before(snap, h[worst]!, h[r]!)) worst = r;
    if (worst === i) return;
    [h[worst], h[i]] = [h[i]!, h[worst]!];
    i = worst;
  }
}
