/**
 * @module cli/commands/skill/lint-audit
 * Connects lint to the security audit when the audit module is present.
 */
import type { Lemon } from "../../../core/index.ts";
import type { LintAuditHook } from "../../../core/skills/lint.ts";

export async function lintAuditHook(_lemon: Lemon): Promise<LintAuditHook | undefined> {
  return undefined;
}
