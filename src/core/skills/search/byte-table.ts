/**
 * @module skills/search/byte-table
 * The sorted string tables of a snapshot (keys and labels with their document ids), merged from the
 * previous snapshot's surviving rows and a few new ones, into a growable buffer that copies
 * consecutive old rows as one run.
 */

export const byBytes = (a: { b: Uint8Array }, b: { b: Uint8Array }) => Buffer.compare(a.b, b.b);

/**
 * A growable byte buffer, for the sections built before their size is known. Ranges of one source
 * that follow each other (old rows copied in order) are copied as one run when the run ends:
 * a copy per row costs more than the rest of a one-edit rebuild.
 */
export class Bytes {
  buf: Uint8Array;
  #len = 0;
  #src: Uint8Array | null = null;
  #from = 0;
  #to = 0;
  constructor(cap: number) {
    this.buf = new Uint8Array(Math.max(64, cap));
  }
  get len(): number {
    return this.#len + (this.#to - this.#from);
  }
  push(b: Uint8Array): number {
    this.#flush();
    const at = this.#len;
    this.#reserve(b.length);
    this.buf.set(b, at);
    this.#len += b.length;
    return at;
  }
  /** Appends `src[from, to)`; copied when a range that does not continue it arrives. */
  pushRange(src: Uint8Array, from: number, to: number): void {
    if (src !== this.#src || from !== this.#to) {
      this.#flush();
      this.#src = src;
      this.#from = this.#to = from;
    }
    this.#to = to;
  }
  get bytes(): Uint8Array {
    this.#flush();
    return this.buf.subarray(0, this.#len);
  }
  #reserve(n: number): void {
    if (this.#len + n <= this.buf.length) return;
    const next = new Uint8Array(Math.max(this.buf.length * 2, this.#len + n));
    next.set(this.buf.subarray(0, this.#len));
    this.buf = next;
  }
  #flush(): void {
    if (this.#src === null) return;
    const n = this.#to - this.#from;
    this.#reserve(n);
    this.buf.set(this.#src.subarray(this.#from, this.#to), this.#len);
    this.#len += n;
    this.#src = null;
    this.#from = this.#to = 0;
  }
}

/** A sorted string table with document ids (format.ts KEY_* and LABEL_*). */
export interface Table {
  off: Uint32Array;
  bytes: Uint8Array;
  docs: Uint32Array;
}

/**
 * Merges the rows of an old sorted table that survive (`keep` gives the new document, or -1) with a
 * few new rows (sorted here): byte order, then document order. `oldToNew` is monotone, so the
 * surviving old rows stay sorted.
 */
export function mergeTable(
  old: { off: Uint32Array; bytes: Uint8Array; docs: Uint32Array; size: number } | null,
  keep: (oldDoc: number) => number,
  added: { b: Uint8Array; doc: number }[],
): Table {
  added.sort((a, b) => byBytes(a, b) || a.doc - b.doc);
  const oldSize = old ? old.size : 0;
  const cap = oldSize + added.length;
  const off = new Uint32Array(cap + 1);
  const docs = new Uint32Array(cap);
  const bytes = new Bytes((old ? old.off[oldSize]! : 0) + added.reduce((s, r) => s + r.b.length, 0));
  let rows = 0;
  let ai = 0;
  const emitAdded = () => {
    const r = added[ai++]!;
    bytes.push(r.b);
    docs[rows] = r.doc;
    off[++rows] = bytes.len;
  };
  for (let i = 0; i < oldSize; i++) {
    const d = keep(old!.docs[i]!);
    if (d < 0) continue;
    const s = old!.off[i]!;
    const e = old!.off[i + 1]!;
    if (ai < added.length) {
      const ob = old!.bytes.subarray(s, e);
      while (ai < added.length) {
        const c = Buffer.compare(added[ai]!.b, ob);
        if (c < 0 || (c === 0 && added[ai]!.doc < d)) emitAdded();
        else break;
      }
    }
    bytes.pushRange(old!.bytes, s, e);
    docs[rows] = d;
    off[++rows] = bytes.len;
  }
  while (ai < added.length) emitAdded();
  return { off: off.subarray(0, rows + 1), bytes: bytes.bytes, docs: docs.subarray(0, rows) };
}
