/**
 * @module skills/install/record
 * The decisions and the record of one staged skill: install.md §8 (a `block` needs the exact
 * override and its own approval) and the warn approval of §1, then the §6 lock record.
 */
import type { LemonContext } from "../../context.ts";
import { isoSeconds } from "../../fsx/atomic.ts";
import { formatFinding } from "../audit/json.ts";
import { blockedError, checkOverride, makeOverride } from "../audit/override.ts";
import { emptyRecord, type LockRecord } from "../lockfile.ts";
import { requestApproval } from "./approval.ts";
import type { FetchedSource } from "./fetch.ts";
import type { ActivationPlan } from "./install.ts";
import type { FoundSkill } from "./select.ts";
import type { Staged } from "./stage.ts";

/** The new lock record (install.md §6) for a staged skill. */
export function recordFor(
  plan: ActivationPlan,
  staged: Staged,
  fetched: FetchedSource,
  selected: FoundSkill,
  prev: LockRecord | undefined,
  stamp: string,
  extra: Pick<LockRecord, "audit_approval" | "security_override">,
): LockRecord {
  const { spec } = plan;
  const subdir = [spec.subdir, selected.path].filter((s): s is string => s !== null && s !== "").join("/");
  const r = staged.report;
  return {
    ...emptyRecord(staged.key),
    source_kind: spec.kind,
    source_id: spec.sourceId,
    source_ref: spec.ref,
    subdir: subdir === "" ? null : subdir,
    trust_level: spec.trust,
    content_hash: staged.contentHash,
    bundle_hash: staged.bundleHash,
    // local and well_known sources have no commit: their identity is the bundle copied whole.
    upstream_hash: fetched.upstreamHash ?? staged.bundleHash,
    resolved_commit: fetched.resolvedCommit,
    installed_at: plan.update ? (prev?.installed_at ?? stamp) : stamp,
    updated_at: plan.update ? stamp : null,
    checked_at: plan.update ? (prev?.checked_at ?? null) : null,
    latest_upstream_hash: plan.update ? (prev?.latest_upstream_hash ?? null) : null,
    audit_status: r.verdict,
    audit_findings: r.findings.map(formatFinding),
    audit_engine_version: r.engine_version,
    ...extra,
    agent: plan.agent,
    ...(plan.patch ?? {}),
  };
}

/** Step 8: `block` needs the exact override and its approval; `warn` its own approval. */
export async function decide(
  ctx: LemonContext,
  plan: ActivationPlan,
  staged: Staged,
): Promise<Pick<LockRecord, "audit_approval" | "security_override">> {
  const r = staged.report;
  const findings = r.findings.map(formatFinding);
  const at = isoSeconds(ctx.now());
  if (r.verdict === "block") {
    if (plan.securityOverride === undefined) throw blockedError(staged.key, r);
    checkOverride(r, plan.securityOverride);
    const source = plan.spec.display;
    await requestApproval(plan.approve, {
      kind: "security_override",
      key: staged.key,
      source,
      bundleHash: r.bundle_hash,
      findings,
    });
    return { audit_approval: null, security_override: makeOverride(r, at) };
  }
  if (plan.securityOverride !== undefined)
    plan.onNotice?.(`--security-override ignored: the audit verdict is ${r.verdict}, not block`);
  if (r.verdict === "warn") {
    await requestApproval(plan.approve, {
      kind: "skill_audit_warn",
      key: staged.key,
      bundleHash: r.bundle_hash,
      findings,
    });
    return { audit_approval: { bundle_hash: r.bundle_hash, approved_at: at, findings }, security_override: null };
  }
  return { audit_approval: null, security_override: null };
}
