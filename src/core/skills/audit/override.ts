/**
 * @module skills/audit/override
 * The exact-bundle security override of install.md §8: the data model, the refusal a `block`
 * verdict produces, and the checks that an override names this bundle and still matches it.
 * The approval step itself belongs to the installer.
 */
import { forbidden, invalidParams } from "../../errors.ts";
import { computeBundleHash } from "../bundle.ts";
import { ENGINE_VERSION } from "./cache.ts";
import { formatFinding, type AuditReport } from "./engine.ts";

/** `security_override` of a lock record (install.md §6, §8 step 3). */
export interface SecurityOverride {
  bundle_hash: string;
  approved_at: string;
  engine_version: string;
  findings: string[];
}

const HASH = /^[0-9a-f]{64}$/;

/** `--security-override <hash>` takes 64 lowercase hex (else INVALID_PARAMS, exit 2). */
export function parseOverrideHash(value: unknown): string {
  if (typeof value !== "string" || !HASH.test(value))
    throw invalidParams("--security-override must be a 64-character lowercase hex sha256");
  return value;
}

/** The FORBIDDEN error for a `block` verdict (install.md §8 step 1). */
export function blockedError(key: string, report: AuditReport) {
  const critical = report.findings.filter((f) => f.severity === "critical");
  const strings = report.findings.map(formatFinding);
  return forbidden(
    `Skill '${key}' blocked by security audit (${critical.length} critical finding(s)): ${critical.slice(0, 3).map(formatFinding).join("; ")}`,
    {
      hint: `bundle sha256 ${report.bundle_hash}; to install it anyway after reviewing every finding, re-run with --security-override ${report.bundle_hash}`,
      details: { bundle_hash: report.bundle_hash, findings: strings },
    },
  );
}

export type OverrideDecision = "not_needed" | "needs_approval";

/**
 * Step 2: after staging and auditing. `not_needed` (verdict is not block: the option is ignored
 * with a notice); `needs_approval` when the hash matches; FORBIDDEN when it does not.
 */
export function checkOverride(report: AuditReport, overrideHash: string): OverrideDecision {
  if (report.verdict !== "block") return "not_needed";
  if (overrideHash !== report.bundle_hash)
    throw forbidden(`security override does not match this bundle (sha256 ${report.bundle_hash})`, {
      details: { bundle_hash: report.bundle_hash },
    });
  return "needs_approval";
}

/** The record stored in the lock after approval (step 3). */
export function makeOverride(report: AuditReport, approvedAt: string): SecurityOverride {
  return {
    bundle_hash: report.bundle_hash,
    approved_at: approvedAt,
    engine_version: ENGINE_VERSION,
    findings: report.findings.map(formatFinding),
  };
}

export interface OverrideStatus {
  valid: boolean;
  /** The bundle hash on disk now. */
  bundle_hash: string;
}

/** Step 4: an override holds only while the installed bundle hash equals the approved one. */
export async function verifyOverride(
  dir: string,
  override: SecurityOverride | null | undefined,
): Promise<OverrideStatus> {
  const bundleHash = await computeBundleHash(dir);
  return {
    valid: override != null && HASH.test(override.bundle_hash) && override.bundle_hash === bundleHash,
    bundle_hash: bundleHash,
  };
}

/** The read_skill message for a void override (step 4). */
export const voidOverrideMessage = (key: string) =>
  `Skill '${key}' is blocked: its security override no longer matches the installed files.`;
