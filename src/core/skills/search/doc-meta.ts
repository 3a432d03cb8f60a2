/**
 * @module skills/search/doc-meta
 * The per-skill listing fields a snapshot stores (builder.ts `DocMeta`), validated on the way
 * out, and the catalog record rebuilt from them without reading SKILL.md.
 */
import { Type } from "@sinclair/typebox";
import { isValid } from "../../schema/check.ts";
import { Manifest } from "../../schema/manifest.ts";
import type { ValidRecord } from "../load.ts";
import type { SkillCandidate } from "../scan.ts";
import type { DocMeta } from "./builder.ts";
import type { Snapshot } from "./format.ts";

export const DocMetaSchema = Type.Object({
  key: Type.String(),
  root: Type.Integer({ minimum: 0 }),
  path: Type.String(),
  real_path: Type.String(),
  skill_file: Type.String(),
  category: Type.Union([Type.String(), Type.Null()]),
  fingerprint: Type.String(),
  content_hash: Type.String(),
  manifest: Manifest,
});

/** A document's validated listing fields, or null when the bytes are not what we wrote. */
export function docMeta(snap: Snapshot, doc: number, valid: (v: unknown) => boolean = (v) => isValid(DocMetaSchema, v)): DocMeta | null {
  let raw: unknown;
  try {
    raw = snap.docJson(doc);
  } catch {
    return null;
  }
  return valid(raw) ? (raw as DocMeta) : null;
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
