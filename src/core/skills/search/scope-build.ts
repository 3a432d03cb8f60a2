/**
 * @module skills/search/scope-build
 * Turns a scope's candidates into snapshot bytes: unchanged skills are reused, the rest are loaded
 * and tokenised. The effective document of a key is its first valid candidate in precedence order
 * (skills.md §2.1). Runs in the snapshot worker or in-process.
 *
 * "Unchanged": when the scan is the one the previous snapshot was built from (the stats-only
 * identity check reuses it), candidate i is the same directory as then, and its SKILL.md stats are
 * compared as numbers with the previous snapshot's FILES row: equal stats reuse its document, or
 * skip a file that loaded as invalid. Otherwise a candidate is unchanged when its ident (SKILL.md
 * path, stat fingerprint, real path, key) equals a previous document's.
 */
import { loadCandidate } from "../load.ts";
import type { SkillRoot } from "../roots.ts";
import type { SkillCandidate } from "../scan.ts";
import { buildSnapshot, type BuildPlan } from "./builder.ts";
import { freshDoc, identOf, type FreshDoc, type TokenMemo } from "./search-doc.ts";
import { FILE_STRIDE, type Snapshot } from "./format.ts";
import { STAT_FIELDS, type StatTable } from "./stat-many.ts";

export interface ScopeBuildInput {
  roots: readonly SkillRoot[];
  candidates: readonly SkillCandidate[];
  /** Fingerprint per candidate (load.ts `fingerprintOf`, "" when missing); a function to compute them only if needed. */
  fingerprints: readonly string[] | (() => readonly string[]);
  /** The candidates' SKILL.md stats (stat-many.ts layout); rebuilt from `fingerprints` when absent. */
  files?: StatTable;
  identity: Uint8Array;
  scan: Uint8Array;
  watch: Float64Array;
  /** PATHS (identity.ts `statPaths`). */
  paths: Uint8Array;
  previous: Snapshot | null;
}

export interface ScopeBuildResult {
  bytes: Uint8Array;
  reused: number;
  loaded: number;
}

const BATCH = 64;

/** FILES rows (format.ts) of a stat table. */
export function fileRows(files: StatTable): Float64Array {
  const n = files.length / STAT_FIELDS;
  const out = new Float64Array(n * FILE_STRIDE);
  for (let i = 0; i < n; i++)
    for (let k = 0; k < FILE_STRIDE; k++) out[i * FILE_STRIDE + k] = files[i * STAT_FIELDS + k]!;
  return out;
}

/** FILES rows from `size:mtime:ctime:ino:dev` fingerprints ("" for a missing file). */
function rowsOfFingerprints(fps: readonly string[]): Float64Array {
  const out = new Float64Array(fps.length * FILE_STRIDE).fill(-1);
  fps.forEach((fp, i) => {
    if (fp === "") return;
    const parts = fp.split(":");
    // NaN never compares equal: a fingerprint of another shape always reloads.
    for (let k = 0; k < FILE_STRIDE; k++)
      out[i * FILE_STRIDE + k] = parts.length === FILE_STRIDE ? Number(parts[k]) : Number.NaN;
  });
  return out;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return (
    a === b ||
    (a.length === b.length &&
      Buffer.from(a.buffer, a.byteOffset, a.length).equals(Buffer.from(b.buffer, b.byteOffset, b.length)))
  );
}

/** Reuse marks for the candidates: a previous document, UNCHANGED_INVALID, or LOAD. */
const LOAD = -2;
const UNCHANGED_INVALID = -1;

/**
 * Per candidate, what the previous snapshot offers (LOAD, UNCHANGED_INVALID or a document), by the
 * numeric comparison when the scan is the same; null when only idents can tell.
 */
function reuseByStats(scan: Uint8Array, rows: Float64Array, previous: Snapshot | null): Int32Array | null {
  if (!previous) return null;
  const count = rows.length / FILE_STRIDE;
  const prevRows = previous.files;
  const prevDoc = previous.candDoc;
  if (prevDoc.length !== count || prevRows.length !== rows.length || !sameBytes(scan, previous.scan)) return null;
  const docCount = previous.docCount;
  const out = new Int32Array(count);
  for (let i = 0; i < count; i++) {
    let same = true;
    for (let k = i * FILE_STRIDE, e = k + FILE_STRIDE; k < e; k++)
      if (rows[k] !== prevRows[k]) {
        same = false;
        break;
      }
    const d = prevDoc[i]!;
    out[i] = !same || d < -1 || d >= docCount ? LOAD : d;
  }
  return out;
}

/** How many candidates a build would have to load (the rest are reused or known invalid). */
export function pendingLoads(
  scan: Uint8Array,
  files: StatTable,
  candidates: () => readonly SkillCandidate[],
  fingerprints: () => readonly string[],
  previous: Snapshot | null,
): number {
  const marks = reuseByStats(scan, fileRows(files), previous);
  if (marks) return marks.reduce((n, m) => (m === LOAD ? n + 1 : n), 0);
  const idents = previousIdents(previous);
  const fps = fingerprints();
  let n = 0;
  candidates().forEach((c, i) => {
    if (!idents.has(identOf(c.skillFile, fps[i]!, c.realPath, c.key))) n++;
  });
  return n;
}

/** ident -> document of a snapshot, built once per snapshot (pendingLoads and buildScope share it). */
const identIndexes = new WeakMap<Snapshot, Map<string, number>>();

function previousIdents(previous: Snapshot | null): Map<string, number> {
  if (!previous) return new Map();
  let m = identIndexes.get(previous);
  if (!m) {
    m = new Map();
    for (let d = 0; d < previous.docCount; d++) m.set(previous.docIdent(d), d);
    identIndexes.set(previous, m);
  }
  return m;
}

type Slot = { kind: "reuse"; old: number; key: string } | { kind: "fresh"; doc: FreshDoc } | null;

export async function buildScope(input: ScopeBuildInput): Promise<ScopeBuildResult> {
  const { candidates, previous } = input;
  const fingerprints = () => (typeof input.fingerprints === "function" ? input.fingerprints() : input.fingerprints);
  const rows = input.files ? fileRows(input.files) : rowsOfFingerprints(fingerprints());
  const marks = reuseByStats(input.scan, rows, previous);
  const slots: Slot[] = new Array<Slot>(candidates.length).fill(null);
  const toLoad: number[] = [];
  if (marks)
    candidates.forEach((c, i) => {
      const m = marks[i]!;
      if (m >= 0) slots[i] = { kind: "reuse", old: m, key: c.key };
      else if (m === LOAD) toLoad.push(i);
    });
  else {
    const idents = previousIdents(previous);
    const fps = fingerprints();
    candidates.forEach((c, i) => {
      const old = idents.get(identOf(c.skillFile, fps[i]!, c.realPath, c.key));
      if (old !== undefined) slots[i] = { kind: "reuse", old, key: c.key };
      else toLoad.push(i);
    });
  }
  const memo: TokenMemo = new Map();
  for (let b = 0; b < toLoad.length; b += BATCH) {
    const batch = toLoad.slice(b, b + BATCH);
    const recs = await Promise.all(batch.map((i) => loadCandidate(candidates[i]!)));
    recs.forEach((rec, j) => {
      if (rec.valid)
        slots[batch[j]!] = {
          kind: "fresh",
          doc: freshDoc(rec, Math.max(0, input.roots.indexOf(rec.candidate.root)), memo),
        };
    });
  }
  const seen = new Set<string>();
  const reused: { old: number; key: string; effective: boolean; cand: number }[] = [];
  const fresh: { doc: FreshDoc; effective: boolean }[] = [];
  const freshCand: number[] = [];
  slots.forEach((s, i) => {
    if (!s) return;
    const key = s.kind === "reuse" ? s.key : s.doc.meta.key;
    const effective = !seen.has(key);
    seen.add(key);
    if (s.kind === "reuse") reused.push({ old: s.old, key, effective, cand: i });
    else {
      fresh.push({ doc: s.doc, effective });
      freshCand.push(i);
    }
  });
  reused.sort((a, b) => a.old - b.old);
  // Each candidate's new document: reused ones by their place in old-id order, then fresh ones.
  const candDoc = new Int32Array(candidates.length).fill(UNCHANGED_INVALID);
  for (let i = 0; i < reused.length; i++) candDoc[reused[i]!.cand] = i;
  for (let j = 0; j < freshCand.length; j++) candDoc[freshCand[j]!] = reused.length + j;
  const plan: BuildPlan = {
    identity: input.identity,
    scan: input.scan,
    watch: input.watch,
    files: rows,
    candDoc,
    paths: input.paths,
    previous,
    reused,
    fresh,
  };
  return { bytes: buildSnapshot(plan), reused: reused.length, loaded: toLoad.length };
}
