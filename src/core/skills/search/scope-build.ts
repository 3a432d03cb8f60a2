/**
 * @module skills/search/scope-build
 * Turns a scope's candidates into snapshot bytes: unchanged skills (same SKILL.md path, stat
 * fingerprint, real path and key as a document of the previous snapshot) are reused, the rest are
 * loaded and tokenised. The effective document of a key is its first valid candidate in
 * precedence order (skills.md §2.1). Runs in the snapshot worker or in-process.
 */
import { loadCandidate } from "../load.ts";
import type { SkillRoot } from "../roots.ts";
import type { SkillCandidate } from "../scan.ts";
import { buildSnapshot, freshDoc, identOf, type BuildPlan, type FreshDoc, type TokenMemo } from "./builder.ts";
import type { Snapshot } from "./format.ts";

export interface ScopeBuildInput {
  roots: readonly SkillRoot[];
  candidates: readonly SkillCandidate[];
  fingerprints: readonly string[];
  identity: Uint8Array;
  scan: Uint8Array;
  watch: Float64Array;
  previous: Snapshot | null;
}

export interface ScopeBuildResult {
  bytes: Uint8Array;
  reused: number;
  loaded: number;
}

const BATCH = 64;

/** How many candidates a build would have to load (the rest are reused). */
export function pendingLoads(candidates: readonly SkillCandidate[], fingerprints: readonly string[], previous: Snapshot | null): number {
  const idents = previousIdents(previous);
  let n = 0;
  candidates.forEach((c, i) => {
    if (!idents.has(identOf(c.skillFile, fingerprints[i]!, c.realPath, c.key))) n++;
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

export async function buildScope(input: ScopeBuildInput): Promise<ScopeBuildResult> {
  const { candidates, fingerprints, previous } = input;
  const idents = previousIdents(previous);
  const slots: ({ kind: "reuse"; old: number; key: string } | { kind: "fresh"; doc: FreshDoc } | null)[] = new Array(candidates.length).fill(null);
  const toLoad: number[] = [];
  candidates.forEach((c, i) => {
    const old = idents.get(identOf(c.skillFile, fingerprints[i]!, c.realPath, c.key));
    if (old !== undefined) slots[i] = { kind: "reuse", old, key: c.key };
    else toLoad.push(i);
  });
  const memo: TokenMemo = new Map();
  for (let b = 0; b < toLoad.length; b += BATCH) {
    const batch = toLoad.slice(b, b + BATCH);
    const recs = await Promise.all(batch.map((i) => loadCandidate(candidates[i]!)));
    recs.forEach((rec, j) => {
      if (rec.valid) slots[batch[j]!] = { kind: "fresh", doc: freshDoc(rec, Math.max(0, input.roots.indexOf(rec.candidate.root)), memo) };
    });
  }
  const seen = new Set<string>();
  const plan: BuildPlan = { identity: input.identity, scan: input.scan, watch: input.watch, previous, reused: [], fresh: [] };
  for (const s of slots) {
    if (!s) continue;
    const key = s.kind === "reuse" ? s.key : s.doc.meta.key;
    const effective = !seen.has(key);
    seen.add(key);
    if (s.kind === "reuse") plan.reused.push({ old: s.old, key, effective });
    else plan.fresh.push({ doc: s.doc, effective });
  }
  plan.reused.sort((a, b) => a.old - b.old);
  return { bytes: buildSnapshot(plan), reused: plan.reused.length, loaded: toLoad.length };
}
