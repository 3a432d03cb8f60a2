/**
 * @module skills/search/search-doc
 * A skill as the search snapshot sees it: the listing fields kept to rebuild its Entry without
 * reading SKILL.md again, and its terms per field, tokenised once per distinct content.
 */
import type { Manifest } from "../../schema/manifest.ts";
import type { ValidRecord } from "../load.ts";
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
