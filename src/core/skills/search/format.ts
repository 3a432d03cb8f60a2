/**
 * @module skills/search/format
 * The binary search snapshot of skills.md §7.3, readable in place (DESIGN.md §4): loading is a
 * map and a header check, never a parse. Little-endian; every table is a typed array over the
 * file's bytes.
 *
 *   0   "LEMSNAP" + u8 format version
 *   8   32-byte identity digest (identity.ts `digestOf`)
 *   40  u32 total file length (a truncated file fails here), u32 section count
 *   48  16 reserved bytes, then the section table: (u32 offset, u32 length) per section
 *
 * Sections (offsets 8-aligned): META (JSON), DOCS (u32 × DOC_STRIDE per document), NORMS (f32 per
 * document and field), BLOB (per-document JSON and identity strings), the term dictionary sorted
 * by UTF-8 bytes (TERM_OFF, TERM_BYTES, TERM_INFO = df then (start, length) per field), POST
 * (u32 `doc << 8 | tf`, ascending doc per list), and two sorted string indexes with their
 * document ids: effective keys (KEY_*) and lower-cased keys and names (LABEL_*). SCAN and WATCH
 * hold the scan the snapshot was built from (identity.ts): candidate directories, and the stats of
 * the directories vouching for them, so an unchanged tree is re-checked with stats only. FILES
 * (f64 × FILE_STRIDE per candidate of the scan: its SKILL.md's size, mtime, ctime, inode and
 * device, -1 when missing) and CAND_DOC (i32 per candidate: its document, -1 when it loaded as
 * invalid) let a rebuild over the same scan reuse documents, and skip unchanged invalid files, by
 * comparing numbers (scope-build.ts); both are empty when the builder was not given the stats.
 * PATHS is what the identity check stats, NUL-separated: the watched paths, then every candidate's
 * SKILL.md, in scan order. It is derived from SCAN at every build (never copied forward), so the
 * check is one split instead of rebuilding 10k paths from their fields.
 *
 * Sections need not be stored in table order, and bytes between sections are ignored: the builder
 * writes POST and META last so the file can be cut right after them.
 */

export const SNAPSHOT_MAGIC = "LEMSNAP";
/** Bump whenever the layout or anything baked into it (tokeniser, norms) changes. */
export const SNAPSHOT_VERSION = 5;
export const HEADER_BYTES = 64;
export const IDENTITY_BYTES = 32;

/** Field order in NORMS and TERM_INFO. */
export const FIELDS = ["name", "keywords", "description", "body"] as const;
export const FIELD_COUNT = FIELDS.length;
export const TERM_STRIDE = 1 + 2 * FIELD_COUNT;

/** DOCS row: blobOff, blobLen, identOff, identLen, flags, len name|keywords<<16, len description|body<<16, key rank. */
export const DOC_STRIDE = 8;
export const FLAG_EFFECTIVE = 1;
export const FLAG_HIDDEN = 2;
/** FILES row: size, mtimeMs, ctimeMs, ino, dev of a candidate's SKILL.md (stat-many.ts order). */
export const FILE_STRIDE = 5;

export const Section = {
  Meta: 0,
  Docs: 1,
  Norms: 2,
  Blob: 3,
  TermOff: 4,
  TermBytes: 5,
  TermInfo: 6,
  Post: 7,
  KeyOff: 8,
  KeyBytes: 9,
  KeyDoc: 10,
  LabelOff: 11,
  LabelBytes: 12,
  LabelDoc: 13,
  Scan: 14,
  Watch: 15,
  Files: 16,
  CandDoc: 17,
  Paths: 18,
} as const;
export type Section = (typeof Section)[keyof typeof Section];
export const SECTION_COUNT = 19;

export interface SnapshotMeta {
  docs: number;
  terms: number;
  /** Average field lengths used for the baked norms. */
  avg: number[];
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export const utf8 = (s: string): Uint8Array => encoder.encode(s);
export const fromUtf8 = (b: Uint8Array): string => decoder.decode(b);

/** Compares `a` with bytes[start, end) in UTF-8 byte order. */
function compareAt(a: Uint8Array, bytes: Uint8Array, start: number, end: number): number {
  const n = end - start;
  const m = Math.min(a.length, n);
  for (let i = 0; i < m; i++) {
    const d = a[i]! - bytes[start + i]!;
    if (d !== 0) return d;
  }
  return a.length - n;
}

/** A sorted string table: offsets (n + 1) into bytes. */
export class StringTable {
  constructor(
    readonly off: Uint32Array,
    readonly bytes: Uint8Array,
  ) {}
  get size(): number {
    return this.off.length - 1;
  }
  get(i: number): string {
    return fromUtf8(this.bytes.subarray(this.off[i]!, this.off[i + 1]!));
  }
  length(i: number): number {
    return this.off[i + 1]! - this.off[i]!;
  }
  compare(a: Uint8Array, i: number): number {
    return compareAt(a, this.bytes, this.off[i]!, this.off[i + 1]!);
  }
  /** First index whose string is >= `a`. */
  lowerBound(a: Uint8Array): number {
    let lo = 0;
    let hi = this.size;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.compare(a, mid) > 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
  find(a: Uint8Array): number {
    const i = this.lowerBound(a);
    return i < this.size && this.compare(a, i) === 0 ? i : -1;
  }
  /** [lo, hi) of strings starting with `prefix` (two binary searches; one when `lo` is its lowerBound already). */
  prefixRange(prefix: Uint8Array, lo = this.lowerBound(prefix)): [number, number] {
    // Strings starting with `prefix` are contiguous from lo: find the first one that does not.
    let a = lo;
    let b = this.size;
    const k = prefix.length;
    const off = this.off;
    const bytes = this.bytes;
    while (a < b) {
      const mid = (a + b) >>> 1;
      const s = off[mid]!;
      if (off[mid + 1]! - s >= k && compareAt(prefix, bytes, s, s + k) === 0) a = mid + 1;
      else b = mid;
    }
    return [lo, a];
  }
}

export class Snapshot {
  readonly identity: Uint8Array;
  readonly meta: SnapshotMeta;
  readonly docs: Uint32Array;
  readonly norms: Float32Array;
  readonly blob: Uint8Array;
  readonly terms: StringTable;
  readonly termInfo: Uint32Array;
  readonly post: Uint32Array;
  readonly keys: StringTable;
  readonly keyDoc: Uint32Array;
  readonly labels: StringTable;
  readonly labelDoc: Uint32Array;
  /** The encoded scan (identity.ts) and the stats of its watched paths (stat-many.ts layout). */
  readonly scan: Uint8Array;
  readonly watch: Float64Array;
  /** Per candidate of `scan`: its SKILL.md stats when built (FILE_STRIDE each) and its document or -1. */
  readonly files: Float64Array;
  readonly candDoc: Int32Array;
  /** The paths the identity check stats (PATHS). */
  readonly paths: Uint8Array;
  /** Scratch buffers for scoring (score.ts), allocated on first query (scoring is synchronous). */
  scratch: object | null = null;

  constructor(
    readonly bytes: Uint8Array,
    readonly mapped: boolean,
    parts: { identity: Uint8Array; meta: SnapshotMeta; sec: Uint8Array[] },
  ) {
    const u32 = (b: Uint8Array) => new Uint32Array(b.buffer, b.byteOffset, b.byteLength >>> 2);
    const s = parts.sec;
    this.identity = parts.identity;
    this.meta = parts.meta;
    this.docs = u32(s[Section.Docs]!);
    this.norms = new Float32Array(
      s[Section.Norms]!.buffer,
      s[Section.Norms]!.byteOffset,
      s[Section.Norms]!.byteLength >>> 2,
    );
    this.blob = s[Section.Blob]!;
    this.terms = new StringTable(u32(s[Section.TermOff]!), s[Section.TermBytes]!);
    this.termInfo = u32(s[Section.TermInfo]!);
    this.post = u32(s[Section.Post]!);
    this.keys = new StringTable(u32(s[Section.KeyOff]!), s[Section.KeyBytes]!);
    this.keyDoc = u32(s[Section.KeyDoc]!);
    this.labels = new StringTable(u32(s[Section.LabelOff]!), s[Section.LabelBytes]!);
    this.labelDoc = u32(s[Section.LabelDoc]!);
    this.scan = s[Section.Scan]!;
    this.watch = new Float64Array(
      s[Section.Watch]!.buffer,
      s[Section.Watch]!.byteOffset,
      s[Section.Watch]!.byteLength >>> 3,
    );
    this.files = new Float64Array(
      s[Section.Files]!.buffer,
      s[Section.Files]!.byteOffset,
      s[Section.Files]!.byteLength >>> 3,
    );
    this.candDoc = new Int32Array(
      s[Section.CandDoc]!.buffer,
      s[Section.CandDoc]!.byteOffset,
      s[Section.CandDoc]!.byteLength >>> 2,
    );
    this.paths = s[Section.Paths]!;
  }

  get docCount(): number {
    return this.meta.docs;
  }

  flags(doc: number): number {
    return this.docs[doc * DOC_STRIDE + 4]!;
  }

  fieldLength(doc: number, field: number): number {
    const w = this.docs[doc * DOC_STRIDE + 5 + (field >> 1)]!;
    return field & 1 ? w >>> 16 : w & 0xffff;
  }

  /** The document's JSON (unknown until validated by the caller). */
  docJson(doc: number): unknown {
    const o = doc * DOC_STRIDE;
    return JSON.parse(fromUtf8(this.blob.subarray(this.docs[o]!, this.docs[o]! + this.docs[o + 1]!)));
  }

  /** `skillFile \0 fingerprint \0 realPath \0 key` of a document, for incremental rebuilds. */
  docIdent(doc: number): string {
    const o = doc * DOC_STRIDE;
    return fromUtf8(this.blob.subarray(this.docs[o + 2]!, this.docs[o + 2]! + this.docs[o + 3]!));
  }

  /** The effective document with this key, or -1. */
  docForKey(key: string): number {
    const i = this.keys.find(utf8(key));
    return i < 0 ? -1 : this.keyDoc[i]!;
  }

  /** The key of an effective document, by reverse lookup through the ident string. */
  keyOf(doc: number): string {
    const ident = this.docIdent(doc);
    return ident.slice(ident.lastIndexOf("\0") + 1);
  }

  #longestLabel = -1;

  /** Effective documents whose lower-cased key or name equals `label`. */
  docsForLabel(label: string): number[] {
    const out: number[] = [];
    // A request longer than every key and name (most are: sentences) skips the binary search,
    // whose dozen probes into the table are cache misses on a turn's cold start.
    if (this.#longestLabel < 0) {
      let max = 0;
      const off = this.labels.off;
      for (let i = 0; i < this.labels.size; i++) max = Math.max(max, off[i + 1]! - off[i]!);
      this.#longestLabel = max;
    }
    if (label.length > this.#longestLabel) return out;
    const a = utf8(label);
    for (let i = this.labels.lowerBound(a); i < this.labels.size && this.labels.compare(a, i) === 0; i++)
      out.push(this.labelDoc[i]!);
    return out;
  }
}

/** Validates the header and section table; a reason string when the bytes are not a usable snapshot. */
export function openSnapshot(raw: Uint8Array, mapped: boolean): Snapshot | string {
  if (raw.length < HEADER_BYTES + SECTION_COUNT * 8) return "truncated header";
  // Typed views need 4-byte alignment; a plain read may hand us an unaligned slice.
  const bytes = raw.byteOffset % 8 === 0 ? raw : raw.slice();
  if (fromUtf8(bytes.subarray(0, 7)) !== SNAPSHOT_MAGIC) return "bad magic";
  if (bytes[7] !== SNAPSHOT_VERSION) return `format version ${bytes[7]}`;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (view.getUint32(40, true) !== bytes.length) return "length mismatch";
  if (view.getUint32(44, true) !== SECTION_COUNT) return "section count";
  const sec: Uint8Array[] = [];
  for (let i = 0; i < SECTION_COUNT; i++) {
    const off = view.getUint32(HEADER_BYTES + i * 8, true);
    const len = view.getUint32(HEADER_BYTES + i * 8 + 4, true);
    if (off % 8 !== 0 || off + len > bytes.length) return `section ${i} out of bounds`;
    sec.push(bytes.subarray(off, off + len));
  }
  let meta: unknown;
  try {
    meta = JSON.parse(fromUtf8(sec[Section.Meta]!));
  } catch {
    return "bad meta";
  }
  if (!isMeta(meta)) return "bad meta";
  const n = meta.docs;
  const t = meta.terms;
  const wordLen = (i: Section) => sec[i]!.byteLength;
  if (
    wordLen(Section.Docs) !== n * DOC_STRIDE * 4 ||
    wordLen(Section.Norms) !== n * FIELD_COUNT * 4 ||
    wordLen(Section.TermOff) !== (t + 1) * 4 ||
    wordLen(Section.TermInfo) !== t * TERM_STRIDE * 4 ||
    wordLen(Section.Post) % 4 !== 0 ||
    wordLen(Section.KeyOff) !== wordLen(Section.KeyDoc) + 4 ||
    wordLen(Section.LabelOff) !== wordLen(Section.LabelDoc) + 4 ||
    wordLen(Section.Watch) % 8 !== 0 ||
    wordLen(Section.CandDoc) % 4 !== 0 ||
    wordLen(Section.Files) !== (wordLen(Section.CandDoc) / 4) * FILE_STRIDE * 8
  )
    return "inconsistent tables";
  const snap = new Snapshot(bytes, mapped && bytes === raw, {
    identity: bytes.subarray(8, 8 + IDENTITY_BYTES),
    meta,
    sec,
  });
  if (!tablesInBounds(snap)) return "inconsistent tables";
  return snap;
}

function isMeta(v: unknown): v is SnapshotMeta {
  if (typeof v !== "object" || v === null) return false;
  const m = v as Record<string, unknown>;
  return (
    Number.isInteger(m.docs) &&
    (m.docs as number) >= 0 &&
    (m.docs as number) < 1 << 24 &&
    Number.isInteger(m.terms) &&
    (m.terms as number) >= 0 &&
    Array.isArray(m.avg) &&
    m.avg.length === FIELD_COUNT &&
    m.avg.every((x) => typeof x === "number")
  );
}

/** Cheap O(1) checks that the last entry of each offset table stays inside its bytes. */
function tablesInBounds(s: Snapshot): boolean {
  const lastOk = (t: StringTable) => t.off[t.size]! <= t.bytes.length;
  const docs = s.docCount;
  const blobOk = docs === 0 || s.docs[(docs - 1) * DOC_STRIDE]! + s.docs[(docs - 1) * DOC_STRIDE + 1]! <= s.blob.length;
  return lastOk(s.terms) && lastOk(s.keys) && lastOk(s.labels) && blobOk;
}
