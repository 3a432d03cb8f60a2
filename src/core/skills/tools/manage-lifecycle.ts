/**
 * @module skills/tools/manage-lifecycle
 * The `skill_manage` actions that change no skill file (skills.md §9): pin, unpin, archive and
 * restore set the usage sidecar's lifecycle state (§12) and, for archive/restore, the scope's
 * `skills.json` (§3, through settings.ts); `report` reads the §12.3 rows. A sidecar that cannot be
 * read fails closed for the pinned check (an unknown pin must not let a delete through) and is
 * never overwritten (the sidecar writer refuses invalid files).
 */
import { join } from "node:path";
import type { LemonContext } from "../../context.ts";
import type { Diagnostic } from "../../diagnostics.ts";
import { scopePathsFor, type Scope } from "../../paths.ts";
import type { LockDoc, LockRecord } from "../../schema/lockfile.ts";
import type { LifecycleState } from "../../schema/usage.ts";
import { setEnabled } from "../settings.ts";
import {
  formatUsageReport,
  readUsage,
  setLifecycle,
  updateUsage,
  usageFile,
  usageReport,
  type UsageRow,
} from "../usage/sidecar.ts";
import { assertNoLinks, kindOf, lockSkill, skillRootOf } from "./manage-fs.ts";
import { discoverable, ManageError, type ManageRequest } from "./manage-params.ts";

/** The key's lifecycle state in the scope's sidecar (null: no record); CONFLICT when the file is unreadable. */
export async function lifecycleOf(ctx: LemonContext, scope: Scope, key: string): Promise<LifecycleState | null> {
  const file = usageFile(ctx, scope);
  const read = await readUsage(file);
  if (!read.ok) throw new ManageError("conflict", `cannot read ${file}: ${read.reason}`);
  const rec = Object.hasOwn(read.skills, key) ? read.skills[key] : undefined;
  return rec?.lifecycle_state ?? null;
}

export interface LifecycleOutcome {
  path: string;
  state: LifecycleState;
  text: string;
}

/** pin / unpin / archive / restore of an existing skill in the scope's lemon root. */
export async function runLifecycleAction(
  ctx: LemonContext,
  req: ManageRequest,
  agentId: string | undefined,
): Promise<LifecycleOutcome> {
  const name = req.name!;
  const root = await skillRootOf(ctx, req.scope);
  const skillDir = join(root, name);
  if (!discoverable(name)) throw new ManageError("not_found", `Skill '${name}' not found at ${skillDir}`);
  const [skillFile] = await assertNoLinks(skillDir, ["SKILL.md"]);
  // A skill is a directory with a SKILL.md (§2.2), not any directory of the root.
  if ((await kindOf(skillDir)) !== "dir" || skillFile !== "file")
    throw new ManageError("not_found", `Skill '${name}' not found at ${skillDir}`);
  // The skill's lock: a pin cannot slip in between archive's pinned check and its state change.
  await using _lock = await lockSkill(ctx, root, name);
  // A state change is a write: an unreadable sidecar is refused as one (§1.3 rule 4), never replaced.
  const file = usageFile(ctx, req.scope);
  const read = await readUsage(file);
  if (!read.ok) throw new ManageError("conflict", `refusing to overwrite invalid ${file}: ${read.reason}`);
  const current = Object.hasOwn(read.skills, name) ? (read.skills[name]?.lifecycle_state ?? null) : null;
  const set = (state: LifecycleState) => setLifecycle(ctx, req.scope, name, state, agentId);
  switch (req.action) {
    case "pin":
      await set("pinned");
      return { path: skillDir, state: "pinned", text: `Pinned skill '${name}'.` };
    case "unpin":
      await set("active");
      return { path: skillDir, state: "active", text: `Unpinned skill '${name}'.` };
    case "archive": {
      if (current === "pinned") throw new ManageError("conflict", `Skill '${name}' is pinned; unpin it before archive`);
      const w = await setEnabled(ctx, name, false, req.scope);
      await set("archived");
      return { path: skillDir, state: "archived", text: `Archived skill '${name}' (disabled in ${w.file}).` };
    }
    case "restore": {
      await set("active");
      const w = await setEnabled(ctx, name, true, req.scope);
      return { path: skillDir, state: "active", text: `Restored skill '${name}' (enabled in ${w.file}).` };
    }
    default:
      throw new ManageError("invalid_params", `unknown action '${req.action}'`);
  }
}

/**
 * Changes the scope's lock record of `name` in the lemon root (agent `lemon`, the only root
 * skill_manage writes); nothing when there is none. A record of another agent's root describes
 * another skill and is left alone.
 */
async function changeLemonRecord(
  ctx: LemonContext,
  scope: Scope,
  name: string,
  change: (doc: LockDoc, rec: LockRecord) => void,
): Promise<void> {
  const { recordOf, updateLockfile } = await import("../lockfile.ts");
  const file = scopePathsFor(ctx, scope).lockfile;
  if ((await kindOf(file)) === "missing") return;
  await updateLockfile(
    file,
    scope === "project" ? ctx.cwd : null,
    async (doc) => {
      const rec = recordOf(doc, name);
      if (rec === null || rec.agent !== "lemon") return { next: undefined, result: null };
      change(doc, rec);
      return { next: doc, result: null };
    },
    { command: "skill_manage" },
  );
}

/**
 * After a write into a skill with a lock record: the record vouched for the installed bundle,
 * not for what the agent made of it. Its trust level and a `pass`/`warn` audit are cleared, so
 * listings, the prompt and read_skill show the skill as untrusted and unaudited (a `block` stays:
 * an edit must never unblock a skill). Origin and hashes stay, so `inspect` shows the drift and
 * `update` can bring the upstream bundle, and its trust, back.
 */
export async function voidProvenance(ctx: LemonContext, scope: Scope, name: string): Promise<void> {
  try {
    await changeLemonRecord(ctx, scope, name, (_doc, rec) => {
      rec.trust_level = null;
      if (rec.audit_status !== "block") rec.audit_status = null;
    });
  } catch (err) {
    ctx.log({
      level: "warn",
      message: `after writing '${name}': skills.lock.json not updated: ${(err as Error).message}`,
    });
  }
}

/**
 * After `delete`: nothing of the deleted skill may attach to a later skill of the same key. The
 * lock record of the lemon root (its trust, audit and origin) is dropped, the usage record
 * (lifecycle, creation) removed, and an archive's `skills.json` disable undone. Each step is
 * best effort: the delete is done, and a state file that cannot be changed is a warning.
 */
export async function forgetSkill(ctx: LemonContext, scope: Scope, name: string): Promise<void> {
  const warn = (what: string, err: unknown) =>
    ctx.log({ level: "warn", message: `after deleting '${name}': ${what} not updated: ${(err as Error).message}` });
  try {
    await changeLemonRecord(ctx, scope, name, (doc) => {
      delete doc.skills[name];
    });
  } catch (err) {
    warn("skills.lock.json", err);
  }
  let archived = false;
  try {
    archived = (await lifecycleOf(ctx, scope, name)) === "archived";
    await updateUsage(ctx, scope, (skills) => {
      if (!skills.has(name)) return false;
      skills.delete(name);
    });
  } catch (err) {
    warn("skills.usage.json", err);
  }
  try {
    if (archived) await setEnabled(ctx, name, true, scope);
  } catch (err) {
    warn("skills.json", err);
  }
}

/** `report` (§12.3): the rows and their text; an unreadable sidecar is named after the text. */
export async function usageReportAction(
  ctx: LemonContext,
  req: ManageRequest,
): Promise<{ text: string; rows: UsageRow[] }> {
  const diagnostics: Diagnostic[] = [];
  const rows = await usageReport(ctx, req.scope, {
    staleAfterDays: req.staleAfterDays,
    archiveAfterDays: req.archiveAfterDays,
    now: ctx.now(),
    diagnostics,
  });
  const notes = diagnostics.map((d) => `\n\nWarning: ${d.message}`).join("");
  return { text: formatUsageReport(req.scope, rows) + notes, rows };
}
