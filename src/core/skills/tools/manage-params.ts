/**
 * @module skills/tools/manage-params
 * The arguments of `skill_manage` (skills.md §9) checked into one typed request. The caller is an
 * agent, i.e. untrusted input: every field is type-checked here, names and supporting-file paths
 * are proved unable to leave the skill directory before any file system call is made, and the
 * first problem becomes the exact message of §9.2.
 */
import type { Scope } from "../../paths.ts";

export const ACTIONS = [
  "create",
  "edit",
  "patch",
  "delete",
  "write_file",
  "remove_file",
  "pin",
  "unpin",
  "archive",
  "restore",
  "report",
] as const;

export type ManageAction = (typeof ACTIONS)[number];

/** The four folders a supporting file may live under (§9 `file_path`). */
export const FILE_DIRS = ["assets", "references", "scripts", "templates"] as const;

/** Size limits of §9: characters for both, bytes for supporting files as well. */
export const MAX_CONTENT_CHARS = 100_000;
export const MAX_FILE_BYTES = 1024 * 1024;

/** Error kinds of §9.3 `details.error`; also the `error_code` of `skill.write` events. */
export type ManageErrorKind =
  | "invalid_params"
  | "not_found"
  | "conflict"
  | "forbidden"
  | "blocked"
  | "aborted"
  | "io_error";

/** A refused call: the exact message and its kind. Thrown inside the tool, never past it. */
export class ManageError extends Error {
  constructor(
    readonly kind: ManageErrorKind,
    message: string,
  ) {
    super(message);
  }
}

const bad = (message: string) => new ManageError("invalid_params", message);

/** A checked request; fields an action does not need are left undefined. */
export interface ManageRequest {
  action: ManageAction;
  scope: Scope;
  name?: string;
  content?: string;
  filePath?: string;
  fileContent?: string;
  oldString?: string;
  newString?: string;
  replaceAll: boolean;
  staleAfterDays: number;
  archiveAfterDays: number;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** Absent for undefined and null: models often send `null` for a parameter they do not use. */
const given = (v: unknown) => v !== undefined && v !== null;

function optionalString(args: Record<string, unknown>, field: string): string | undefined {
  const v = args[field];
  if (!given(v)) return undefined;
  if (typeof v !== "string") throw bad(`${field} must be a string`);
  return v;
}

/** `replace_all`: `true`, `"true"`, `"1"`, `1` mean yes (§9); their opposites and absence mean no. */
function replaceAllOf(v: unknown): boolean {
  if (!given(v)) return false;
  if (v === true || v === "true" || v === "1" || v === 1) return true;
  if (v === false || v === "false" || v === "0" || v === 0 || v === "") return false;
  throw bad("replace_all must be true or false");
}

/** A positive integer or an integer string (§9: report only), else the default. */
function daysOf(v: unknown, field: string, fallback: number): number {
  if (!given(v)) return fallback;
  const n = typeof v === "string" && /^\s*\d+\s*$/.test(v) ? Number(v) : v;
  if (typeof n !== "number" || !Number.isSafeInteger(n) || n <= 0) throw bad(`${field} must be a positive integer`);
  return n;
}

const BIDI = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/u;
const CONTROL = /[\u0000-\u001F\u007F-\u009F]/u;
/** Zero-width and tag characters (§6.1): in a path segment they make `.\u200b.` look like `..`. */
const INVISIBLE = /[\u200B-\u200D\u2060\uFEFF\u{E0000}-\u{E007F}]/u;
const CREATE_NAME = /^[a-z0-9][a-z0-9._-]*$/;

/** A `create` name (§9): lower-case letters, digits, `.`, `_`, `-`, at most 64 characters. */
export function checkCreateName(name: string): void {
  if (!CREATE_NAME.test(name) || !discoverable(name)) throw bad(`invalid skill name '${shown(name)}'`);
  if (name.length > 64) throw bad("name exceeds 64 characters");
}

/**
 * Whether discovery could ever list a directory of this name (scan.ts skips dot names and tool
 * caches). Lemon's own staging, trash and lock directories are dot names, so no action can reach
 * them by name: an agent cannot write into another writer's lock or delete its stage.
 */
export function discoverable(name: string): boolean {
  return !name.startsWith(".") && name !== "node_modules" && name !== "__pycache__";
}

/**
 * A safe key (§9): 1–128 bytes, no separator, not `.`/`..`, no control or bidi characters, and
 * well-formed (a lone surrogate has no UTF-8 spelling, so it would name a different directory).
 */
export function checkSafeKey(name: string): void {
  const ok =
    name !== "" &&
    Buffer.byteLength(name, "utf8") <= 128 &&
    !name.includes("/") &&
    !name.includes("\\") &&
    name !== "." &&
    name !== ".." &&
    !CONTROL.test(name) &&
    !BIDI.test(name) &&
    name.isWellFormed();
  if (!ok) throw bad(`invalid skill name '${shown(name)}'`);
}

/** A name as a message quotes it: clamped, controls escaped so the one-line message stays one line. */
export function shown(name: string): string {
  const clipped = name.length > 200 ? `${name.slice(0, 200)}…` : name;
  return clipped.replace(
    /[\u0000-\u001F\u007F-\u009F\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/gu,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

const TRAVERSAL = "file_path must be a relative path without '..'";
/** install.md §7.1's path limit, and the longest name a file system takes. */
const MAX_FILE_PATH_BYTES = 512;
const MAX_SEGMENT_BYTES = 255;
/** Separators, NUL, and the slashes NFKC leaves alone but a reader takes for one (∕ ⁄ ⧸ ⧹ ﹨). */
const SEPARATOR_LIKE = /[/\\\0\u2215\u2044\u29F8\u29F9\uFE68]/u;

/** What a segment could mean to a layer that decodes it (a web UI, a later `skill://` read). */
function decodedForms(segment: string): string[] {
  const forms = [segment, segment.normalize("NFC"), segment.normalize("NFKC")];
  try {
    forms.push(decodeURIComponent(segment));
  } catch {
    // Not valid percent-encoding: taken literally, and the literal form is checked above.
  }
  return forms;
}

/**
 * A supporting file's path (§9): relative, `/`-separated, no `..`, no backslash, no NUL, under
 * one of FILE_DIRS with a file name below it. Beyond the letter of §9, a segment that becomes
 * `..` or a separator once percent-decoded or Unicode-normalised (`%2e%2e`, `．．`, `∕`) is refused
 * too, as are empty and `.` segments and control or bidi characters: such a path is never what
 * an honest caller meant, and a later reader that decodes it must not find a way out.
 */
export function checkFilePath(raw: string): string {
  // Bounded before anything echoes it or the file system sees it (no ENAMETOOLONG with a stage path).
  if (Buffer.byteLength(raw, "utf8") > MAX_FILE_PATH_BYTES) throw bad(`file_path exceeds ${MAX_FILE_PATH_BYTES} bytes`);
  if (raw.includes("\0") || raw.includes("\\") || raw.startsWith("/") || /^[A-Za-z]:/.test(raw)) throw bad(TRAVERSAL);
  const segments = raw.split("/");
  for (const segment of segments) {
    if (
      segment === "" ||
      segment === "." ||
      CONTROL.test(segment) ||
      BIDI.test(segment) ||
      INVISIBLE.test(segment) ||
      !segment.isWellFormed()
    )
      throw bad(TRAVERSAL);
    if (Buffer.byteLength(segment, "utf8") > MAX_SEGMENT_BYTES)
      throw bad(`file_path segment exceeds ${MAX_SEGMENT_BYTES} bytes`);
    for (const form of decodedForms(segment)) {
      if (form === ".." || form === "." || SEPARATOR_LIKE.test(form) || form.trim() === "..") throw bad(TRAVERSAL);
    }
  }
  if (segments.length < 2 || !(FILE_DIRS as readonly string[]).includes(segments[0]!))
    throw bad(`file_path must be under one of: ${FILE_DIRS.join(", ")}`);
  return segments.join("/");
}

const NEEDS_NAME = new Set<ManageAction>(ACTIONS.filter((a) => a !== "report"));

/** The request of `args`, or the ManageError of its first problem (§9.2 order: action, scope, name, then fields). */
export function parseRequest(args: unknown): ManageRequest {
  if (!isRecord(args)) throw bad("parameters must be a JSON object");
  const a = args.action;
  if (!given(a) || a === "") throw bad("action is required");
  if (typeof a !== "string" || !(ACTIONS as readonly string[]).includes(a))
    throw bad(`unknown action '${shown(String(a))}'; expected one of: ${ACTIONS.join(", ")}`);
  const action = a as ManageAction;
  const s = args.scope;
  if (given(s) && s !== "project" && s !== "global") throw bad("scope must be 'project' or 'global'");
  const scope: Scope = s === "global" ? "global" : "project";
  const req: ManageRequest = {
    action,
    scope,
    replaceAll: false,
    staleAfterDays: 30,
    archiveAfterDays: 90,
  };
  if (action === "report") {
    req.staleAfterDays = daysOf(args.stale_after_days, "stale_after_days", 30);
    req.archiveAfterDays = daysOf(args.archive_after_days, "archive_after_days", 90);
    return req;
  }
  if (NEEDS_NAME.has(action)) {
    const n = args.name;
    if (!given(n) || n === "") throw bad("name is required");
    if (typeof n !== "string") throw bad("name must be a string");
    if (action === "create") checkCreateName(n);
    else checkSafeKey(n);
    req.name = n;
  }
  if (action === "create" || action === "edit") req.content = requiredContent(args);
  if (action === "patch") {
    const oldString = optionalString(args, "old_string");
    if (oldString === undefined || oldString === "") throw bad("old_string is required");
    const newString = optionalString(args, "new_string");
    if (newString === undefined) throw bad("new_string is required");
    req.oldString = oldString;
    req.newString = newString;
    req.replaceAll = replaceAllOf(args.replace_all);
    const fp = optionalString(args, "file_path");
    if (fp !== undefined && fp !== "") req.filePath = checkFilePath(fp);
  }
  if (action === "write_file" || action === "remove_file") {
    const fp = optionalString(args, "file_path");
    if (fp === undefined || fp === "") throw bad("file_path is required");
    req.filePath = checkFilePath(fp);
  }
  if (action === "write_file") {
    const fc = optionalString(args, "file_content");
    if (fc === undefined) throw bad("file_content is required");
    checkFileContent(fc);
    req.fileContent = fc;
  }
  return req;
}

function requiredContent(args: Record<string, unknown>): string {
  const c = optionalString(args, "content");
  if (c === undefined || c === "") throw bad("content is required");
  return c;
}

/** Code points, the unit of every character limit (skills.md preamble). */
export function charLength(s: string): number {
  if (s.length <= MAX_CONTENT_CHARS) return s.length; // UTF-16 units bound code points from above
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/** Text a file can hold: well-formed Unicode (so it has a UTF-8 spelling) and no NUL (the audit's binary test). */
export function isText(s: string): boolean {
  return s.isWellFormed() && !s.includes("\0");
}

/** A supporting file's new text (§9 sizes): at most 100,000 characters and 1 MiB, and text. */
export function checkFileContent(text: string): void {
  if (charLength(text) > MAX_CONTENT_CHARS) throw bad(`file_content exceeds ${MAX_CONTENT_CHARS} characters`);
  if (Buffer.byteLength(text, "utf8") > MAX_FILE_BYTES) throw bad(`file_content exceeds ${MAX_FILE_BYTES} bytes`);
  if (!isText(text)) throw bad("file_content must be UTF-8 text");
}
