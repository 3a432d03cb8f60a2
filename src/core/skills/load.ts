/**
 * @module skills/load
 * Reads one candidate's SKILL.md into a valid or invalid record. Never throws: every failure
 * becomes an invalid record with a diagnostic code and message (skills.md §2.2, §2.3).
 */
import { statSync, type Stats } from "node:fs";
import type { Manifest } from "../schema/manifest.ts";
import type { ManifestWarning } from "./manifest.ts";
import { MSG } from "./messages.ts";
import { readSkillFile, type SkillFileCode } from "./skill-file.ts";
import { fingerprintOf } from "./fingerprint.ts";
import { keyProblem } from "./skill-key.ts";
import type { SkillCandidate } from "./scan.ts";

/** Body characters a record keeps: all that relevance may use (skills.md §7.1 rule 7). */
const BODY_EXCERPT_CHARS = 10_000;

/** Why a candidate is invalid: the reader's codes (a missing file is unreadable here) or a key no skill can have. */
export type InvalidCode = Exclude<SkillFileCode, "missing_skill_file"> | "invalid_key";

interface RecordBase {
  candidate: SkillCandidate;
  /** size:mtime:ctime:ino:dev of SKILL.md, "" when it could not be stat'ed. */
  fingerprint: string;
}

/** A candidate whose SKILL.md parsed and validated. */
export interface ValidRecord extends RecordBase {
  valid: true;
  manifest: Manifest;
  warnings: ManifestWarning[];
  contentHash: string;
  frontmatter: "yaml" | "toml" | "none";
  /** The first 10,000 characters of the body (all that relevance may use, skills.md §7.1). */
  bodyExcerpt: string;
  bodyChars: number;
  bodyBlank: boolean;
  bodyStartLine: number;
}

/** A candidate whose SKILL.md is invalid: excluded from listings, shown by check/lint/list --all. */
export interface InvalidRecord extends RecordBase {
  valid: false;
  code: InvalidCode;
  message: string;
  contentHash: string | null;
}

/** What loading one candidate gives. */
export type SkillRecord = ValidRecord | InvalidRecord;

/** The first `n` code points of `s`, without materialising the whole string as an array. */
function firstChars(s: string, n: number): string {
  if (s.length <= n) return s;
  let count = 0;
  let i = 0;
  while (i < s.length && count < n) {
    const c = s.charCodeAt(i);
    i += c >= 0xd800 && c <= 0xdbff && i + 1 < s.length ? 2 : 1;
    count++;
  }
  return s.slice(0, i);
}

function invalid(
  candidate: SkillCandidate,
  fingerprint: string,
  code: InvalidCode,
  message: string,
  hash: string | null = null,
): InvalidRecord {
  return { valid: false, candidate, fingerprint, code, message, contentHash: hash };
}

/** Stats SKILL.md (following a link); null with the reason when that fails. */
function statSkillFile(file: string): { st: Stats } | { error: string } {
  try {
    return { st: statSync(file) };
  } catch (err) {
    return { error: (err as NodeJS.ErrnoException).code ?? "error" };
  }
}

/** The record of a candidate, from `cache` while its SKILL.md fingerprint is unchanged. Never throws. */
export async function loadCandidate(candidate: SkillCandidate, cache?: Map<string, SkillRecord>): Promise<SkillRecord> {
  const file = candidate.skillFile;
  const stat = statSkillFile(file);
  if ("error" in stat) return invalid(candidate, "", "skill_file_unreadable", MSG.unreadable(stat.error));
  const fp = fingerprintOf(stat.st);
  const cached = cache?.get(file);
  if (cached && cached.fingerprint === fp && cached.candidate.realPath === candidate.realPath) {
    return cached.candidate === candidate ? cached : { ...cached, candidate };
  }
  const record = await loadFresh(candidate, fp);
  cache?.set(file, record);
  return record;
}

async function loadFresh(candidate: SkillCandidate, fp: string): Promise<SkillRecord> {
  // A key that renders like another is refused before its file is read (skill-key.ts).
  const badKey = keyProblem(candidate.key);
  if (badKey !== null) return invalid(candidate, fp, "invalid_key", MSG.keyInvalid(badKey));
  const read = await readSkillFile(candidate.skillFile, candidate.realPath);
  if (!read.ok) {
    // Scanned a moment ago: a SKILL.md gone since then is unreadable, not a directory without one.
    if (read.code === "missing_skill_file")
      return invalid(candidate, fp, "skill_file_unreadable", MSG.unreadable("ENOENT"));
    return invalid(candidate, fp, read.code, read.message, read.contentHash);
  }
  return {
    valid: true,
    candidate,
    fingerprint: fp,
    manifest: read.manifest,
    warnings: read.warnings,
    contentHash: read.contentHash,
    frontmatter: read.frontmatter,
    bodyExcerpt: firstChars(read.body, BODY_EXCERPT_CHARS),
    bodyChars: read.body.length,
    bodyBlank: read.body.trim() === "",
    bodyStartLine: read.bodyStartLine,
  };
}
