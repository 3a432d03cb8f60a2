/**
 * @module skills/install/recovery
 * The one recovery path of install, update and remove: whoever holds a scope's lockfile lock
 * first finishes or undoes what a killed writer left in any root of the scope, an install's
 * journal (activate.ts) as well as a remove's `.<key>.removing-*` dir, then acts on a consistent
 * state. Without it a remove could take a half-installed skill and the journal would later put
 * the replaced one back with no record; an update could call a half-installed skill a local edit.
 */
import { rename, rm } from "node:fs/promises";
import { join } from "node:path";
import type { LemonContext } from "../../context.ts";
import { scopePathsFor, type Scope } from "../../paths.ts";
import { recordOf, updateLockfile, type LockDoc, type LockRecord } from "../lockfile.ts";
import { dropStaleMarks, hasJournals, recoverJournals, removalMark, sweepTemp } from "./activate.ts";
import { AGENT_LABELS, assertWritableRoot, destinationRoot, namesIn, occupied, recordedRoot } from "./destination.ts";

const REMOVING = /^\.(.+)\.removing-([0-9a-f]{12})$/;

/** Where a remove parks `key` in `root` until its lock write commits. */
export const removingName = (key: string, suffix: string) => `.${key}.removing-${suffix}`;

/**
 * Puts back what a killed remove left half-done in `root` (call under the lockfile lock): a
 * `.<key>.removing-*` dir whose key still has its record (or never had one) and whose place is
 * free goes back; one whose record is gone was removed for good, and one whose place a newer
 * install took is superseded: both are deleted.
 */
async function recoverRemovals(
  root: string,
  doc: LockDoc,
  rootOf: (rec: LockRecord) => string,
  lemonRoot: string,
  markOf: (key: string, txn: string) => string,
): Promise<void> {
  for (const name of await namesIn(root)) {
    const m = REMOVING.exec(name);
    if (!m) continue;
    const key = m[1]!;
    // Only a removal lemon marked under A is settled; anything else in a root is not lemon's.
    const mark = markOf(key, m[2]!);
    if (!(await occupied(mark))) continue;
    const rec = recordOf(doc, key);
    const recordHere = rec !== null && rec.agent !== null && rootOf(rec) === root;
    const dest = join(root, key);
    // A skill of lemon's root without a record leaves no trace in the lock: it goes back.
    const unrecorded = rec === null && root === lemonRoot;
    if ((recordHere || unrecorded) && !(await occupied(dest))) await rename(join(root, name), dest);
    // Removed for good, or superseded by what was installed in its place since.
    else await rm(join(root, name), { recursive: true, force: true });
    await rm(mark, { force: true });
  }
}

/**
 * The roots of a scope recovery may write: lemon's and each `--agent` root (they share the
 * scope's lockfile). A root switched off has nothing to recover, and a project root that
 * resolves outside C is never written, not even to put a directory back.
 */
async function scopeRoots(ctx: LemonContext, scope: Scope): Promise<string[]> {
  const roots = new Set<string>();
  for (const agent of AGENT_LABELS) {
    try {
      roots.add(destinationRoot(ctx, scope, agent));
    } catch {
      // Switched off.
    }
  }
  const writable: string[] = [];
  for (const root of roots) {
    const ok = await assertWritableRoot(ctx, scope, root).then(
      () => true,
      () => false,
    );
    if (ok) writable.push(root);
  }
  return writable;
}

/**
 * Finishes or undoes every interrupted install and remove of the scope. Call only while holding
 * the scope's lockfile lock, with the document read under it: every activation and removal of a
 * scope happens under that lock, so whatever is found while holding it was abandoned.
 */
export async function recoverScope(ctx: LemonContext, scope: Scope, doc: LockDoc): Promise<void> {
  const lemonRoot = scopePathsFor(ctx, scope).skillRoot;
  const rootOf = (rec: LockRecord) => recordedRoot(ctx, scope, rec);
  // Journals first: an undone install may free the place a parked removal goes back to.
  await recoverJournals(ctx, scope, doc);
  const roots = await scopeRoots(ctx, scope);
  // Temp dirs of dead processes are swept only where lemon owns the directory (its own root of
  // the scope, A/cache where every fetch happens): another tool's root may be someone's clone,
  // whose dot-dirs are not lemon's to delete.
  if (roots.includes(lemonRoot)) await sweepTemp(lemonRoot);
  await sweepTemp(join(ctx.agentDir, "cache"));
  for (const root of roots)
    await recoverRemovals(root, doc, rootOf, lemonRoot, (key, txn) => removalMark(ctx, scope, key, txn));
  await dropStaleMarks(ctx, scope, roots);
}

/**
 * {@link recoverScope} under the scope's lock, for a caller that looks at the scope before it
 * takes the lock itself (install's early check, remove's location and approval, update's
 * local-edit check); free when A holds no journal or removal mark of the scope.
 */
export async function recoverInterrupted(ctx: LemonContext, scope: Scope, command: string): Promise<void> {
  if (!(await hasJournals(ctx, scope))) return;
  await updateLockfile(
    scopePathsFor(ctx, scope).lockfile,
    scope === "project" ? ctx.cwd : null,
    async (doc) => {
      await recoverScope(ctx, scope, doc);
      return { next: undefined, result: undefined };
    },
    { command },
  );
}
