/**
 * @module skills/tools/blocked
 * Whether a skill may be loaded by `read_skill` or `skill://` right now. A `blocked` entry is
 * refused; so is one whose security override the listing still counted as valid but whose files
 * changed since: install.md §8 item 4 wants the bundle hash of an overridden skill recomputed
 * before every load, not trusted from a listing up to one check interval old.
 */
import type { LemonContext } from "../../context.ts";
import { resolvePaths } from "../../paths.ts";
import type { SkillEntry } from "../entry.ts";
import type { SkillCandidate } from "../scan.ts";

/** skills.md §8 / install.md §8 item 4, exact. */
export const blockedText = (key: string) => `Skill '${key}' is blocked by its security audit and cannot be loaded.`;
export const voidOverrideText = (key: string) =>
  `Skill '${key}' is blocked: its security override no longer matches the installed files.`;

/**
 * The override the lock of the skill's scope records for it, or null (no record, none,
 * unreadable). The record is matched to the skill's location as listings match it (provenance.ts).
 */
async function overrideHash(ctx: LemonContext, entry: SkillEntry, c: SkillCandidate): Promise<string | null> {
  const [{ readLockfileSync }, prov] = await Promise.all([import("../lockfile.ts"), import("../provenance.ts")]);
  const paths = resolvePaths(ctx);
  const read = readLockfileSync(entry.scope === "global" ? paths.global.lockfile : paths.project.lockfile);
  if (!read.ok) return null;
  const rec = prov.recordFor(read.doc, c, prov.rootLocator(ctx, entry.scope));
  return rec?.security_override?.bundle_hash ?? null;
}

/** The refusal message for loading `entry` (found at candidate `c`), or null when it may be loaded. */
export async function blockedMessage(ctx: LemonContext, entry: SkillEntry, c: SkillCandidate): Promise<string | null> {
  // Only a block verdict can make a skill unloadable; everything else costs nothing here.
  if (entry.activation_state !== "blocked" && entry.audit_status !== "block") return null;
  const override = await overrideHash(ctx, entry, c);
  if (override === null) return entry.activation_state === "blocked" ? blockedText(entry.key) : null;
  const { computeBundleHash } = await import("../bundle.ts");
  let current: string | null;
  try {
    current = await computeBundleHash(entry.path);
  } catch {
    current = null;
  }
  return current === override ? null : voidOverrideText(entry.key);
}
