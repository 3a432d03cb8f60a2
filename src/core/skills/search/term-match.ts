/**
 * @module skills/search/term-match
 * Which dictionary terms of a snapshot a query term reaches: its exact spelling, a few longer
 * words sharing its prefix, and near spellings (edit distance 1, or 2 for long words) found among
 * words of the same first byte and similar length, with a bag-distance bound before the full
 * Damerau-Levenshtein table.
 */
import { TERM_STRIDE, type Snapshot } from "./format.ts";
import type { QueryTerm } from "./score.ts";

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

/** The prefix expansions kept while scanning a range (resolveTerm), best first. */
let topIds = new Int32Array(16);

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
  return Math.max(extra, missing);
}

export interface Resolved {
  id: number;
  weight: number;
  slot: number;
  /** The query's own word, spelled as in the dictionary (not a neighbour, prefix or near spelling). */
  primary?: boolean;
}

/** How far a term reaches beyond its exact spelling; the scorer passes its tuned values. */
export interface Reach {
  maxPrefixExpansions: number;
  prefixWeight: number;
  fuzzyWeight: number;
}

/** Dictionary ids and weights for one query term in one snapshot. */
export function resolveTerm(snap: Snapshot, q: QueryTerm, out: Resolved[], reach: Reach): void {
  const dict = snap.terms;
  // One binary search serves the exact look-up and the prefix range.
  const at = dict.lowerBound(q.bytes);
  const id = at < dict.size && dict.compare(q.bytes, at) === 0 ? at : -1;
  if (id >= 0) out.push({ id, weight: q.weight, slot: q.slot, primary: q.expand });
  if (!q.expand || q.bytes.length < 4 || !IS_ASCII_WORD.test(q.term)) return;
  // Longer words sharing the prefix ("kube" -> "kubectl"), a few, most frequent first (then by id):
  // kept in a small sorted buffer as the range goes by, not sorted whole (a short prefix spans
  // hundreds of words).
  const [lo, hi] = dict.prefixRange(q.bytes, at);
  const info = snap.termInfo;
  const keep = Math.max(0, reach.maxPrefixExpansions);
  if (topIds.length < keep) topIds = new Int32Array(keep);
  const top = topIds;
  let kept = 0;
  for (let i = keep > 0 ? lo : hi; i < hi; i++) {
    if (i === id) continue;
    const df = info[i * TERM_STRIDE]!;
    // Ids ascend through the range, so an equal df never displaces a kept one.
    if (kept === keep && df <= info[top[kept - 1]! * TERM_STRIDE]!) continue;
    let k = kept < keep ? kept++ : kept - 1;
    while (k > 0 && info[top[k - 1]! * TERM_STRIDE]! < df) {
      top[k] = top[k - 1]!;
      k--;
    }
    top[k] = i;
  }
  for (let k = 0; k < kept; k++) {
    const x = top[k]!;
    out.push({ id: x, weight: q.weight * reach.prefixWeight * (q.bytes.length / dict.length(x)), slot: q.slot });
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
    const bound = Math.min(best, max);
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
  for (let k = 0; k < found.length && k < 2; k++)
    out.push({ id: found[k]!.id, weight: q.weight * reach.fuzzyWeight * (best === 1 ? 1 : 0.7), slot: q.slot });
}
