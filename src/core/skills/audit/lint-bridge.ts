/**
 * @module skills/audit/lint-bridge
 * The `lint` row of install.md §7.3: lint issues (skills.md §15, without its audit step) become
 * findings `lint/<code>`. The full linter is injected by the caller; without one, a structural
 * subset that needs no frontmatter parser runs (missing or unreadable `SKILL.md`, size, UTF-8,
 * empty body, symlinks).
 */
import type { Finding, Severity } from "../../schema/finding.ts";
import type { LintIssueRecord } from "../../schema/audit-cache.ts";
import type { Bundle } from "./bundle.ts";

export interface LintIssue {
  code: string;
  severity: "error" | "warn" | "info";
  message: string;
  file?: string;
  line?: number;
}

export interface LintOutcome {
  valid: boolean;
  issues: LintIssue[];
}

/** A linter for one skill directory (skills.md §15.1 codes, audit codes excluded). */
export type LintHook = (dir: string) => Promise<LintOutcome>;

/** Bumped whenever the built-in subset changes what it reports. */
export const BUILTIN_LINT_VERSION = 1;

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

export function lintRecords(outcome: LintOutcome): LintIssueRecord[] {
  return outcome.issues.map((i) => ({ code: i.code, severity: i.severity, message: i.message }));
}

/** The structural subset, from bytes already read for the audit. */
export function builtinLint(bundle: Bundle, skillFile: Uint8Array | null | "unreadable"): LintOutcome {
  const issues: LintIssue[] = [];
  if (skillFile === null) issues.push({ code: "missing_skill_file", severity: "error", message: "dir has no SKILL.md" });
  else if (skillFile === "unreadable") issues.push({ code: "skill_file_unreadable", severity: "error", message: "SKILL.md cannot be read" });
  else if (skillFile.length > 1024 * 1024) issues.push({ code: "file_too_large", severity: "error", message: "SKILL.md is over 1 MiB" });
  else {
    let text: string | null = null;
    try {
      text = new TextDecoder("utf-8", { fatal: true }).decode(skillFile);
    } catch {
      issues.push({ code: "invalid_utf8", severity: "error", message: "SKILL.md is not valid UTF-8" });
    }
    if (text !== null) {
      const fm = /^---[ \t]*\r?\n[\s\S]*?\r?\n---[ \t]*(?:\r?\n|$)/.exec(text);
      const body = fm ? text.slice(fm[0].length) : text;
      if (body.trim() === "") issues.push({ code: "empty_body", severity: "error", message: "SKILL.md body is blank" });
    }
  }
  for (const e of bundle.entries)
    if (e.kind === "symlink") issues.push({ code: "symlink_in_bundle", severity: "error", message: `symlink in the skill: ${e.rel}`, file: e.rel });
  return { valid: !issues.some((i) => i.severity === "error"), issues };
}
