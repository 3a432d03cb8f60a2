/**
 * @module schema/doc-meta
 * The listing fields a search snapshot stores per skill (search/search-doc.ts `DocMeta`): what a
 * snapshot's JSON must look like before an Entry is rebuilt from it without reading SKILL.md.
 */
import { Type } from "@sinclair/typebox";
import { Manifest } from "./manifest.ts";

/** One DocMeta record of a snapshot. */
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
