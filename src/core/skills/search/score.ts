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
import { addNeighbours, type NeighbourTable } from "./expand.ts";

// The cut-off loads with the scorer: one module fetch on the query path, nothing on a listing's.
export { keeps } from "./cutoff.ts";
import { focusParts } from "./focus.ts";
import { glossaryExpansion } from "./glossary.ts";
import { synonymsOf } from "./synonyms.ts";
import { resolveTerm, type Resolved } from "./term-match.ts";
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
  /** Weight of a query word's software synonyms (synonyms.ts), in the word's own slot; 0 = off. */
  synonymWeight: 0.5,
  maxPrefixExpansions: 6,
  /** Distinct terms from which a catalog counts as broad: the cut-off (cutoff.ts) applies in full. */
  broadVocabulary: 20_000,
  /** Weight of a long request's sentences that do not ask for anything (focus.ts); 1 = off. */
  storyWeight: 1,
};

export interface QueryTerm {
  term: string;
  bytes: Uint8Array;
  weight: number;
  /** Look for near spellings and longer words when the term is not in the dictionary. */
  expand: boolean;
  /** Counts toward coverage (one slot per distinct query word). */
  slot: number;
  /** A stand-in for this query word, used only where the snapshot's dictionary lacks the word. */
  standInFor?: Uint8Array;
}

export interface ParsedQuery {
  terms: QueryTerm[];
  slots: number;
  label: string;
  /** Written (partly) in another language: non-ASCII letters, or the glossary expanded a word. */
  foreign?: boolean;
}

const NON_ASCII_LETTER = /[^\x00-\x7f]/;
const LETTER = /\p{L}/u;

function hasForeignLetters(query: string): boolean {
  if (!NON_ASCII_LETTER.test(query)) return false;
  for (const ch of query) if (ch.charCodeAt(0) > 0x7f && LETTER.test(ch)) return true;
  return false;
}

/** Splits a query into weighted terms; `terms` is empty when nothing usable remains. */
export function parseQuery(query: string, vec: NeighbourTable | null = null): ParsedQuery {
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
  // Sentences that ask weigh more than the story around them (focus.ts); a word met in both keeps the larger weight.
  for (const part of focusParts(query, SCORING.storyWeight))
    for (const t of part.weight === 1 && part.text === query ? base : tokenize(part.text))
      if (seen.has(t)) add(t, part.weight, true, -1);
      else add(t, part.weight, true, slots++);
  if (slots === 0) return { terms: [], slots: 0, label: exactLabel(query) };
  if (vec) addNeighbours(vec, terms, seen);

  // Adjacent words joined ("next js" -> "nextjs") meet the joined forms indexed for names.
  const joined = nameTerms(query).slice(base.length);
  for (const t of joined) add(t, SCORING.joinedWeight, false, -1);
  const folded = fold(query);
  const words = plainWords(folded);
  if (SCORING.synonymWeight > 0)
    for (const [w, v] of synonymsOf(folded, words)) {
      const own = seen.get(tokenize(w)[0] ?? "");
      if (!own || own.slot < 0) continue;
      for (const t of tokenize(v)) add(t, own.weight * SCORING.synonymWeight, false, own.slot);
    }
  const gloss = glossaryExpansion(folded, words);
  if (gloss !== "") for (const t of tokenize(gloss)) add(t, SCORING.glossaryWeight, false, slots++);
  return { terms, slots, label: exactLabel(query), foreign: gloss !== "" || hasForeignLetters(query) };
}

export interface Hit {
  doc: number;
  score: number;
  /** The query equals this skill's key or name (skills.md §7.1 rule 5). */
  exact: boolean;
  /** The query slots this document matched (bit i = slot i). */
  bits: number;
}

/** What the cut-off (cutoff.ts) needs besides the hits: the most a document could score here. */
export interface Scored {
  hits: Hit[];
  /** Sum over the query's matched slots of their best term's weight × idf. */
  norm: number;
  /** That weight × idf per slot (0 for a slot nothing in the snapshot matched). */
  slotWeights: Float64Array;
  /** The query's slots that matched nothing, each counted at the snapshot's largest idf × breadth. */
  missing: number;
  /**
   * How broad the catalog's vocabulary is, 0..1 (distinct terms / SCORING.broadVocabulary). Scores
   * of a narrow catalog say little about "nothing fits": idf is noisy over ten skills, and most
   * words of any request are unknown to it, so the cut-off scales with this.
   */
  breadth: number;
}

/**
 * A document's scoring state, 32 bytes in one buffer (half a cache line) rather than one array
 * per field: a query touches thousands of documents at random, and a turn of an agent starts
 * with its caches cold, where each line is a miss (at 11k skills six arrays were six misses per
 * document). As f64: acc at d*4, tf at d*4+1; as i32: stamp at d*8+4, slot bits at +5, name hits
 * at +6, and exact at +7 (=== epoch: d's key or name equals the query, not yet considered).
 */
const DOC_F64 = 4;
const DOC_I32 = 8;

interface Scratch {
  f64: Float64Array;
  i32: Int32Array;
  touched: Int32Array;
  /** Documents of the current term (each once). */
  termDocs: Int32Array;
  epoch: number;
}

/** Accumulators sized to the document count, allocated once per snapshot; only touched entries are reset. */
function scratchFor(snap: Snapshot): Scratch {
  const n = snap.docCount;
  let sc = snap.scratch as Scratch | null;
  if (!sc) {
    const state = new ArrayBuffer(n * DOC_I32 * 4);
    snap.scratch = sc = {
      f64: new Float64Array(state),
      i32: new Int32Array(state),
      touched: new Int32Array(n),
      termDocs: new Int32Array(n),
      epoch: 0,
    };
  }
  // Epochs stay positive: wrap long before 2^31 and clear the stamps (and the rest, all zero between queries).
  if (sc.epoch > 0x3fff_0000) {
    sc.epoch = 0;
    sc.i32.fill(0);
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
function consider(
  docs: Uint32Array,
  heap: Hit[],
  limit: number,
  doc: number,
  score: number,
  exact: boolean,
  bits: number,
): void {
  if (heap.length < limit) {
    heap.push({ doc, score, exact, bits });
    siftUp(docs, heap, heap.length - 1);
  } else if (beats(docs, exact, score, doc, heap[0]!)) {
    heap[0] = { doc, score, exact, bits };
    siftDown(docs, heap, 0);
  }
}

const EFFECTIVE_MASK = FLAG_EFFECTIVE | FLAG_HIDDEN;

/**
 * The best `limit` effective, non-hidden documents of a snapshot for a parsed query, best first.
 * Synchronous, so the shared scratch buffers are never used by two calls at once.
 */
export function scoreSnapshot(snap: Snapshot, q: ParsedQuery, limit: number): Hit[] {
  return scoreWithNorm(snap, q, limit).hits;
}

export function scoreWithNorm(snap: Snapshot, q: ParsedQuery, limit: number): Scored {
  const none: Scored = { hits: [], norm: 0, slotWeights: new Float64Array(32), missing: 0, breadth: 0 };
  const n = snap.docCount;
  if (n === 0 || q.terms.length === 0 || limit <= 0) return none;
  const resolved: Resolved[] = [];
  for (const t of q.terms)
    if (!t.standInFor || snap.terms.find(t.standInFor) < 0) resolveTerm(snap, t, resolved, SCORING);
  const exactList = snap.docsForLabel(q.label);
  if (resolved.length === 0 && exactList.length === 0) return none;
  // Per slot: the query word's own weight × idf when the dictionary has it, else its best stand-in.
  // Only the first 32 distinct words count (as for coverage), while every word scores: a pasted
  // log of hundreds of words is measured by its opening words and is rarely cut (tuned that way).
  const slotBest = new Float64Array(32);
  const slotPrimary = new Uint8Array(32);
  const sc = scratchFor(snap);
  const { f64, i32, touched, termDocs } = sc;
  const exactEpoch = ++sc.epoch;
  for (const d of exactList) i32[d * DOC_I32 + 7] = exactEpoch;
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
        const o = d * DOC_I32;
        i32[o + 4] = epoch;
        termDocs[count++] = d;
        f64[d * DOC_F64 + 1] = 0 + wf * c * norms[d * FIELD_COUNT]!;
        i32[o + 6] = i32[o + 6]! + c;
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
        const t = d * DOC_F64 + 1;
        if (i32[d * DOC_I32 + 4] !== epoch) {
          i32[d * DOC_I32 + 4] = epoch;
          termDocs[count++] = d;
          f64[t] = 0 + x;
        } else f64[t] = f64[t]! + x;
      }
    }
    const w = r.weight * idf;
    if (r.slot >= 0 && r.slot < 32) {
      const own = r.primary === true;
      if (own && !slotPrimary[r.slot]) {
        slotPrimary[r.slot] = 1;
        slotBest[r.slot] = w;
      } else if (own === (slotPrimary[r.slot] === 1) && w > slotBest[r.slot]!) slotBest[r.slot] = w;
    }
    const bit = r.slot < 0 ? 0 : 1 << Math.min(r.slot, 30);
    for (let i = 0; i < count; i++) {
      const d = termDocs[i]!;
      const o = d * DOC_F64;
      const t = f64[o + 1]!;
      const a = f64[o]!;
      if (a === 0) touched[touchedCount++] = d;
      f64[o] = a + (w * t) / (k1 + t);
      i32[d * DOC_I32 + 5] = i32[d * DOC_I32 + 5]! | bit;
    }
  }
  const heap: Hit[] = [];
  const slots = Math.max(1, Math.min(q.slots, 31));
  const cw = SCORING.coverage;
  const nw = SCORING.nameCoverage;
  const maxCov = 1 + cw;
  const maxName = 1 + nw;
  let worstExact = false;
  let worstScore = 0;
  let worstRank = 0;
  for (let i = 0; i < touchedCount; i++) {
    const d = touched[i]!;
    const o = d * DOC_I32;
    const raw = f64[d * DOC_F64]!;
    const hitBits = i32[o + 5]!;
    const nameHits = i32[o + 6]!;
    f64[d * DOC_F64] = 0;
    i32[o + 5] = 0;
    i32[o + 6] = 0;
    // The most the bonuses can make of raw (full coverage of both) still loses: skip the document
    // row and the bonuses (in floating point too, s <= raw * maxCov * maxName: each step rounds monotonically).
    if (heap.length === limit && i32[o + 7] !== exactEpoch && (worstExact || raw * maxCov * maxName < worstScore))
      continue;
    const row = d * DOC_STRIDE;
    if ((docs[row + 4]! & EFFECTIVE_MASK) !== FLAG_EFFECTIVE || raw <= 0) continue;
    const cov = popcount(hitBits) / slots;
    const nameLen = docs[row + 5]! & 0xffff;
    const nameCov = nameLen === 0 ? 0 : Math.min(1, nameHits / nameLen);
    const s = raw * (1 + cw * cov) * (1 + nw * nameCov);
    const isExact = i32[o + 7] === exactEpoch;
    if (isExact) i32[o + 7] = 0;
    // Most documents lose to the worst hit kept: reject them without touching the heap.
    else if (
      heap.length === limit &&
      (worstExact || s < worstScore || (s === worstScore && docs[row + 7]! > worstRank))
    )
      continue;
    consider(docs, heap, limit, d, s, isExact, hitBits);
    if (heap.length === limit) {
      const w = heap[0]!;
      worstExact = w.exact;
      worstScore = w.score;
      worstRank = docs[w.doc * DOC_STRIDE + 7]!;
    }
  }
  for (const d of exactList)
    if (i32[d * DOC_I32 + 7] === exactEpoch) {
      i32[d * DOC_I32 + 7] = 0;
      if ((docs[d * DOC_STRIDE + 4]! & EFFECTIVE_MASK) === FLAG_EFFECTIVE) consider(docs, heap, limit, d, 0, true, 0);
    }
  let norm = 0;
  let missing = 0;
  const breadth = Math.min(1, snap.terms.size / SCORING.broadVocabulary);
  const maxIdf = Math.log(1 + (n + 0.5) / 0.5) * breadth;
  for (let i = 0; i < 32; i++) {
    norm += slotBest[i]!;
    if (i < q.slots && slotBest[i] === 0) missing += maxIdf;
  }
  const hits = heap.sort((a, b) => (before(docs, a, b) ? -1 : before(docs, b, a) ? 1 : 0));
  return { hits, norm, slotWeights: slotBest, missing, breadth };
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
