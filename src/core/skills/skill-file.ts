/**
 * @module skills/skill-file
 * The one reader of a SKILL.md (skills.md §2.2, §4): a link kept inside the skill directory
 * (else `symlink_escape`, nothing read) → regular file → size cap → bounded read →
 * content hash → strict UTF-8 → frontmatter parse → normalise → validate. The catalog (load.ts),
 * lint, the audit's lint rule (audit/lint-bridge.ts) and, through the catalog, the search
 * snapshot builder all read SKILL.md here, so a file means the same thing to each of them.
 * Never throws: every failure is a code of skills.md §2.3 / §15.1 and its message.
 */
import { lstatSync, realpathSync } from "node:fs";
import { dirname } from "node:path";
import { sha256Hex } from "../hash.ts";
import { isInside } from "../paths.ts";
import type { Manifest } from "../schema/manifest.ts";
import { decodeUtf8, MAX_SKILL_FILE_BYTES, parseSkillText, type FrontmatterKind } from "./frontmatter.ts";
import { buildManifest, type ManifestWarning } from "./manifest.ts";
import { MSG } from "./messages.ts";
import { readRegularFile } from "../fsx/regular-file.ts";

/** Why a SKILL.md gives no manifest; `missing_skill_file` only when reading by path. */
export type SkillFileCode =
  | "missing_skill_file"
  | "skill_file_unreadable"
  | "file_too_large"
  | "invalid_utf8"
  | "parse_error"
  | "invalid_manifest"
  | "symlink_escape";

/** A SKILL.md that parsed and validated. */
export interface SkillFileOk {
  ok: true;
  /** sha256 hex of the file's bytes (the entry's `content_hash`). */
  contentHash: string;
  /** The decoded text, BOM dropped. */
  text: string;
  frontmatter: FrontmatterKind;
  /** The frontmatter's text between its fences ("" without one). */
  header: string;
  body: string;
  /** 1-based line of the file where the body starts. */
  bodyStartLine: number;
  manifest: Manifest;
  /** Normalisation repairs (skills.md §4.3), each a lint issue. */
  warnings: ManifestWarning[];
  /** The normalised mapping, unknown keys included. */
  raw: Record<string, unknown>;
}

/** A SKILL.md that could not be read, decoded, parsed or validated. */
export interface SkillFileFailed {
  ok: false;
  code: SkillFileCode;
  message: string;
  /** Hash of the bytes when they could be read, else null. */
  contentHash: string | null;
  /** For `invalid_manifest`: the frontmatter text and the repairs made before validation failed. */
  header: string;
  warnings: ManifestWarning[];
}

/** What reading a SKILL.md gives. */
export type SkillFile = SkillFileOk | SkillFileFailed;

const failed = (code: SkillFileCode, message: string, contentHash: string | null = null): SkillFileFailed => ({
  ok: false,
  code,
  message,
  contentHash,
  header: "",
  warnings: [],
});

const errnoOf = (err: unknown): string =>
  err instanceof Error && "code" in err && typeof err.code === "string" ? err.code : "error";

/**
 * The path to read for `file`: itself, or the target of a SKILL.md symlink when that resolves inside
 * the skill's real directory (skills.md §2.2). An escaping link is refused before a byte is read, so
 * no caller can echo an outside file's name, references or parse error.
 */
function containedPath(file: string, skillDir: string | undefined): string | SkillFileFailed {
  let link: boolean;
  try {
    link = lstatSync(file).isSymbolicLink();
  } catch (err) {
    const errno = errnoOf(err);
    if (errno === "ENOENT" || errno === "ENOTDIR") return file;
    return failed("skill_file_unreadable", MSG.unreadable(errno));
  }
  if (!link) return file;
  try {
    const target = realpathSync(file);
    const dir = skillDir ?? realpathSync(dirname(file));
    return isInside(target, dir) ? target : failed("symlink_escape", MSG.symlinkEscape);
  } catch (err) {
    return failed("skill_file_unreadable", MSG.unreadable(errnoOf(err)));
  }
}

/**
 * Reads and parses the SKILL.md at `file`. A symlink is followed only within `skillDir` (the skill
 * directory's real path; default: that of the file's directory); a FIFO or device is refused, never read.
 */
export async function readSkillFile(file: string, skillDir?: string): Promise<SkillFile> {
  const path = containedPath(file, skillDir);
  if (typeof path !== "string") return path;
  const read = readRegularFile(path, MAX_SKILL_FILE_BYTES);
  if (read.ok) return parseSkillBytes(read.bytes);
  if (read.problem === "missing") return failed("missing_skill_file", MSG.lintNoSkillFile);
  if (read.problem === "too_large") return failed("file_too_large", MSG.fileTooLarge);
  if (read.problem === "not_regular") return failed("skill_file_unreadable", MSG.notRegular);
  return failed("skill_file_unreadable", MSG.unreadable(read.errno ?? "error"));
}

/** The first steps alone: size cap, content hash, strict UTF-8 (for checks that need no manifest). */
export function decodeSkillBytes(bytes: Uint8Array): { ok: true; contentHash: string; text: string } | SkillFileFailed {
  if (bytes.byteLength > MAX_SKILL_FILE_BYTES) return failed("file_too_large", MSG.fileTooLarge);
  const hash = sha256Hex(bytes);
  const text = decodeUtf8(bytes);
  if (text === null) return failed("invalid_utf8", MSG.invalidUtf8, hash);
  return { ok: true, contentHash: hash, text };
}

/** Parses SKILL.md bytes already read (the audit reads each bundle file once). */
export async function parseSkillBytes(bytes: Uint8Array): Promise<SkillFile> {
  const decoded = decodeSkillBytes(bytes);
  if (!decoded.ok) return decoded;
  const { contentHash: hash, text } = decoded;
  const parsed = await parseSkillText(text);
  if (!parsed.ok) return failed(parsed.code, parsed.message, hash);
  const built = buildManifest(parsed.data, parsed.header);
  if (!built.ok)
    return { ...failed("invalid_manifest", built.message, hash), header: parsed.header, warnings: built.warnings };
  return {
    ok: true,
    contentHash: hash,
    text,
    frontmatter: parsed.kind,
    header: parsed.header,
    body: parsed.body,
    bodyStartLine: parsed.bodyStartLine,
    manifest: built.manifest,
    warnings: built.warnings,
    raw: built.raw,
  };
}
