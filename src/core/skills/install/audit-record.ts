/**
 * @module skills/install/audit-record
 * The audit cache record an install writes for the skill it activated (install.md §5 step 11,
 * §7.5), and putting the previous record back exactly when the install rolls back or an uninstall
 * removes it. The record is lemon's own audit of the installed bytes, so a later
 * `lemon skill audit <key>` reuses it.
 */
import { LemonError } from "../../errors.ts";
import { isoSeconds } from "../../fsx/atomic.ts";
import { jsonCodec, update } from "../../fsx/update.ts";
import { AuditCacheFile, emptyAuditCache, type AuditRecord } from "../../schema/audit-cache.ts";
import type { AuditReport } from "../audit/engine.ts";
import { AuditCache, auditFingerprint, recordId } from "../audit/cache.ts";
import { FULL_LINT_VERSION } from "../audit/target.ts";

const codec = jsonCodec(AuditCacheFile, emptyAuditCache);

/**
 * The §7.5 record of a staged audit, under the installed key, fingerprinted as `skills.audit(<key>)`
 * fingerprints its own (audit/target.ts), so that call reuses it.
 */
export function auditRecordOf(report: AuditReport, key: string, now: Date): AuditRecord {
  return {
    key,
    kind: "skill",
    bundle_hash: report.bundle_hash,
    audit_fingerprint: auditFingerprint(report.bundle_hash, FULL_LINT_VERSION),
    scanned_at: isoSeconds(now),
    engine_version: report.engine_version,
    lint_valid: report.lint_valid,
    lint_issues: report.lint_issues,
    verdict: report.verdict,
    findings: report.findings,
    counts: report.counts,
    approval_required: report.verdict === "warn",
  };
}

/** What was at `skill:<key>` before a write: the raw value, or absent. */
export interface PreviousAuditRecord {
  file: string;
  id: string;
  present: boolean;
  value: unknown;
}

async function swap(file: string, id: string, value: unknown, present: boolean): Promise<PreviousAuditRecord> {
  return update(
    file,
    codec,
    (current) => {
      const records: Record<string, unknown> = { ...(current.records ?? {}) };
      const prev: PreviousAuditRecord = { file, id, present: Object.hasOwn(records, id), value: records[id] };
      if (present) records[id] = value;
      else delete records[id];
      return { next: { ...current, version: 1, records }, result: prev };
    },
    { command: "lemon skill install", confineTo: null },
  );
}

/**
 * Sets `skill:<key>` (or removes it when `record` is null) and returns what was there. A cache that
 * does not parse is set aside first, as every audit does (§7.5): a broken cache never blocks an install.
 */
export async function putAuditRecord(
  file: string,
  key: string,
  record: AuditRecord | null,
): Promise<PreviousAuditRecord> {
  const id = recordId("skill", key);
  try {
    return await swap(file, id, record, record !== null);
  } catch (err) {
    if (!(LemonError.is(err) && err.code === "CONFLICT" && err.message.startsWith("refusing to overwrite invalid")))
      throw err;
    await AuditCache.open(file);
    return swap(file, id, record, record !== null);
  }
}

/** Puts back what {@link putAuditRecord} replaced. */
export async function restoreAuditRecord(prev: PreviousAuditRecord): Promise<void> {
  await swap(prev.file, prev.id, prev.value, prev.present);
}

/**
 * Removes `skill:<key>` when it is the record of `bundleHash` (what a dead install wrote), so
 * the next audit of that key runs afresh. Never fails the caller: the cache is only a cache.
 */
export async function dropAuditRecord(file: string, key: string, bundleHash: string): Promise<void> {
  const id = recordId("skill", key);
  try {
    await update(
      file,
      codec,
      (current) => {
        const records: Record<string, unknown> = { ...(current.records ?? {}) };
        const rec = records[id] as { bundle_hash?: unknown } | undefined;
        if (rec === undefined || rec === null || rec.bundle_hash !== bundleHash)
          return { next: undefined, result: undefined };
        delete records[id];
        return { next: { ...current, version: 1, records }, result: undefined };
      },
      { command: "lemon skill install", confineTo: null },
    );
  } catch {
    // Unreadable or invalid: the next audit sets it aside or runs uncached anyway.
  }
}
