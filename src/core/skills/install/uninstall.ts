/**
 * @module skills/install/uninstall
 * `skill remove` (install.md §10): only skills lemon manages (its own root of the scope, or the
 * root the lock records for an `--agent` install), removed by rename under the lockfile lock so
 * that a failure, or a process killed half-way, puts the directory and the records back.
 */
import { existsSync, readdirSync, renameSync } from "node:fs";
import { rename, rm } from "node:fs/promises";
import { join } from "node:path";
import type { LemonContext } from "../../context.ts";
import { conflict, forbidden, invalidParams, notFound } from "../../errors.ts";
import { randomHex } from "../../fsx/atomic.ts";
import { holdPath, releasePath } from "../../fsx/cleanup.ts";
import { readRegularFile } from "../../fsx/regular-file.ts";
import { parseJson } from "../../json.ts";
import { scopePathsFor, type Scope } from "../../paths.ts";
import { decodeUtf8 } from "../../text.ts";
import { auditCacheFile } from "../audit/target.ts";
import { readLockForWrite, recordOf, updateLockfile, type LockDoc, type LockRecord } from "../lockfile.ts";
import { resolveRoots } from "../roots.ts";
import { escapeKey, keyProblem } from "../skill-key.ts";
import { type Approver, requestApproval } from "./approval.ts";
import { putAuditRecord, restoreAuditRecord, type PreviousAuditRecord } from "./audit-record.ts";
import { failAt, pauseAt } from "../../test-hooks.ts";
import { markRemoval } from "./activate.ts";
import { assertWritableRoot, occupied, recordedRoot } from "./destination.ts";
import { recoverInterrupted, recoverScope, removingName } from "./recovery.ts";

export interface UninstallRequest {
  /** Project scope when false; default global. */
  global: boolean;
  /** Needed to remove a pinned skill. */
  force: boolean;
  approve: Approver;
}

/** cli.md §2.14 JSON without `ok`; `path` = the removed directory. */
export interface UninstallResult {
  key: string;
  scope: Scope;
  path: string;
  removed: true;
}

/** A key is a directory name: INVALID_PARAMS for anything that could step out of a root. */
export function assertSkillKey(key: string): void {
  if (typeof key !== "string" || key === "" || key === "." || key === ".." || /[/\\\0]/.test(key))
    throw invalidParams(`invalid skill key '${escapeKey(String(key))}'`);
  const problem = keyProblem(key);
  if (problem !== null) throw invalidParams(problem);
}

/**
 * The usage sidecar's pin (skills.md §12), read tolerantly: another module owns that file, and a
 * file that does not parse pins nothing (the operation approval still stands in the way).
 */
function isPinned(file: string, key: string): boolean {
  const read = readRegularFile(file, 8 * 1024 * 1024);
  if (!read.ok) return false;
  const text = decodeUtf8(read.bytes);
  if (text === null) return false;
  try {
    const doc = parseJson(text) as { skills?: Record<string, { lifecycle_state?: unknown }> } | null;
    const skills = doc?.skills;
    if (typeof skills !== "object" || skills === null || !Object.hasOwn(skills, key)) return false;
    return skills[key]?.lifecycle_state === "pinned";
  } catch {
    return false;
  }
}

/** Where a skill with this key sits in any root of either scope (for the FORBIDDEN message), or null. */
function foundElsewhere(ctx: LemonContext, key: string): string | null {
  const { project, global } = resolveRoots(ctx);
  for (const root of [...project, ...global]) {
    if (!root.exists) continue;
    if (existsSync(join(root.path, key, "SKILL.md"))) return root.path;
    let cats: string[];
    try {
      cats = readdirSync(root.path).filter((n) => !n.startsWith("."));
    } catch {
      continue;
    }
    for (const cat of cats) if (existsSync(join(root.path, cat, key, "SKILL.md"))) return join(root.path, cat);
  }
  return null;
}

/** The directory to remove and its root (§10 step 1); FORBIDDEN or NOT_FOUND otherwise. */
async function locate(
  ctx: LemonContext,
  scope: Scope,
  key: string,
  rec: LockRecord | null,
): Promise<{ root: string; dir: string }> {
  // A record naming a root this lemon does not know (agent null) vouches for no location.
  if (rec !== null && rec.agent !== null) {
    const root = recordedRoot(ctx, scope, rec);
    return { root, dir: join(root, key) };
  }
  const root = scopePathsFor(ctx, scope).skillRoot;
  const dir = join(root, key);
  if (await occupied(dir)) return { root, dir };
  const elsewhere = foundElsewhere(ctx, key);
  if (elsewhere === null) throw notFound(`Skill '${key}' not found`);
  const other = scopePathsFor(ctx, scope === "global" ? "project" : "global").skillRoot;
  const hint =
    elsewhere === other
      ? `it is installed in the ${scope === "global" ? "project" : "global"} scope; ${scope === "global" ? "add" : "drop"} --local`
      : undefined;
  throw forbidden(`Skill '${key}' is not managed by lemon (found in ${elsewhere})`, hint ? { hint } : {});
}

/** The test hooks of a removal step (test-hooks.ts): fail there, or pause there. */
async function step(ctx: LemonContext, name: string): Promise<void> {
  failAt(ctx, name);
  await pauseAt(ctx, name);
}

/** Removes an installed skill (install.md §10). */
export async function uninstallSkill(ctx: LemonContext, key: string, req: UninstallRequest): Promise<UninstallResult> {
  assertSkillKey(key);
  const scope: Scope = req.global === false ? "project" : "global";
  const paths = scopePathsFor(ctx, scope);
  const confine = scope === "project" ? ctx.cwd : null;
  await recoverInterrupted(ctx, scope, "lemon skill remove");
  const before = await readLockForWrite(paths.lockfile);
  const rec = recordOf(before, key);
  const { root, dir } = await locate(ctx, scope, key, rec);
  if (!req.force && isPinned(paths.usage, key)) throw conflict(`Skill '${key}' is pinned; use --force`);
  await requestApproval(req.approve, {
    kind: "skill_uninstall",
    key,
    scope,
    trustLevel: rec?.trust_level ?? "unknown",
    source: rec?.source_id ?? dir,
    destination: dir,
  });
  await assertWritableRoot(ctx, scope, root);
  const auditFile = auditCacheFile(ctx, scope);
  const txn = randomHex(6);
  const removing = join(root, removingName(key, txn));
  let mark: string | null = null;
  let renamed = false;
  let prevAudit: PreviousAuditRecord | null = null;
  const putBack = () => {
    if (renamed) renameSync(removing, dir);
    renamed = false;
  };
  try {
    await updateLockfile(
      paths.lockfile,
      confine,
      async (doc) => {
        // A journal of a killed install is finished or undone before the removal looks.
        await recoverScope(ctx, scope, doc);
        const current = recordOf(doc, key);
        const present = await occupied(dir);
        // A record whose directory is gone is dropped; a key with neither was removed meanwhile.
        if (!present && current === null) throw notFound(`Skill '${key}' not found`);
        if (present) {
          // lemon's mark under A first: recovery settles only a parked dir it can find a mark for.
          mark = await markRemoval(ctx, scope, key, txn);
          await rename(dir, removing);
          renamed = true;
          holdPath(removing, putBack);
        }
        await step(ctx, "uninstall-renamed");
        prevAudit = await putAuditRecord(auditFile, key, null);
        if (current === null) return { next: undefined, result: undefined };
        const next: LockDoc = { version: 1, skills: doc.skills };
        delete next.skills[key];
        return { next, result: undefined };
      },
      { command: "lemon skill remove" },
    );
  } catch (err) {
    // Nothing was committed: the lock write is the last step that can fail.
    const prev: PreviousAuditRecord | null = prevAudit;
    if (prev !== null) await restoreAuditRecord(prev).catch(() => {});
    putBack();
    releasePath(removing);
    if (mark !== null) await rm(mark, { force: true }).catch(() => {});
    throw err;
  }
  releasePath(removing);
  // The removal is committed; a leftover dot-dir is invisible and the next remove deletes it.
  if (renamed) await rm(removing, { recursive: true, force: true }).catch(() => {});
  if (mark !== null) await rm(mark, { force: true }).catch(() => {});
  return { key, scope, path: dir, removed: true };
}
