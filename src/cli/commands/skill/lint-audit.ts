/**
 * @module cli/commands/skill/lint-audit
 * The security audit as lint's audit step, loaded only when lint runs with the audit.
 */
import type { LintAuditHook } from "../../../core/skills/lint.ts";

export async function lintAuditHook(): Promise<LintAuditHook> {
  return (await import("../../../core/skills/audit/target.ts")).lintAudit;
}
