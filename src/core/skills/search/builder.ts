/**
 * @module skills/search/builder
 * Builds snapshot bytes for one scope. Unchanged skills keep their documents: their postings,
 * JSON and labels are copied from the previous snapshot by document id (monotone remap), so a
 * rebuild after one edit tokenises one skill and copies the rest.
 */
import type { Manifest } from "../../schema/manifest.ts";
import type { ValidRecord } from "../load.ts";
import {
  DOC_STRIDE,
  FIELD_COUNT,
  FLAG_EFFECTIVE,
  FLAG_HIDDEN,
  SECTION_COUNT,
  Section,
  TERM_STRIDE,
  encodeSnapshot,
  utf8,
  type Snapshot,
  type SnapshotMeta,
} from "./format.ts";
import { SCORING } from "./score.ts";
import { exactLabel, fold, nameTerms, tokenize } from "./tokenize.ts";

/** What the snapshot keeps per skill to rebuild its Entry without reading SKILL.md. */
export interface DocMeta {
  key: string;
  root: number;
  path: string;
  real_path: string;
  skill_file: string;
  category: string | null;
  fingerprint: string;
  content_hash: string;
  manifest: Manifest;
}

/** A freshly tokenised skill. */
export interface FreshDoc {
  meta: DocMeta;
  ident: string;
  /** Terms per field, in FIELDS order (duplicates are term frequencies). */
  fields: string[][];
  labels: string[];
}

export interface BuildPlan {
  identity: Uint8Array;
  /** The scan and watched stats the identity was computed from (identity.ts). */
  scan: Uint8Array;
  watch: Float64Array;
  previous: Snapshot | null;
  /** Documents copied from `previous`, in ascending old id. */
  reused: { old: number; key: string; effective: boolean }[];
  fresh: { doc: FreshDoc; effective: boolean }[];
}

/** `skillFile \0 fingerprint \0 realPath \0 key`: equal idents mean an unchanged document. */
export function identOf(skillFile: string, fingerprint: string, realPath: string, key: string): string {
  return `${skillFile}\0${fingerprint}\0${realPath}\0${key}`;
}

export type TokenMemo = Map<string, string[][]>;

/** Tokenises a loaded skill; `memo` shares the work between identical SKILL.md contents. */
export function freshDoc(rec: ValidRecord, root: number, memo?: TokenMemo): FreshDoc {
  const c = rec.candidate;
  const m = rec.manifest;
  const name = m.name ?? c.key;
  let content = memo?.get(rec.contentHash);
  if (!content) {
    content = [
      [...m.keywords, ...m.tags, ...(m.category !== null ? [m.category] : [])].flatMap((k) => nameTerms(k)),
      tokenize(m.description ?? ""),
      tokenize(rec.bodyExcerpt),
    ];
    memo?.set(rec.contentHash, content);
  }
  const nameField = nameTerms(c.key);
  if (fold(name) !== fold(c.key)) nameField.push(...nameTerms(name));
  const labels = [...new Set([exactLabel(c.key), exactLabel(name)])];
  return {
    meta: {
      key: c.key,
      root,
      path: c.path,
      real_path: c.realPath,
      skill_file: c.skillFile,
      category: c.category,
      fingerprint: rec.fingerprint,
      content_hash: rec.contentHash,
      manifest: m,
    },
    ident: identOf(c.skillFile, rec.fingerprint, c.realPath, c.key),
    fields: [nameField, ...content],
    labels,
  };
}

const byBytes = (a: { b: Uint8Array }, b: { b: Uint8Array }) => Buffer.compare(a.b, b.b);

class Bytes {
  buf: Uint8Array;
  len = 0;
  constructor(cap: number) {
    this.buf = new Uint8Array(Math.max(64, cap));
  }
  push(b: Uint8Array): number {
    const at = this.len;
    if (at + b.length > this.buf.length) {
      const next = new Uint8Array(Math.max(this.buf.length * 2, at + b.length));
      next.set(this.buf.subarray(0, at));
      this.buf = next;
    }
    this.buf.set(b, at);
    this.len += b.length;
    return at;
  }
  get bytes(): Uint8Array {
    return this.buf.subarray(0, this.len);
  }
}

/** Builds the snapshot bytes for a plan. */
export function buildSnapshot(plan: BuildPlan): Uint8Array {
  const prev = plan.previous;
  const nReused = plan.reused.length;
  const n = nReused + plan.fresh.length;
  if (n >= 1 << 24) throw new Error("too many skills for one snapshot");
  const oldToNew = new Int32Array(prev ? prev.docCount : 0).fill(-1);
  plan.reused.forEach((r, i) => (oldToNew[r.old] = i));

  // Documents: rows, JSON and ident strings, field lengths.
  const docs = new Uint32Array(n * DOC_STRIDE);
  const blob = new Bytes(prev ? prev.blob.length : n * 1024);
  const lens = new Uint32Array(n * FIELD_COUNT);
  const keys: string[] = new Array<string>(n);
  if (prev) {
    const p = prev.docs;
    const pb = prev.blob;
    // Reused documents keep their JSON and ident bytes; runs contiguous in the old blob (the
    // usual case: this builder writes each ident right after its JSON, documents in order) are
    // copied at once.
    let runFrom = 0;
    let runTo = 0;
    let runAt = 0;
    const flush = () => {
      if (runTo > runFrom) blob.push(pb.subarray(runFrom, runTo));
    };
    for (let i = 0; i < nReused; i++) {
      const r = plan.reused[i]!;
      const o = r.old * DOC_STRIDE;
      const d = i * DOC_STRIDE;
      const from = p[o]!;
      const to = p[o + 2]! + p[o + 3]!;
      if (p[o + 2] !== from + p[o + 1]! || from !== runTo) {
        flush();
        runAt = blob.len;
        runFrom = runTo = from;
      }
      if (p[o + 2] === from + p[o + 1]!) {
        docs[d] = runAt + (from - runFrom);
        docs[d + 2] = docs[d]! + p[o + 1]!;
        runTo = to;
      } else {
        // Not laid out by this builder: copy the two parts apart.
        docs[d] = blob.push(pb.subarray(from, from + p[o + 1]!));
        docs[d + 2] = blob.push(pb.subarray(p[o + 2]!, to));
        runFrom = runTo = 0;
        runAt = blob.len;
      }
      docs[d + 1] = p[o + 1]!;
      docs[d + 3] = p[o + 3]!;
      docs[d + 4] = (p[o + 4]! & FLAG_HIDDEN) | (r.effective ? FLAG_EFFECTIVE : 0);
      docs[d + 5] = p[o + 5]!;
      docs[d + 6] = p[o + 6]!;
      const l = i * FIELD_COUNT;
      lens[l] = p[o + 5]! & 0xffff;
      lens[l + 1] = p[o + 5]! >>> 16;
      lens[l + 2] = p[o + 6]! & 0xffff;
      lens[l + 3] = p[o + 6]! >>> 16;
      keys[i] = r.key;
    }
    flush();
  }
  plan.fresh.forEach((x, j) => {
    const i = nReused + j;
    const json = utf8(JSON.stringify(x.doc.meta));
    const ident = utf8(x.doc.ident);
    const jsonAt = blob.push(json);
    const identAt = blob.push(ident);
    const l = x.doc.fields.map((t) => Math.min(t.length, 0xffff));
    const flags = (x.doc.meta.manifest.hide ? FLAG_HIDDEN : 0) | (x.effective ? FLAG_EFFECTIVE : 0);
    docs.set([jsonAt, json.length, identAt, ident.length, flags, l[0]! | (l[1]! << 16), l[2]! | (l[3]! << 16), 0], i * DOC_STRIDE);
    l.forEach((v, f) => (lens[i * FIELD_COUNT + f] = v));
    keys[i] = x.doc.meta.key;
  });

  // Norms: 1 / (1 - b + b * len / avg) per document and field.
  const avg = new Array<number>(FIELD_COUNT).fill(0);
  for (let i = 0; i < n; i++) for (let f = 0; f < FIELD_COUNT; f++) avg[f]! += lens[i * FIELD_COUNT + f]!;
  for (let f = 0; f < FIELD_COUNT; f++) avg[f] = n === 0 ? 1 : Math.max(1, avg[f]! / n);
  const norms = new Float32Array(n * FIELD_COUNT);
  for (let i = 0; i < n; i++)
    for (let f = 0; f < FIELD_COUNT; f++) {
      const b = SCORING.b[f]!;
      norms[i * FIELD_COUNT + f] = 1 / (1 - b + (b * lens[i * FIELD_COUNT + f]!) / avg[f]!);
    }

  // Key ranks and the effective key index.
  const effective = [];
  for (let i = 0; i < n; i++) if (docs[i * DOC_STRIDE + 4]! & FLAG_EFFECTIVE) effective.push({ b: utf8(keys[i]!), doc: i });
  effective.sort(byBytes);
  for (let i = 0; i < n; i++) docs[i * DOC_STRIDE + 7] = 0xffffffff;
  effective.forEach((e, rank) => (docs[e.doc * DOC_STRIDE + 7] = rank));
  const keyTable = stringTable(effective);

  // Labels: old entries remapped, fresh ones added.
  const labels: { b: Uint8Array; doc: number }[] = [];
  if (prev)
    for (let i = 0; i < prev.labels.size; i++) {
      const d = oldToNew[prev.labelDoc[i]!]!;
      if (d >= 0) labels.push({ b: prev.labels.bytes.subarray(prev.labels.off[i]!, prev.labels.off[i + 1]!), doc: d });
    }
  plan.fresh.forEach((x, j) => {
    for (const l of x.doc.labels) labels.push({ b: utf8(l), doc: nReused + j });
  });
  labels.sort((a, b) => byBytes(a, b) || a.doc - b.doc);
  const labelTable = stringTable(labels);

  // Terms of fresh documents, per field, as packed postings.
  const freshTerms = new Map<string, number[][]>();
  plan.fresh.forEach((x, j) => {
    const d = nReused + j;
    x.doc.fields.forEach((terms, f) => {
      const tf = new Map<string, number>();
      for (const t of terms) tf.set(t, (tf.get(t) ?? 0) + 1);
      for (const [t, c] of tf) {
        let lists = freshTerms.get(t);
        if (!lists) freshTerms.set(t, (lists = [[], [], [], []]));
        lists[f]!.push((d << 8) | Math.min(c, 255));
      }
    });
  });
  const fresh = [...freshTerms].map(([t, lists]) => ({ b: utf8(t), lists }));
  fresh.sort(byBytes);
  freshTerms.clear();

  // Merge the old dictionary (already in byte order) with the fresh one.
  const oldTerms = prev ? prev.terms.size : 0;
  let freshPostings = 0;
  let freshBytes = 0;
  for (const t of fresh) {
    freshBytes += t.b.length;
    for (const l of t.lists) freshPostings += l.length;
  }
  const post = new Uint32Array((prev ? prev.post.length : 0) + freshPostings);
  let postLen = 0;
  const termBytes = new Bytes((prev ? prev.terms.bytes.length : 0) + freshBytes);
  const termOff = new Uint32Array(oldTerms + fresh.length + 1);
  const termInfo = new Uint32Array((oldTerms + fresh.length) * TERM_STRIDE);
  const stamp = new Int32Array(n).fill(-1);
  // Hoisted: the loop below touches every posting of the previous snapshot.
  const oldPost = prev ? prev.post : new Uint32Array(0);
  const oldInfo = prev ? prev.termInfo : new Uint32Array(0);
  let oi = 0;
  let fi = 0;
  let outTerm = 0;
  while (oi < oldTerms || fi < fresh.length) {
    let cmp: number;
    if (oi >= oldTerms) cmp = 1;
    else if (fi >= fresh.length) cmp = -1;
    else cmp = -prev!.terms.compare(fresh[fi]!.b, oi);
    const fromOld = cmp <= 0 ? oi++ : -1;
    const fromFresh = cmp >= 0 ? fresh[fi++]! : null;
    const info = outTerm * TERM_STRIDE;
    const termStart = postLen;
    let df = 0;
    for (let f = 0; f < FIELD_COUNT; f++) {
      const start = postLen;
      if (fromOld >= 0) {
        const s = oldInfo[fromOld * TERM_STRIDE + 1 + 2 * f]!;
        const e = s + oldInfo[fromOld * TERM_STRIDE + 2 + 2 * f]!;
        for (let p = s; p < e; p++) {
          const v = oldPost[p]!;
          const d = oldToNew[v >>> 8]!;
          if (d < 0) continue;
          post[postLen++] = (d << 8) | (v & 0xff);
          if (stamp[d] !== outTerm) {
            stamp[d] = outTerm;
            df++;
          }
        }
      }
      if (fromFresh)
        for (const v of fromFresh.lists[f]!) {
          post[postLen++] = v;
          const d = v >>> 8;
          if (stamp[d] !== outTerm) {
            stamp[d] = outTerm;
            df++;
          }
        }
      termInfo[info + 1 + 2 * f] = start;
      termInfo[info + 2 + 2 * f] = postLen - start;
    }
    if (df === 0) {
      postLen = termStart;
      continue;
    }
    termInfo[info] = df;
    termBytes.push(fromOld >= 0 ? prev!.terms.bytes.subarray(prev!.terms.off[fromOld]!, prev!.terms.off[fromOld + 1]!) : fromFresh!.b);
    termOff[++outTerm] = termBytes.len;
  }

  const meta: SnapshotMeta = { docs: n, terms: outTerm, avg };
  const sections: ArrayBufferView[] = new Array<ArrayBufferView>(SECTION_COUNT);
  sections[Section.Meta] = utf8(JSON.stringify(meta));
  sections[Section.Docs] = docs;
  sections[Section.Norms] = norms;
  sections[Section.Blob] = blob.bytes;
  sections[Section.TermOff] = termOff.subarray(0, outTerm + 1);
  sections[Section.TermBytes] = termBytes.bytes;
  sections[Section.TermInfo] = termInfo.subarray(0, outTerm * TERM_STRIDE);
  sections[Section.Post] = post.subarray(0, postLen);
  sections[Section.KeyOff] = keyTable.off;
  sections[Section.KeyBytes] = keyTable.bytes;
  sections[Section.KeyDoc] = keyTable.docs;
  sections[Section.LabelOff] = labelTable.off;
  sections[Section.LabelBytes] = labelTable.bytes;
  sections[Section.LabelDoc] = labelTable.docs;
  sections[Section.Scan] = plan.scan;
  sections[Section.Watch] = plan.watch;
  return encodeSnapshot(plan.identity, sections);
}

function stringTable(rows: { b: Uint8Array; doc: number }[]): { off: Uint32Array; bytes: Uint8Array; docs: Uint32Array } {
  const off = new Uint32Array(rows.length + 1);
  const bytes = new Bytes(rows.reduce((s, r) => s + r.b.length, 0));
  rows.forEach((r, i) => {
    bytes.push(r.b);
    off[i + 1] = bytes.len;
  });
  return { off, bytes: bytes.bytes, docs: Uint32Array.from(rows.map((r) => r.doc)) };
}
