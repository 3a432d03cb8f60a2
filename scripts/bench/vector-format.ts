/**
 * @module skills/search/vector-format
 * The word-vector asset (assets/vectors.bin, written by scripts/build-vectors.ts), readable in
 * place. Little-endian, sections 8-aligned:
 *
 *   0   "LEMVEC" + u8 format version + u8 0
 *   8   u32 stem count n, u32 dimensions, u32 neighbours per stem k, u32 string bytes
 *   24  8 reserved bytes
 *   32  OFF u32 (n + 1) offsets into BYTES, stems in rank order (most frequent first)
 *       SORTED u32 n: stem ids in UTF-8 byte order (binary search)
 *       SCALE f32 n: the int8 vector of stem r times SCALE[r] is its unit vector
 *       VEC i8 n × dimensions
 *       NBR u16 n × k: nearest stems by cosine, best first, 0xffff when none
 *       SIM u8 n × k: their cosine × 255
 *       BYTES: the stems, UTF-8
 */

export const VECTOR_MAGIC = "LEMVEC";
export const VECTOR_VERSION = 1;
export const VECTOR_DIMS = 100;
export const VECTOR_HEADER = 32;
export const NO_NEIGHBOUR = 0xffff;

export interface VectorTable {
  stems: string[];
  vec: Int8Array;
  scale: Float32Array;
  nbr: Uint16Array;
  sim: Uint8Array;
  k: number;
}

const align8 = (n: number) => (n + 7) & ~7;

/** Section byte lengths for n stems, k neighbours and `strings` bytes of stems. */
function layout(n: number, k: number, strings: number): { at: number[]; total: number } {
  const lens = [(n + 1) * 4, n * 4, n * 4, n * VECTOR_DIMS, n * k * 2, n * k, strings];
  const at: number[] = [];
  let pos = VECTOR_HEADER;
  for (const l of lens) {
    at.push(pos);
    pos = align8(pos + l);
  }
  return { at, total: pos };
}

const enc = new TextEncoder();

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const m = Math.min(a.length, b.length);
  for (let i = 0; i < m; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
}

export function encodeVectors(t: VectorTable): Uint8Array {
  const n = t.stems.length;
  // Neighbours are chosen among the most frequent stems, so their ids fit u16.
  if (t.nbr.some((id) => id > NO_NEIGHBOUR)) throw new Error("neighbour id beyond u16");
  const encoded = t.stems.map((s) => enc.encode(s));
  const strings = encoded.reduce((s, b) => s + b.length, 0);
  const { at, total } = layout(n, t.k, strings);
  const out = new Uint8Array(total);
  const view = new DataView(out.buffer);
  out.set(enc.encode(VECTOR_MAGIC), 0);
  out[6] = VECTOR_VERSION;
  view.setUint32(8, n, true);
  view.setUint32(12, VECTOR_DIMS, true);
  view.setUint32(16, t.k, true);
  view.setUint32(20, strings, true);
  let p = 0;
  for (let i = 0; i < n; i++) {
    view.setUint32(at[0]! + i * 4, p, true);
    out.set(encoded[i]!, at[6]! + p);
    p += encoded[i]!.length;
  }
  view.setUint32(at[0]! + n * 4, p, true);
  const sorted = [...encoded.keys()].sort((a, b) => compareBytes(encoded[a]!, encoded[b]!) || a - b);
  for (let i = 0; i < n; i++) view.setUint32(at[1]! + i * 4, sorted[i]!, true);
  for (let i = 0; i < n; i++) view.setFloat32(at[2]! + i * 4, t.scale[i]!, true);
  out.set(new Uint8Array(t.vec.buffer, t.vec.byteOffset, t.vec.byteLength), at[3]!);
  for (let i = 0; i < n * t.k; i++) view.setUint16(at[4]! + i * 2, t.nbr[i]!, true);
  out.set(t.sim, at[5]!);
  return out;
}

/** The asset opened in place; `find` and `neighbours` never copy. */
export class Vectors {
  readonly n: number;
  readonly k: number;
  readonly off: Uint32Array;
  readonly sorted: Uint32Array;
  readonly scale: Float32Array;
  readonly vec: Int8Array;
  readonly nbr: Uint16Array;
  readonly sim: Uint8Array;
  readonly bytes: Uint8Array;

  constructor(raw: Uint8Array, n: number, k: number, strings: number) {
    const { at } = layout(n, k, strings);
    const b = raw.buffer;
    const o = raw.byteOffset;
    this.n = n;
    this.k = k;
    this.off = new Uint32Array(b, o + at[0]!, n + 1);
    this.sorted = new Uint32Array(b, o + at[1]!, n);
    this.scale = new Float32Array(b, o + at[2]!, n);
    this.vec = new Int8Array(b, o + at[3]!, n * VECTOR_DIMS);
    this.nbr = new Uint16Array(b, o + at[4]!, n * k);
    this.sim = new Uint8Array(b, o + at[5]!, n * k);
    this.bytes = new Uint8Array(b, o + at[6]!, strings);
  }

  #cmp(a: Uint8Array, id: number): number {
    const s = this.off[id]!;
    const e = this.off[id + 1]!;
    const m = Math.min(a.length, e - s);
    for (let i = 0; i < m; i++) {
      const d = a[i]! - this.bytes[s + i]!;
      if (d !== 0) return d;
    }
    return a.length - (e - s);
  }

  /** The id of a stem, or -1. */
  find(stem: Uint8Array): number {
    let lo = 0;
    let hi = this.n;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const c = this.#cmp(stem, this.sorted[mid]!);
      if (c === 0) return this.sorted[mid]!;
      if (c > 0) lo = mid + 1;
      else hi = mid;
    }
    return -1;
  }

  stem(id: number): Uint8Array {
    return this.bytes.subarray(this.off[id]!, this.off[id + 1]!);
  }
}

/** Checks the header; a reason string when the bytes are not a usable table. */
export function openVectors(raw: Uint8Array): Vectors | string {
  if (raw.length < VECTOR_HEADER) return "truncated";
  const bytes = raw.byteOffset % 8 === 0 ? raw : raw.slice();
  if (new TextDecoder().decode(bytes.subarray(0, 6)) !== VECTOR_MAGIC) return "bad magic";
  if (bytes[6] !== VECTOR_VERSION) return `version ${bytes[6]}`;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const n = view.getUint32(8, true);
  const dims = view.getUint32(12, true);
  const k = view.getUint32(16, true);
  const strings = view.getUint32(20, true);
  if (dims !== VECTOR_DIMS || k > 64) return "bad header";
  if (layout(n, k, strings).total !== bytes.length) return "length mismatch";
  const v = new Vectors(bytes, n, k, strings);
  if (v.off[n] !== strings) return "bad offsets";
  return v;
}
