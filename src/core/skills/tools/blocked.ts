/**
 * @module skills/tools/blocked
 * Whether a skill may be loaded by `read_skill` or `skill://` right now. A `blocked` entry is
 * refused; so is one whose security override the listing still counted as valid but whose files
 * changed since: install.md §8 item 4 wants the bundle hash of an overridden skill recomputed
 * before every load, not trusted from a listing up to one check interval old.
 */
import { join } from "node:path";
import type { LemonPaths } from "../../paths.ts";
import type { SkillEntry } from "../entry.ts";

/** skills.md §8 / install.md §8 item 4, exact. */
export const blockedText = (key: string) => `Skill '${key}' is blocked by its security audit and cannot be loaded.`;
export const voidOverrideText = (key: string) =>
  `Skill '${key}' is blocked: its security override no longer matches the installed files.`;

/** The override recorded for `key` in its scope's lockfile, or null (no record, none, unreadable). */
async function overrideHash(paths: LemonPaths, entry: SkillEntry): Promise<string | null> {
  const { readLockfileSync } = await import("../lockfile.ts");
  const file = entry.scope === "global" ? paths.global.lockfile : paths.project.lockfile;
  const read = readLockfileSync(file);
  if (!read.ok) return null;
  const rec = Object.hasOwn(read.doc.skills, entry.key) ? read.doc.skills[entry.key] : undefined;
  // A record describes the skill installed directly in its own root only (install.md §6).
  if (rec === undefined || rec.agent !== entry.root_label || entry.path !== join(entry.root, entry.key)) return null;
  return rec.security_override?.bundle_hash ?? null;
}

/** The refusal message for loading `entry`, or null when it may be loaded. */
export async function blockedMessage(paths: LemonPaths, entry: SkillEntry): Promise<string | null> {
  // Only a block verdict can make a skill unloadable; everything else costs nothing here.
  if (entry.activation_state !== "blocked" && entry.audit_status !== "block") return null;
  const override = await overrideHash(paths, entry);
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
