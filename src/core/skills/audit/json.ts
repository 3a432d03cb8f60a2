/**
 * @module skills/audit/json
 * The CLI/on-disk spelling of an audit report (cli.md §2.6): snake_case, `ok` false only for block;
 * and the one-line form of a finding. Light on purpose: the public entry re-exports both.
 */
import type { Finding } from "../../schema/finding.ts";
import type { AuditReport } from "./engine.ts";

/** A finding as one line, `[<severity>] <rule>: <message> (<file>:<line>)` (install.md §7.4). */
export function formatFinding(f: Finding): string {
  return `[${f.severity}] ${f.rule}: ${f.message} (${f.file}:${f.line})`;
}

export function auditJson(report: AuditReport): Record<string, unknown> {
  return {
    ok: report.verdict !== "block",
    key: report.key,
    path: report.path,
    bundle_hash: report.bundle_hash,
    verdict: report.verdict,
    counts: report.counts,
    findings: report.findings,
    cached: report.cached,
    // Only when there are some, so the document keeps the exact shape of cli.md §2.6 otherwise.
    ...(report.diagnostics.length > 0 ? { diagnostics: report.diagnostics } : {}),
  };
}
