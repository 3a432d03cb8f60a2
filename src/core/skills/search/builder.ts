/**
 * @module skills/search/builder
 * Builds snapshot bytes for one scope. Unchanged skills keep their documents: their postings,
 * JSON, labels and key index rows are copied from the previous snapshot by document id (monotone
 * remap), so a rebuild after one edit tokenises one skill and copies the rest.
 */
import {
  DOC_STRIDE,
  FIELD_COUNT,
  FLAG_EFFECTIVE,
  FLAG_HIDDEN,
  HEADER_BYTES,
  IDENTITY_BYTES,
  SECTION_COUNT,
  SNAPSHOT_MAGIC,
  SNAPSHOT_VERSION,
  Section,
  TERM_STRIDE,
  utf8,
  type Snapshot,
  type SnapshotMeta,
} from "./format.ts";
import { byBytes, Bytes, mergeTable } from "./byte-table.ts";
import { SCORING } from "./score.ts";
import type { FreshDoc } from "./search-doc.ts";

export interface BuildPlan {
  identity: Uint8Array;
  /** The scan and watched stats the identity was computed from (identity.ts). */
  scan: Uint8Array;
  watch: Float64Array;
  /** Per candidate of the scan: SKILL.md stats (FILE_STRIDE each) and its new document or -1 (format.ts FILES, CAND_DOC). */
  files: Float64Array;
  candDoc: Int32Array;
  /** PATHS: what the identity check stats, derived from `scan` (identity.ts `statPathsOf`). */
  paths: Uint8Array;
  previous: Snapshot | null;
  /** Documents copied from `previous`, in ascending old id. */
  reused: { old: number; key: string; effective: boolean }[];
  fresh: { doc: FreshDoc; effective: boolean }[];
}

const align8 = (n: number) => (n + 7) & ~7;

/**
 * Builds the snapshot bytes for a plan, into one output buffer: documents, norms, JSON and
 * postings are written in place (format.ts allows any physical section order; POST goes last with
 * room for every posting, then the dictionary and META right after what was used).
 */
export function buildSnapshot(plan: BuildPlan): Uint8Array {
  const prev = plan.previous;
  const nReused = plan.reused.length;
  const nFresh = plan.fresh.length;
  const n = nReused + nFresh;
  if (n >= 1 << 24) throw new Error("too many skills for one snapshot");
  if (plan.identity.length !== IDENTITY_BYTES) throw new Error("bad snapshot identity");
  const oldCount = prev ? prev.docCount : 0;
  const oldToNew = new Int32Array(oldCount).fill(-1);
  for (let i = 0; i < nReused; i++) oldToNew[plan.reused[i]!.old] = i;
  const pd = prev ? prev.docs : new Uint32Array(0);

  // Fresh documents' JSON and ident bytes; the blob's exact size.
  const freshJson: Uint8Array[] = new Array<Uint8Array>(nFresh);
  const freshIdent: Uint8Array[] = new Array<Uint8Array>(nFresh);
  let blobLen = 0;
  for (let i = 0; i < nReused; i++) {
    const o = plan.reused[i]!.old * DOC_STRIDE;
    blobLen += pd[o + 1]! + pd[o + 3]!;
  }
  for (let j = 0; j < nFresh; j++) {
    const x = plan.fresh[j]!;
    freshJson[j] = utf8(JSON.stringify(x.doc.meta));
    freshIdent[j] = utf8(x.doc.ident);
    blobLen += freshJson[j]!.length + freshIdent[j]!.length;
  }

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
  let freshPostings = 0;
  let freshBytes = 0;
  for (const t of fresh) {
    freshBytes += t.b.length;
    for (const l of t.lists) freshPostings += l.length;
  }
  const oldTerms = prev ? prev.terms.size : 0;
  const termCap = oldTerms + fresh.length;
  const postCap = (prev ? prev.post.length : 0) + freshPostings;

  // Flags first (the key and label tables need them).
  const flags = new Uint32Array(n);
  for (let i = 0; i < nReused; i++) {
    const r = plan.reused[i]!;
    flags[i] = (pd[r.old * DOC_STRIDE + 4]! & FLAG_HIDDEN) | (r.effective ? FLAG_EFFECTIVE : 0);
  }
  for (let j = 0; j < nFresh; j++) {
    const x = plan.fresh[j]!;
    flags[nReused + j] = (x.doc.meta.manifest.hide ? FLAG_HIDDEN : 0) | (x.effective ? FLAG_EFFECTIVE : 0);
  }

  // The effective key index: the old one's surviving rows merged with the newly effective keys.
  const wasEffective = (old: number) => prev !== null && (pd[old * DOC_STRIDE + 4]! & FLAG_EFFECTIVE) !== 0;
  const newKeys: { b: Uint8Array; doc: number }[] = [];
  for (let i = 0; i < nReused; i++)
    if (flags[i]! & FLAG_EFFECTIVE && !wasEffective(plan.reused[i]!.old))
      newKeys.push({ b: utf8(plan.reused[i]!.key), doc: i });
  for (let j = 0; j < nFresh; j++)
    if (flags[nReused + j]! & FLAG_EFFECTIVE) newKeys.push({ b: utf8(plan.fresh[j]!.doc.meta.key), doc: nReused + j });
  const keyTable = mergeTable(
    prev ? { off: prev.keys.off, bytes: prev.keys.bytes, docs: prev.keyDoc, size: prev.keys.size } : null,
    (old) => {
      const d = oldToNew[old]!;
      return d >= 0 && flags[d]! & FLAG_EFFECTIVE ? d : -1;
    },
    newKeys,
  );

  // Labels: old rows remapped, fresh ones added.
  const newLabels: { b: Uint8Array; doc: number }[] = [];
  plan.fresh.forEach((x, j) => {
    for (const l of x.doc.labels) newLabels.push({ b: utf8(l), doc: nReused + j });
  });
  const labelTable = mergeTable(
    prev ? { off: prev.labels.off, bytes: prev.labels.bytes, docs: prev.labelDoc, size: prev.labels.size } : null,
    (old) => oldToNew[old]!,
    newLabels,
  );

  // The output buffer: fixed sections, BLOB, POST (room for every posting), then the dictionary
  // and META (bounded by the merge's capacity). Padding is zeroed; the file is cut after META.
  const metaCap = 512;
  const sizes: [Section, number][] = [
    [Section.Docs, n * DOC_STRIDE * 4],
    [Section.Norms, n * FIELD_COUNT * 4],
    [Section.KeyOff, keyTable.off.byteLength],
    [Section.KeyBytes, keyTable.bytes.byteLength],
    [Section.KeyDoc, keyTable.docs.byteLength],
    [Section.LabelOff, labelTable.off.byteLength],
    [Section.LabelBytes, labelTable.bytes.byteLength],
    [Section.LabelDoc, labelTable.docs.byteLength],
    [Section.Scan, plan.scan.byteLength],
    [Section.Watch, plan.watch.byteLength],
    [Section.Files, plan.files.byteLength],
    [Section.CandDoc, plan.candDoc.byteLength],
    [Section.Paths, plan.paths.byteLength],
    [Section.Blob, blobLen],
    [Section.Post, postCap * 4],
  ];
  let cap = align8(HEADER_BYTES + SECTION_COUNT * 8);
  for (const [, len] of sizes) cap = align8(cap + len);
  cap +=
    align8((termCap + 1) * 4) +
    align8((prev ? prev.terms.bytes.length : 0) + freshBytes) +
    align8(termCap * TERM_STRIDE * 4) +
    metaCap;
  if (cap > 0xffff_ffff) throw new Error("snapshot larger than 4 GiB");
  const out = Buffer.allocUnsafeSlow(cap) as Uint8Array;
  const offsets = new Uint32Array(SECTION_COUNT);
  const lengths = new Uint32Array(SECTION_COUNT);
  let pos = align8(HEADER_BYTES + SECTION_COUNT * 8);
  out.fill(0, 0, pos);
  const place = (sec: Section, len: number): number => {
    offsets[sec] = pos;
    lengths[sec] = len;
    const at = pos;
    pos = align8(pos + len);
    out.fill(0, at + len, pos);
    return at;
  };
  const put = (sec: Section, v: ArrayBufferView) =>
    out.set(new Uint8Array(v.buffer, v.byteOffset, v.byteLength), place(sec, v.byteLength));
  const u32At = (at: number, len: number) => new Uint32Array(out.buffer, out.byteOffset + at, len);

  // Documents: rows, field lengths; JSON and ident strings straight into BLOB.
  const docs = u32At(place(Section.Docs, n * DOC_STRIDE * 4), n * DOC_STRIDE);
  const lens = new Uint32Array(n * FIELD_COUNT);
  const normsAt = place(Section.Norms, n * FIELD_COUNT * 4);
  const norms = new Float32Array(out.buffer, out.byteOffset + normsAt, n * FIELD_COUNT);
  put(Section.KeyOff, keyTable.off);
  put(Section.KeyBytes, keyTable.bytes);
  put(Section.KeyDoc, keyTable.docs);
  put(Section.LabelOff, labelTable.off);
  put(Section.LabelBytes, labelTable.bytes);
  put(Section.LabelDoc, labelTable.docs);
  put(Section.Scan, plan.scan);
  put(Section.Watch, plan.watch);
  put(Section.Files, plan.files);
  put(Section.CandDoc, plan.candDoc);
  put(Section.Paths, plan.paths);
  const blobAt = place(Section.Blob, blobLen);
  let blobPos = 0;
  const pb = prev ? prev.blob : new Uint8Array(0);
  // Reused documents keep their JSON and ident bytes; runs contiguous in the old blob (the usual
  // case: this builder writes each ident right after its JSON, documents in order) are copied at once.
  let runFrom = 0;
  let runTo = 0;
  const flush = () => {
    if (runTo > runFrom) out.set(pb.subarray(runFrom, runTo), blobAt + blobPos);
    blobPos += runTo - runFrom;
    runFrom = runTo = 0;
  };
  for (let i = 0; i < nReused; i++) {
    const o = plan.reused[i]!.old * DOC_STRIDE;
    const d = i * DOC_STRIDE;
    const from = pd[o]!;
    const jsonLen = pd[o + 1]!;
    const identAt = pd[o + 2]!;
    const identLen = pd[o + 3]!;
    if (identAt === from + jsonLen) {
      if (from !== runTo || runTo === runFrom) {
        flush();
        runFrom = runTo = from;
      }
      docs[d] = blobPos + (from - runFrom);
      runTo = identAt + identLen;
    } else {
      // Not laid out by this builder: copy the two parts apart.
      flush();
      docs[d] = blobPos;
      out.set(pb.subarray(from, from + jsonLen), blobAt + blobPos);
      out.set(pb.subarray(identAt, identAt + identLen), blobAt + blobPos + jsonLen);
      blobPos += jsonLen + identLen;
    }
    docs[d + 1] = jsonLen;
    docs[d + 2] = docs[d]! + jsonLen;
    docs[d + 3] = identLen;
    docs[d + 4] = flags[i]!;
    docs[d + 5] = pd[o + 5]!;
    docs[d + 6] = pd[o + 6]!;
    const l = i * FIELD_COUNT;
    lens[l] = pd[o + 5]! & 0xffff;
    lens[l + 1] = pd[o + 5]! >>> 16;
    lens[l + 2] = pd[o + 6]! & 0xffff;
    lens[l + 3] = pd[o + 6]! >>> 16;
  }
  flush();
  for (let j = 0; j < nFresh; j++) {
    const i = nReused + j;
    const x = plan.fresh[j]!;
    const json = freshJson[j]!;
    const ident = freshIdent[j]!;
    const d = i * DOC_STRIDE;
    docs[d] = blobPos;
    docs[d + 1] = json.length;
    docs[d + 2] = blobPos + json.length;
    docs[d + 3] = ident.length;
    out.set(json, blobAt + blobPos);
    out.set(ident, blobAt + blobPos + json.length);
    blobPos += json.length + ident.length;
    const l = x.doc.fields.map((t) => Math.min(t.length, 0xffff));
    docs[d + 4] = flags[i]!;
    docs[d + 5] = l[0]! | (l[1]! << 16);
    docs[d + 6] = l[2]! | (l[3]! << 16);
    for (let f = 0; f < l.length; f++) lens[i * FIELD_COUNT + f] = l[f]!;
  }

  // Norms: 1 / (1 - b + b * len / avg) per document and field.
  const avg = new Array<number>(FIELD_COUNT).fill(0);
  for (let i = 0; i < n; i++) for (let f = 0; f < FIELD_COUNT; f++) avg[f]! += lens[i * FIELD_COUNT + f]!;
  for (let f = 0; f < FIELD_COUNT; f++) avg[f] = n === 0 ? 1 : Math.max(1, avg[f]! / n);
  for (let i = 0; i < n; i++)
    for (let f = 0; f < FIELD_COUNT; f++) {
      const b = SCORING.b[f]!;
      norms[i * FIELD_COUNT + f] = 1 / (1 - b + (b * lens[i * FIELD_COUNT + f]!) / avg[f]!);
    }

  // Key ranks: position in the effective key index.
  for (let i = 0; i < n; i++) docs[i * DOC_STRIDE + 7] = 0xffffffff;
  for (let rank = 0; rank < keyTable.docs.length; rank++) docs[keyTable.docs[rank]! * DOC_STRIDE + 7] = rank;

  // Merge the old dictionary (already in byte order) with the fresh one, postings written in place.
  // df: an old term keeps its count less its dropped documents (counted once each); fresh
  // documents are new ids, counted apart.
  const postAt = pos;
  const post = u32At(postAt, postCap);
  let postLen = 0;
  const termBytes = new Bytes((prev ? prev.terms.bytes.length : 0) + freshBytes);
  const termOff = new Uint32Array(termCap + 1);
  const termInfo = new Uint32Array(termCap * TERM_STRIDE);
  const stamp = new Int32Array(n);
  const dropStamp = new Int32Array(oldCount);
  // Hoisted: the loop below touches every posting of the previous snapshot.
  const oldPost = prev ? prev.post : new Uint32Array(0);
  const oldInfo = prev ? prev.termInfo : new Uint32Array(0);
  let oi = 0;
  let fi = 0;
  let outTerm = 0;
  // Stamps are per merged term (a dropped term does not advance outTerm).
  let iter = 0;
  // Where the next fresh term falls in the old dictionary (one binary search per fresh term, not
  // a comparison per old term), and whether it is that old term.
  let freshAt = -1;
  let freshSame = false;
  const seekFresh = () => {
    if (fi >= fresh.length || !prev) return;
    freshAt = prev.terms.lowerBound(fresh[fi]!.b);
    freshSame = freshAt < oldTerms && prev.terms.compare(fresh[fi]!.b, freshAt) === 0;
  };
  seekFresh();
  while (oi < oldTerms || fi < fresh.length) {
    iter++;
    let cmp: number;
    if (oi >= oldTerms) cmp = 1;
    else if (fi >= fresh.length) cmp = -1;
    else cmp = oi < freshAt ? -1 : freshSame ? 0 : 1;
    const fromOld = cmp <= 0 ? oi++ : -1;
    const fromFresh = cmp >= 0 ? fresh[fi++]! : null;
    if (fromFresh) seekFresh();
    const info = outTerm * TERM_STRIDE;
    const termStart = postLen;
    let df = fromOld >= 0 ? oldInfo[fromOld * TERM_STRIDE]! : 0;
    for (let f = 0; f < FIELD_COUNT; f++) {
      const start = postLen;
      if (fromOld >= 0) {
        const s = oldInfo[fromOld * TERM_STRIDE + 1 + 2 * f]!;
        const e = s + oldInfo[fromOld * TERM_STRIDE + 2 + 2 * f]!;
        for (let p = s; p < e; p++) {
          const v = oldPost[p]!;
          const old = v >>> 8;
          const d = oldToNew[old]!;
          if (d >= 0) post[postLen++] = (d << 8) | (v & 0xff);
          else if (dropStamp[old] !== iter) {
            dropStamp[old] = iter;
            df--;
          }
        }
      }
      if (fromFresh)
        for (const v of fromFresh.lists[f]!) {
          post[postLen++] = v;
          const d = v >>> 8;
          if (stamp[d] !== iter) {
            stamp[d] = iter;
            df++;
          }
        }
      termInfo[info + 1 + 2 * f] = start;
      termInfo[info + 2 + 2 * f] = postLen - start;
    }
    if (df <= 0) {
      postLen = termStart;
      continue;
    }
    termInfo[info] = df;
    if (fromOld >= 0) termBytes.pushRange(prev!.terms.bytes, prev!.terms.off[fromOld]!, prev!.terms.off[fromOld + 1]!);
    else termBytes.push(fromFresh!.b);
    termOff[++outTerm] = termBytes.len;
  }
  offsets[Section.Post] = postAt;
  lengths[Section.Post] = postLen * 4;
  pos = align8(postAt + postLen * 4);
  out.fill(0, postAt + postLen * 4, pos);
  put(Section.TermOff, termOff.subarray(0, outTerm + 1));
  put(Section.TermBytes, termBytes.bytes);
  put(Section.TermInfo, termInfo.subarray(0, outTerm * TERM_STRIDE));
  const meta: SnapshotMeta = { docs: n, terms: outTerm, avg };
  const metaBytes = utf8(JSON.stringify(meta));
  if (metaBytes.length > metaCap) throw new Error("snapshot meta too large");
  put(Section.Meta, metaBytes);
  const end = pos;

  // Header and section table.
  const view = new DataView(out.buffer, out.byteOffset, end);
  out.set(utf8(SNAPSHOT_MAGIC), 0);
  out[7] = SNAPSHOT_VERSION;
  out.set(plan.identity, 8);
  view.setUint32(40, end, true);
  view.setUint32(44, SECTION_COUNT, true);
  for (let i = 0; i < SECTION_COUNT; i++) {
    view.setUint32(HEADER_BYTES + i * 8, offsets[i]!, true);
    view.setUint32(HEADER_BYTES + i * 8 + 4, lengths[i]!, true);
  }
  return out.subarray(0, end);
}
