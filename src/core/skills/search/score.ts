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
import { exactLabel, fold, nameTerms, plainWords, tokenize } from "./tokenize.ts";

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
  const words = plainWords(folded);
  const gloss = glossaryExpansion(folded, words);
  if (gloss !== "") for (const t of tokenize(gloss)) add(t, SCORING.glossaryWeight, false, slots++);
  return { terms, slots, label: exactLabel(query) };
}

/** Rows of the edit-distance table, reused across calls (scoring is synchronous). */
let edRows = new Int32Array(3 * 64);

/** Bounded Damerau-Levenshtein distance between `a` and bytes[s, e); > max means "too far". */
function editDistance(a: Uint8Array, bytes: Uint8Array, s: number, e: number, max: number): number {
  const n = a.length;
  const m = e - s;
  if (Math.abs(n - m) > max) return max + 1;
  const w = m + 1;
  if (edRows.length < 3 * w) edRows = new Int32Array(3 * w * 2);
  const rows = edRows;
  // Row r lives at rows[base(r) .. base(r) + w): three rotating bases.
  let p2 = 0;
  let p1 = w;
  let c = 2 * w;
  for (let j = 0; j <= m; j++) {
    rows[p2 + j] = 0;
    rows[p1 + j] = j;
  }
  for (let i = 1; i <= n; i++) {
    rows[c] = i;
    let rowMin = i;
    const ai = a[i - 1]!;
    const ai2 = i > 1 ? a[i - 2]! : -1;
    for (let j = 1; j <= m; j++) {
      const bj = bytes[s + j - 1]!;
      const cost = ai === bj ? 0 : 1;
      let v = rows[p1 + j]! + 1;
      const left = rows[c + j - 1]! + 1;
      if (left < v) v = left;
      const diag = rows[p1 + j - 1]! + cost;
      if (diag < v) v = diag;
      if (i > 1 && j > 1 && ai === bytes[s + j - 2] && ai2 === bj) {
        const t = rows[p2 + j - 2]! + 1;
        if (t < v) v = t;
      }
      rows[c + j] = v;
      if (v < rowMin) rowMin = v;
    }
    if (rowMin > max) return max + 1;
    const t = p2;
    p2 = p1;
    p1 = c;
    c = t;
  }
  return rows[p1 + m]!;
}

const IS_ASCII_WORD = /^[a-z][a-z0-9]*$/;

/** Term lengths bucketed for the fuzzy scan: 0 .. BUCKET_LENGTHS - 2, longer terms in the last bucket. */
const BUCKET_LENGTHS = 64;

/** Term ids grouped by (first byte, byte length), ascending within a group: ids[start[g] .. start[g + 1]). */
interface LengthBuckets {
  start: Int32Array;
  ids: Int32Array;
}

const bucketsOf = new WeakMap<Snapshot, LengthBuckets>();

/** Built once per opened snapshot, on its first fuzzy lookup (a counting sort of the dictionary). */
function lengthBuckets(snap: Snapshot): LengthBuckets {
  let b = bucketsOf.get(snap);
  if (b) return b;
  const { off, bytes, size } = snap.terms;
  const groups = 256 * BUCKET_LENGTHS;
  const start = new Int32Array(groups + 1);
  const group = (i: number) => {
    const len = off[i + 1]! - off[i]!;
    return len === 0 ? 0 : bytes[off[i]!]! * BUCKET_LENGTHS + Math.min(len, BUCKET_LENGTHS - 1);
  };
  for (let i = 0; i < size; i++) start[group(i) + 1]!++;
  for (let g = 0; g < groups; g++) start[g + 1]! += start[g]!;
  const fill = start.slice(0, groups);
  const ids = new Int32Array(size);
  for (let i = 0; i < size; i++) ids[fill[group(i)]!++] = i;
  bucketsOf.set(snap, (b = { start, ids }));
  return b;
}

/** Byte counts of the query term during a fuzzy scan (all zero between scans). */
const bagCounts = new Int32Array(256);
let bagUsed = new Uint8Array(64);

/** max(bytes of bytes[s, e) not in the query, query bytes not in it), multiset-wise; leaves `counts` as found. */
function bagDistance(counts: Int32Array, qlen: number, bytes: Uint8Array, s: number, e: number): number {
  if (bagUsed.length < e - s) bagUsed = new Uint8Array(2 * (e - s));
  const used = bagUsed;
  let matched = 0;
  for (let p = s; p < e; p++) {
    const b = bytes[p]!;
    if (counts[b]! > 0) {
      counts[b]!--;
      used[matched++] = b;
    }
  }
  for (let k = 0; k < matched; k++) counts[used[k]!]!++;
  const extra = e - s - matched;
  const missing = qlen - matched;
  return extra > missing ? extra : missing;
}

interface Resolved {
  id: number;
  weight: number;
  slot: number;
}

/** Dictionary ids and weights for one query term in one snapshot. */
function resolveTerm(snap: Snapshot, q: QueryTerm, out: Resolved[]): void {
  const dict = snap.terms;
  const id = dict.find(q.bytes);
  if (id >= 0) out.push({ id, weight: q.weight, slot: q.slot });
  if (!q.expand || q.bytes.length < 4 || !IS_ASCII_WORD.test(q.term)) return;
  // Longer words sharing the prefix ("kube" -> "kubectl"), a few, most frequent first.
  const [lo, hi] = dict.prefixRange(q.bytes);
  const info = snap.termInfo;
  const longer: { id: number; df: number }[] = [];
  for (let i = lo; i < hi; i++) if (i !== id) longer.push({ id: i, df: info[i * TERM_STRIDE]! });
  longer.sort((a, b) => b.df - a.df || a.id - b.id);
  for (let k = 0; k < longer.length && k < SCORING.maxPrefixExpansions; k++) {
    const x = longer[k]!;
    out.push({ id: x.id, weight: q.weight * SCORING.prefixWeight * (q.bytes.length / dict.length(x.id)), slot: q.slot });
  }
  if (id >= 0) return;
  // Near spellings among words with the same first letter.
  const qb = q.bytes;
  const qlen = qb.length;
  const max = qlen >= 8 ? 2 : 1;
  const off = dict.off;
  const bytes = dict.bytes;
  let best = max + 1;
  let found: { id: number; df: number }[] = [];
  const counts = bagCounts;
  for (let k = 0; k < qlen; k++) counts[qb[k]!]!++;
  // Candidates: the same first byte and a length within `max` (lengthBuckets); the set found does
  // not depend on the order they are visited in.
  const buckets = lengthBuckets(snap);
  const fromLen = Math.min(BUCKET_LENGTHS - 1, Math.max(1, qlen - max));
  const toLen = Math.min(BUCKET_LENGTHS - 1, qlen + max);
  const rowAt = qb[0]! * BUCKET_LENGTHS;
  for (let k = buckets.start[rowAt + fromLen]!, kEnd = buckets.start[rowAt + toLen + 1]!; k < kEnd; k++) {
    const i = buckets.ids[k]!;
    const s = off[i]!;
    const e = off[i + 1]!;
    const bound = best < max ? best : max;
    // Bag distance (bytes in one word and not the other) never exceeds the edit distance.
    if (bagDistance(counts, qlen, bytes, s, e) > bound) continue;
    const d = editDistance(qb, bytes, s, e, bound);
    if (d < best) {
      best = d;
      found = [];
    }
    if (d === best && d <= max) found.push({ id: i, df: info[i * TERM_STRIDE]! });
  }
  for (let k = 0; k < qlen; k++) counts[qb[k]!] = 0;
  found.sort((a, b) => b.df - a.df || a.id - b.id);
  for (let k = 0; k < found.length && k < 2; k++) out.push({ id: found[k]!.id, weight: q.weight * SCORING.fuzzyWeight * (best === 1 ? 1 : 0.7), slot: q.slot });
}

export interface Hit {
  doc: number;
  score: number;
  /** The query equals this skill's key or name (skills.md §7.1 rule 5). */
  exact: boolean;
}

interface Scratch {
  acc: Float64Array;
  tf: Float64Array;
  touched: Int32Array;
  /** Documents of the current term (each once). */
  termDocs: Int32Array;
  stamp: Int32Array;
  bits: Uint32Array;
  names: Float64Array;
  /** exact[d] === epoch: d's key or name equals the query (and has not been considered yet). */
  exact: Int32Array;
  epoch: number;
}

/** Accumulators sized to the document count, allocated once per snapshot; only touched entries are reset. */
function scratchFor(snap: Snapshot): Scratch {
  const n = snap.docCount;
  let sc = snap.scratch as Scratch | null;
  if (!sc)
    snap.scratch = sc = {
      acc: new Float64Array(n),
      tf: new Float64Array(n),
      touched: new Int32Array(n),
      termDocs: new Int32Array(n),
      stamp: new Int32Array(n),
      bits: new Uint32Array(n),
      names: new Float64Array(n),
      exact: new Int32Array(n),
      epoch: 0,
    };
  // Epochs stay positive: wrap long before 2^31 and clear the stamps.
  if (sc.epoch > 0x3fff_0000) {
    sc.epoch = 0;
    sc.stamp.fill(0);
    sc.exact.fill(0);
  }
  return sc;
}

/** Hit a ranks before hit b: exact first, then score descending, then key ascending. */
function before(docs: Uint32Array, a: Hit, b: Hit): boolean {
  if (a.exact !== b.exact) return a.exact;
  if (a.score !== b.score) return a.score > b.score;
  return docs[a.doc * DOC_STRIDE + 7]! < docs[b.doc * DOC_STRIDE + 7]!;
}

/** `before` for a candidate not yet made into a Hit. */
function beats(docs: Uint32Array, exact: boolean, score: number, doc: number, b: Hit): boolean {
  if (exact !== b.exact) return exact;
  if (score !== b.score) return score > b.score;
  return docs[doc * DOC_STRIDE + 7]! < docs[b.doc * DOC_STRIDE + 7]!;
}

/** Keeps the best `limit` hits in `heap` (a min-heap by rank: heap[0] is the worst kept). */
function consider(docs: Uint32Array, heap: Hit[], limit: number, doc: number, score: number, exact: boolean): void {
  if (heap.length < limit) {
    heap.push({ doc, score, exact });
    siftUp(docs, heap, heap.length - 1);
  } else if (beats(docs, exact, score, doc, heap[0]!)) {
    heap[0] = { doc, score, exact };
    siftDown(docs, heap, 0);
  }
}

const EFFECTIVE_MASK = FLAG_EFFECTIVE | FLAG_HIDDEN;

/**
 * The best `limit` effective, non-hidden documents of a snapshot for a parsed query, best first.
 * Synchronous, so the shared scratch buffers are never used by two calls at once.
 */
export function scoreSnapshot(snap: Snapshot, q: ParsedQuery, limit: number): Hit[] {
  const n = snap.docCount;
  if (n === 0 || q.terms.length === 0 || limit <= 0) return [];
  const resolved: Resolved[] = [];
  for (const t of q.terms) resolveTerm(snap, t, resolved);
  const exactList = snap.docsForLabel(q.label);
  if (resolved.length === 0 && exactList.length === 0) return [];
  const sc = scratchFor(snap);
  const { acc, tf, touched, termDocs, stamp, bits: slotBits, names, exact } = sc;
  const exactEpoch = ++sc.epoch;
  for (const d of exactList) exact[d] = exactEpoch;
  let touchedCount = 0;
  const W = SCORING.weights;
  const k1 = SCORING.k1;
  const info = snap.termInfo;
  const post = snap.post;
  const norms = snap.norms;
  const docs = snap.docs;
  for (const r of resolved) {
    const epoch = ++sc.epoch;
    const base = r.id * TERM_STRIDE;
    const df = info[base]!;
    const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
    let count = 0;
    // Field 0 (name) first: every document of its list is new to this term.
    {
      const start = info[base + 1]!;
      const end = start + info[base + 2]!;
      const wf = W[0]!;
      for (let p = start; p < end; p++) {
        const v = post[p]!;
        const d = v >>> 8;
        const c = v & 0xff;
        stamp[d] = epoch;
        termDocs[count++] = d;
        tf[d] = 0 + wf * c * norms[d * FIELD_COUNT]!;
        names[d] = names[d]! + c;
      }
    }
    for (let f = 1; f < FIELD_COUNT; f++) {
      const start = info[base + 1 + 2 * f]!;
      const end = start + info[base + 2 + 2 * f]!;
      const wf = W[f]!;
      for (let p = start; p < end; p++) {
        const v = post[p]!;
        const d = v >>> 8;
        const x = wf * (v & 0xff) * norms[d * FIELD_COUNT + f]!;
        if (stamp[d] !== epoch) {
          stamp[d] = epoch;
          termDocs[count++] = d;
          tf[d] = 0 + x;
        } else tf[d] = tf[d]! + x;
      }
    }
    const w = r.weight * idf;
    const bit = r.slot < 0 ? 0 : 1 << Math.min(r.slot, 30);
    for (let i = 0; i < count; i++) {
      const d = termDocs[i]!;
      const t = tf[d]!;
      const a = acc[d]!;
      if (a === 0) touched[touchedCount++] = d;
      acc[d] = a + (w * t) / (k1 + t);
      slotBits[d] = slotBits[d]! | bit;
    }
  }
  const heap: Hit[] = [];
  const slots = Math.max(1, Math.min(q.slots, 31));
  const cw = SCORING.coverage;
  const nw = SCORING.nameCoverage;
  let worstExact = false;
  let worstScore = 0;
  let worstRank = 0;
  for (let i = 0; i < touchedCount; i++) {
    const d = touched[i]!;
    const raw = acc[d]!;
    const hitBits = slotBits[d]!;
    const nameHits = names[d]!;
    acc[d] = 0;
    slotBits[d] = 0;
    names[d] = 0;
    const row = d * DOC_STRIDE;
    if ((docs[row + 4]! & EFFECTIVE_MASK) !== FLAG_EFFECTIVE || raw <= 0) continue;
    const cov = popcount(hitBits) / slots;
    const nameLen = docs[row + 5]! & 0xffff;
    const nameCov = nameLen === 0 ? 0 : Math.min(1, nameHits / nameLen);
    const s = raw * (1 + cw * cov) * (1 + nw * nameCov);
    const isExact = exact[d] === exactEpoch;
    if (isExact) exact[d] = 0;
    // Most documents lose to the worst hit kept: reject them without touching the heap.
    else if (heap.length === limit && (worstExact || s < worstScore || (s === worstScore && docs[row + 7]! > worstRank))) continue;
    consider(docs, heap, limit, d, s, isExact);
    if (heap.length === limit) {
      const w = heap[0]!;
      worstExact = w.exact;
      worstScore = w.score;
      worstRank = docs[w.doc * DOC_STRIDE + 7]!;
    }
  }
  for (const d of exactList)
    if (exact[d] === exactEpoch) {
      exact[d] = 0;
      if ((docs[d * DOC_STRIDE + 4]! & EFFECTIVE_MASK) === FLAG_EFFECTIVE) consider(docs, heap, limit, d, 0, true);
    }
  return heap.sort((a, b) => (before(docs, a, b) ? -1 : before(docs, b, a) ? 1 : 0));
}

function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

// A min-heap by rank: heap[0] is the worst hit kept.
function siftUp(docs: Uint32Array, h: Hit[], i: number): void {
  while (i > 0) {
    const p = (i - 1) >> 1;
    if (!before(docs, h[p]!, h[i]!)) break;
    [h[p], h[i]] = [h[i]!, h[p]!];
    i = p;
  }
}

function siftDown(docs: Uint32Array, h: Hit[], i: number): void {
  for (;;) {
    const l = 2 * i + 1;
    const r = l + 1;
    let worst = i;
    if (l < h.length && before(docs, h[worst]!, h[l]!)) worst = l;
    if (r < h.length && before(docs, h[worst]!, h[r]!)) worst = r;
    if (worst === i) return;
    [h[worst], h[i]] = [h[i]!, h[worst]!];
    i = worst;
  }
}
