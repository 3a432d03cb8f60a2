/**
 * @module skills/audit
 * The bundle security audit (install.md §7–§8): a local, deterministic scanner over every file of
 * a skill. Install, skill_manage, drafts, blueprints and lint call `auditBundle`.
 */
export {
  auditBundle,
  auditBundles,
  auditForLint,
  countFindings,
  formatFinding,
  sortFindings,
  verdictOf,
} from "./engine.ts";
export type { AuditOptions, AuditReport } from "./engine.ts";
export { assertInstallable, computeBundleHash, enumerateBundle, LIMITS } from "../bundle.ts";
export type { Bundle, BundleEntry, BundleProblem } from "../bundle.ts";
export { AuditCache, auditFingerprint, ENGINE_VERSION, RULES_VERSION } from "./cache.ts";
export type { AuditKind } from "./cache.ts";
export type { LintHook, LintIssue, LintOutcome } from "./lint-bridge.ts";
export {
  blockedError,
  checkOverride,
  makeOverride,
  parseOverrideHash,
  verifyOverride,
  voidOverrideMessage,
} from "./override.ts";
export type { OverrideDecision, OverrideStatus, SecurityOverride } from "./override.ts";
export { auditJson } from "./json.ts";
export { scanText } from "./scan.ts";
export type { Finding, Severity, SeverityCounts, Verdict } from "../../schema/finding.ts";
