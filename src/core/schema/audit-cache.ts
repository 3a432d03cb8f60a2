/**
 * @module schema/audit-cache
 * `skills.audit.json` (install.md §7.5): one audit record per `<kind>:<key>` and scope. Unknown
 * fields of the document survive a rewrite; records are lemon's own and checked strictly enough
 * to be reused safely.
 */
import { Type, type Static } from "@sinclair/typebox";
import { Finding, SeverityCounts, Verdict } from "./finding.ts";

export const LintIssueRecord = Type.Object({
  code: Type.String(),
  severity: Type.String(),
  message: Type.String(),
});
export type LintIssueRecord = Static<typeof LintIssueRecord>;

export const AuditRecord = Type.Object(
  {
    key: Type.String(),
    kind: Type.Union([Type.Literal("skill"), Type.Literal("draft")]),
    bundle_hash: Type.String(),
    audit_fingerprint: Type.String(),
    scanned_at: Type.String(),
    engine_version: Type.String(),
    lint_valid: Type.Boolean(),
    lint_issues: Type.Array(LintIssueRecord),
    verdict: Verdict,
    findings: Type.Array(Finding),
    counts: SeverityCounts,
    approval_required: Type.Boolean(),
  },
  { additionalProperties: true },
);
export type AuditRecord = Static<typeof AuditRecord>;

export const AuditCacheFile = Type.Object(
  {
    version: Type.Optional(Type.Number()),
    records: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  },
  { additionalProperties: true },
);
export type AuditCacheFile = Static<typeof AuditCacheFile>;

export const emptyAuditCache = (): AuditCacheFile => ({ version: 1, records: {} });
