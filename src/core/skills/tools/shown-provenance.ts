/**
 * @module skills/tools/shown-provenance
 * The provenance `read_skill` shows for a skill (skills.md §8), on its own so `lemon mcp serve`
 * decides the untrusted note with this very function without loading the tool.
 */
import type { SkillEntry } from "../entry.ts";
import type { ShownProvenance } from "./read-skill-text.ts";

/**
 * What the header may claim about where the skill came from. A lock record vouches for the bundle
 * it was installed with, nothing else: once the files differ (an agent's `skill_manage` edit, a
 * hand edit, a record without a bundle hash to compare), the skill is shown as untrusted and
 * unaudited with the note, whatever the record says (the record itself stays for `inspect`).
 */
export async function shownProvenance(e: SkillEntry): Promise<ShownProvenance & { modified: boolean }> {
  const claims = { source_kind: e.source_kind, source_id: e.source_id };
  if (e.trust_level === null && e.audit_status === null)
    return { ...claims, trust_level: null, audit_status: null, modified: false };
  const { currentBundleHash } = await import("../provenance.ts");
  const now = e.bundle_hash === null ? null : await currentBundleHash(e.real_path);
  // A project's lock arrived with the clone: its audit result is a claim nobody checked (§1.2 keeps
  // audit results out of P), so only its `block` (which blocks) is worth repeating.
  const audit = e.scope === "project" && e.audit_status !== "block" ? null : e.audit_status;
  if (now !== null && now === e.bundle_hash)
    return { ...claims, trust_level: e.trust_level, audit_status: audit, modified: false };
  return { ...claims, trust_level: null, audit_status: null, modified: true };
}
