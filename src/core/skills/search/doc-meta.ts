/**
 * @module skills/search/doc-meta
 * The per-skill listing fields a snapshot stores (search-doc.ts `DocMeta`), validated on the way
 * out, and the catalog record rebuilt from them without reading SKILL.md.
 */
import { generatedCheck } from "../../schema/generated.ts";
import { checkCode } from "../../schema/generated.macro.ts" with { type: "macro" };
import type { ValidRecord } from "../load.ts";
import type { SkillCandidate } from "../scan.ts";
import type { DocMeta } from "./search-doc.ts";
import type { Snapshot } from "./format.ts";

/** schema/doc-meta.ts `DocMetaSchema`, compiled at bundle time. */
export const isDocMeta = generatedCheck(checkCode("DocMeta"));

/** A document's validated listing fields, or null when the bytes are not what we wrote. */
export function docMeta(snap: Snapshot, doc: number): DocMeta | null {
  let raw: unknown;
  try {
    raw = snap.docJson(doc);
  } catch {
    return null;
  }
  return isDocMeta(raw) ? (raw as DocMeta) : null;
}

/** The catalog record of a stored document; the body is not kept (listings never need it). */
export function recordFromMeta(m: DocMeta, candidate: SkillCandidate): ValidRecord {
  return {
    valid: true,
    candidate,
    fingerprint: m.fingerprint,
    manifest: m.manifest,
    warnings: [],
    contentHash: m.content_hash,
    frontmatter: "yaml",
    bodyExcerpt: "",
    bodyChars: 0,
    bodyBlank: false,
    bodyStartLine: 1,
  };
}
