/**
 * @module skills/audit/lint-bridge
 * The `lint` row of install.md §7.3: lint issues (skills.md §15, without its audit step) become
 * findings `lint/<code>`. The full linter is injected by the caller; without one, a structural
 * subset that needs no frontmatter parser runs (missing or unreadable `SKILL.md`, size, UTF-8,
 * empty body, symlinks).
 */
import type { Finding, Severity } from "../../schema/finding.ts";
import type { LintIssueRecord } from "../../schema/audit-cache.ts";
import type { Bundle } from "../bundle.ts";
import { splitFrontmatter } from "../frontmatter.ts";
import { MSG } from "../messages.ts";
import { decodeSkillBytes } from "../skill-file.ts";

/** A lint issue as the audit consumes it (skills.md §15.1 codes). */
export interface LintIssue {
  code: string;
  severity: "error" | "warn" | "info";
  message: string;
  file?: string;
  line?: number;
}

/** A linter's verdict on one directory. */
export interface LintOutcome {
  valid: boolean;
  issues: LintIssue[];
}

/** A linter for one skill directory (skills.md §15.1 codes, audit codes excluded). */
export type LintHook = (dir: string) => Promise<LintOutcome>;

/** Bumped whenever the built-in subset changes what it reports (2: the skill reader's messages). */
export const BUILTIN_LINT_VERSION = 2;

const UNLOADABLE = new Set([
  "missing_skill_file",
  "skill_file_unreadable",
  "file_too_large",
  "invalid_utf8",
  "parse_error",
  "invalid_manifest",
  "empty_body",
]);

function lintSeverity(issue: LintIssue): Severity | null {
  if (issue.severity === "error") return UNLOADABLE.has(issue.code) ? "critical" : "high";
  if (issue.severity === "warn") return "low";
  return null;
}

/** Lint issues as audit findings `lint/<code>` with install.md §7.3 severities (infos dropped). */
export function lintFindings(outcome: LintOutcome): Finding[] {
  const out: Finding[] = [];
  for (const issue of outcome.issues) {
    if (issue.code === "audit_warn" || issue.code === "audit_block") continue;
    const severity = lintSeverity(issue);
    if (severity === null) continue;
    out.push({
      rule: `lint/${issue.code}`,
      category: "manifest",
      severity,
      file: issue.file ?? "SKILL.md",
      line: issue.line ?? 0,
      message: issue.message,
      excerpt: "",
    });
  }
  return out;
}

/** Lint issues as stored in an audit record. */
export function lintRecords(outcome: LintOutcome): LintIssueRecord[] {
  return outcome.issues.map((i) => ({ code: i.code, severity: i.severity, message: i.message }));
}

/**
 * The structural subset, from bytes already read for the audit: the one SKILL.md reader's
 * first steps (size, UTF-8, fences) and its messages, without parsing the header, so a batch
 * audit loads no YAML. Manifest validity is the full linter's (injected as `lint`).
 */
export function builtinLint(bundle: Bundle, skillFile: Uint8Array | null | "unreadable"): LintOutcome {
  const issues: LintIssue[] = [];
  const error = (code: string, message: string, file?: string) =>
    issues.push({ code, severity: "error", message, ...(file !== undefined ? { file } : {}) });
  if (skillFile === null) error("missing_skill_file", MSG.lintNoSkillFile);
  else if (skillFile === "unreadable") error("skill_file_unreadable", MSG.unreadable("error"));
  else {
    const decoded = decodeSkillBytes(skillFile);
    if (!decoded.ok) error(decoded.code, decoded.message);
    else {
      // An unclosed header is the full linter's parse_error; the subset judges only the body.
      const split = splitFrontmatter(decoded.text);
      if (!("error" in split) && split.body.trim() === "") error("empty_body", MSG.lintEmptyBody);
    }
  }
  for (const e of bundle.entries) if (e.kind === "symlink") error("symlink_in_bundle", MSG.lintSymlink(e.rel), e.rel);
  return { valid: !issues.some((i) => i.severity === "error"), issues };
}
