/**
 * @module skills/tools/manage-audit
 * The audit `skill_manage` runs after every write (skills.md §9, install.md §7): the staged copy
 * of the skill, the cache bypassed and left unwritten (an agent's intermediate states are not
 * worth records, and the full linter is the lint input, as `lemon skill audit` uses).
 */
import type { Verdict } from "../../schema/finding.ts";
import { LemonError } from "../../errors.ts";
import { auditBundle } from "../audit/engine.ts";
import { formatFinding } from "../audit/json.ts";
import type { LintHook } from "../audit/lint-bridge.ts";
import { lintSkillDir } from "../lint.ts";

/** §9.3 `details.audit`. */
export interface ManageAudit {
  verdict: Verdict;
  findings: string[];
  approval_required: boolean;
}

const fullLint: LintHook = async (dir) => {
  const r = await lintSkillDir(dir);
  return { valid: r.valid, issues: r.issues.filter((i) => i.code !== "audit_warn" && i.code !== "audit_block") };
};

/** Audits the staged skill directory `dir` as skill `key`. A bundle too large to list whole is a block. */
export async function auditStaged(dir: string, key: string, now: () => Date): Promise<ManageAudit> {
  try {
    const r = await auditBundle(dir, { force: true, key, lint: fullLint, lintVersion: 3, now });
    return { verdict: r.verdict, findings: r.findings.map(formatFinding), approval_required: r.verdict === "warn" };
  } catch (err) {
    if (LemonError.is(err) && err.message.startsWith("bundle_limits_exceeded:"))
      return {
        verdict: "block",
        findings: [`[critical] bundle_limits: ${err.message} (.:0)`],
        approval_required: false,
      };
    throw err;
  }
}

/** `Skill blocked by security audit: <first 3 findings joined by '; '>` (§9.2). */
export function blockedMessage(audit: ManageAudit): string {
  return `Skill blocked by security audit: ${audit.findings.slice(0, 3).join("; ")}`;
}

/** The audit part of a success text (§9.3). */
export function auditNote(audit: ManageAudit): string {
  return audit.verdict === "warn"
    ? "audit: warn — approval may be required when installing elsewhere"
    : `audit: ${audit.verdict}`;
}
