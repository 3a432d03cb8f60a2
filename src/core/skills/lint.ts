/**
 * @module skills/lint
 * `lint` (skills.md §15.1): every problem of a skill bundle as a coded issue with severity, file
 * and line. The security audit plugs in through `audit` so lint itself stays a pure read.
 */
import { lstatSync, readdirSync, realpathSync, statSync } from "node:fs";
import { basename, isAbsolute, join, resolve } from "node:path";
import { isInside } from "../paths.ts";
import { KNOWN_FOREIGN_FIELDS, MANIFEST_FIELDS, REQUIRES_FIELDS } from "../schema/skills-data.ts";
import { charCount } from "../text.ts";
import type { ManifestWarning } from "./manifest.ts";
import { invalidParams } from "../errors.ts";
import { MSG } from "./messages.ts";
import { readSkillFile } from "./skill-file.ts";
import { holdsSkillFile, notSkillDirectory } from "./skill-dirs.ts";
import { escapeKey, keyProblem } from "./skill-key.ts";
import { enumerateBundle } from "./bundle.ts";

/** Lint issue severities (skills.md §15.1). */
export type Severity = "error" | "warn" | "info";

/** One lint finding: code, severity, message, and where (`file` relative to the skill dir, 1-based `line`). */
export interface LintIssue {
  code: string;
  severity: Severity;
  message: string;
  file: string;
  line: number;
}

/** Lint of one skill directory; `valid` = no error (no warning either under `strict`). */
export interface LintResult {
  key: string;
  path: string;
  valid: boolean;
  issues: LintIssue[];
}

/** The `lint --json` document of skills.md §15.1. */
export interface LintReport {
  ok: boolean;
  strict: boolean;
  results: LintResult[];
  summary: { skills: number; errors: number; warnings: number; infos: number };
}

/** What the audit contributes to lint: a verdict and its finding lines. */
export type LintAuditHook = (dir: string) => Promise<{ verdict: "pass" | "warn" | "block"; findings: string[] }>;

/** Recommended key spelling (lint `invalid_key`); other keys still work. */
const KEY_RE = /^[a-z0-9][a-z0-9._-]*$/;
const MAX_BODY_CHARS = 100_000;

function lineOfKey(header: string[], key: string): number {
  const i = header.findIndex((l) => l.startsWith(`${key}:`) || l.startsWith(`${key} =`) || l.startsWith(`"${key}"`));
  return i < 0 ? 1 : i + 2;
}

/** Lints one skill directory. */
export async function lintSkillDir(dir: string, opts: LintOptions = {}): Promise<LintResult> {
  const key = basename(dir);
  const issues: LintIssue[] = [];
  const add = (code: string, severity: Severity, message: string, line = 1, file = "SKILL.md") =>
    issues.push({ code, severity, message, file, line });
  const file = join(dir, "SKILL.md");
  const addWarning = (w: ManifestWarning, headerLines: string[]) => {
    const field = w.code === "description_multiline" ? "description" : w.message.split(/[ :]/)[0]!;
    add(w.code, w.code === "description_multiline" ? "info" : "warn", w.message, lineOfKey(headerLines, field));
  };
  const done = (): LintResult => {
    const valid = !issues.some((i) => i.severity === "error" || (opts.strict === true && i.severity === "warn"));
    return { key, path: dir, valid, issues };
  };

  // A name no skill can have (it would render as another key) is an error; an unusual spelling a warning.
  const badKey = keyProblem(key);
  if (badKey !== null) add("invalid_key", "error", MSG.keyInvalid(badKey), 1, ".");
  else if (!KEY_RE.test(key) || key.length > 64) add("invalid_key", "warn", MSG.lintInvalidKey(key), 1, ".");
  // The bundle's own walker (install.md §7.1): the symlinks lint names are the ones installs refuse.
  try {
    const links = (await enumerateBundle(dir)).entries.filter((e) => e.kind === "symlink").map((e) => e.rel);
    for (const link of links) add("symlink_in_bundle", "error", MSG.lintSymlink(link), 1, link);
  } catch (err) {
    // A skill directory that cannot be listed (searchable, not readable) is reported, not fatal.
    const code = err instanceof Error && "code" in err && typeof err.code === "string" ? err.code : "error";
    add("directory_unreadable", "error", MSG.lintDirUnreadable(key, code), 1, ".");
  }

  const realDir = (() => {
    try {
      return realpathSync(dir);
    } catch {
      return resolve(dir);
    }
  })();
  // The catalog's rule (skills.md §2.2): a SKILL.md link leaving the bundle is symlink_escape, never read.
  const read = await readSkillFile(file, realDir);
  if (!read.ok) {
    const where = read.code === "missing_skill_file" ? "." : "SKILL.md";
    if (read.code === "invalid_manifest") {
      const headerLines = read.header.split("\n");
      for (const w of read.warnings) addWarning(w, headerLines);
      add("invalid_manifest", "error", read.message, lineOfKey(headerLines, read.message.split(/[ .]/)[0]!));
    } else add(read.code, "error", read.message, 1, where);
    return done();
  }
  const headerLines = read.header.split("\n");
  if (read.frontmatter === "none") add("missing_frontmatter", "warn", MSG.lintNoFrontmatter);
  for (const w of read.warnings) addWarning(w, headerLines);
  const m = read.manifest;
  if (m.name === null) add("missing_name", "warn", MSG.lintNoName);
  else if (m.name !== key)
    add("name_mismatch", "info", MSG.lintNameMismatch(m.name, escapeKey(key)), lineOfKey(headerLines, "name"));
  if (m.description === null) add("missing_description", "warn", MSG.lintNoDescription);
  else if (charCount(m.description) < 20)
    add("short_description", "warn", MSG.lintShortDescription, lineOfKey(headerLines, "description"));
  for (const f of Object.keys(read.raw)) {
    if (!MANIFEST_FIELDS.has(f) && !KNOWN_FOREIGN_FIELDS.has(f) && f !== "hermes_requires")
      add("unknown_field", "info", MSG.lintUnknownField(f), lineOfKey(headerLines, f));
  }
  const requires = read.raw.requires;
  if (requires !== null && typeof requires === "object" && !Array.isArray(requires)) {
    for (const f of Object.keys(requires))
      if (!REQUIRES_FIELDS.has(f))
        add("unknown_field", "info", MSG.lintUnknownField(`requires.${f}`), lineOfKey(headerLines, "requires"));
  }
  for (const ref of m.references) {
    const p = typeof ref === "string" ? ref : "path" in ref ? ref.path : null;
    if (p === null) continue;
    const target = resolve(realDir, p);
    if (isAbsolute(p) || !isInside(target, realDir)) {
      add("reference_path_traversal", "error", MSG.lintRefTraversal(p), lineOfKey(headerLines, "references"));
      continue;
    }
    try {
      statSync(target);
    } catch {
      add("reference_missing", "warn", MSG.lintRefMissing(p), lineOfKey(headerLines, "references"));
    }
  }
  if (read.body.trim() === "") add("empty_body", "error", MSG.lintEmptyBody, read.bodyStartLine);
  else if (read.body.length > MAX_BODY_CHARS && charCount(read.body) > MAX_BODY_CHARS)
    add("body_too_long", "warn", MSG.lintBodyTooLong(MAX_BODY_CHARS), read.bodyStartLine);
  if (opts.audit) {
    const a = await opts.audit(dir);
    if (a.verdict === "warn") add("audit_warn", "warn", MSG.lintAuditWarn(a.findings));
    if (a.verdict === "block") add("audit_block", "error", MSG.lintAuditBlock(a.findings));
  }
  return done();
}

function hasEntry(dir: string, name: string): boolean {
  try {
    return lstatSync(join(dir, name), { throwIfNoEntry: false }) !== undefined;
  } catch {
    return false;
  }
}

/** The names in a PATH argument, or why it cannot be listed (ENOENT / ENOTDIR: a bad argument). */
function listPath(path: string): { names: string[] } | { unreadable: string } {
  const errno = (err: unknown) => (err as NodeJS.ErrnoException).code ?? "error";
  try {
    if (!statSync(path).isDirectory()) return { unreadable: "ENOTDIR" };
    return { names: readdirSync(path) };
  } catch (err) {
    return { unreadable: errno(err) };
  }
}

/** Skill directories under a PATH argument: the dir itself, or its children plus one category level. */
function expandLintPath(path: string, names: readonly string[]): string[] {
  if (names.includes("SKILL.md")) return [path];
  const children = names.filter((n) => !n.startsWith(".")).sort();
  const dirs: string[] = [];
  for (const c of children) {
    const p = join(path, c);
    if (!statSync(p, { throwIfNoEntry: false })?.isDirectory()) continue;
    if (hasEntry(p, "SKILL.md")) {
      dirs.push(p);
      continue;
    }
    let inner: string[] = [];
    try {
      inner = readdirSync(p)
        .filter((n) => !n.startsWith("."))
        .sort();
    } catch {
      dirs.push(p);
      continue;
    }
    const skills = inner.map((n) => join(p, n)).filter((q) => hasEntry(q, "SKILL.md"));
    if (skills.length > 0) dirs.push(...skills);
    else dirs.push(p);
  }
  return dirs;
}

/** Options of one lint run. */
export interface LintOptions {
  /** Warnings fail a skill too (default false). */
  strict?: boolean;
  /** The audit's verdict per directory (default: none, no audit codes). */
  audit?: LintAuditHook;
}

/**
 * Lints skill directories found (discovered skills), or PATH arguments resolved against `cwd`
 * and expanded one category level (skills.md §15.1). A PATH that is missing or not a directory
 * is INVALID_PARAMS; one that cannot be listed is a `directory_unreadable` result.
 */
export async function lintRun(
  target: { dirs: readonly string[] } | { cwd: string; paths: readonly string[] },
  opts: LintOptions = {},
): Promise<LintReport> {
  const results: LintResult[] = [];
  if ("dirs" in target) {
    for (const d of target.dirs) results.push(await lintSkillDir(d, opts));
    return summarise(results, opts.strict === true);
  }
  const seen = new Set<string>();
  for (const raw of target.paths) {
    const abs = resolve(target.cwd, raw);
    const listed = listPath(abs);
    if ("unreadable" in listed) {
      const unreadable = listed.unreadable;
      if (unreadable === "ENOENT" || unreadable === "ENOTDIR")
        throw invalidParams(`${raw}: ${unreadable === "ENOENT" ? "no such directory" : "not a directory"}`);
      const message = MSG.lintDirUnreadable(raw, unreadable);
      const issue: LintIssue = { code: "directory_unreadable", severity: "error", message, file: ".", line: 1 };
      results.push({ key: raw, path: abs, valid: false, issues: [issue] });
      continue;
    }
    // The audit's rule for a PATH, checked before anything is expanded: `lint /` is refused, not walked.
    if (!(await holdsSkillFile(abs, { followLinks: true }))) throw notSkillDirectory(abs);
    // Overlapping PATHs (`lint skills skills/a`) lint each skill once.
    for (const d of expandLintPath(abs, listed.names)) {
      if (seen.has(resolve(d))) continue;
      seen.add(resolve(d));
      results.push(await lintSkillDir(d, opts));
    }
  }
  return summarise(results, opts.strict === true);
}

/** The report over results: `ok` when all are valid, with issue counts by severity. */
function summarise(results: LintResult[], strict: boolean): LintReport {
  const all = results.flatMap((r) => r.issues);
  return {
    ok: results.every((r) => r.valid),
    strict,
    results,
    summary: {
      skills: results.length,
      errors: all.filter((i) => i.severity === "error").length,
      warnings: all.filter((i) => i.severity === "warn").length,
      infos: all.filter((i) => i.severity === "info").length,
    },
  };
}
