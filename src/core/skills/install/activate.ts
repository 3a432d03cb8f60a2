/**
 * @module skills/install/activate
 * install.md §5 steps 9–13 as a journalled transaction under the scope's lockfile lock. Before a
 * rename touches the destination, lemon writes what is about to happen into its own state,
 * `A/cache/install-txn/<scope>/<key>.<txn>.json`; the backup of a replaced skill waits in
 * `<root>/.<key>.txn-<txn>/backup` (a rename must stay on the root's filesystem). A process that
 * fails rolls back at once; one that dies (SIGKILL, power loss) leaves the journal, and the next
 * writer of the scope settles it under the same lock: the install counts as done only when the
 * lock record names its bundle, otherwise the previous skill and audit record are put back.
 *
 * Nothing inside a skill root vouches for itself: a project's roots come with a clone, and global
 * tool roots (`~/.claude/skills`) are often a `git clone` of someone's collection. So recovery
 * acts only on journals under A, and only on paths it recomputes (the root from the recorded
 * agent label, then `.<key>.txn-<txn>` in it), never on a path read from a file; a
 * `.<key>.txn-*` dir without a journal of lemon's is left alone.
 */
import { realpathSync } from "node:fs";
import { rename, rm } from "node:fs/promises";
import { join, resolve } from "node:path";
import type { LemonContext } from "../../context.ts";
import { conflict } from "../../errors.ts";
import { formatJson, makeDir, randomHex, writeFileAtomic } from "../../fsx/atomic.ts";
import { pidAlive } from "../../fsx/pid.ts";
import { readRegularFile } from "../../fsx/regular-file.ts";
import { sha256Hex } from "../../hash.ts";
import { parseJson } from "../../json.ts";
import type { Scope } from "../../paths.ts";
import { isValid } from "../../schema/check.ts";
import { InstallJournal } from "../../schema/install-journal.ts";
import { auditCacheFile } from "../audit/target.ts";
import { recordOf, type LockDoc } from "../lockfile.ts";
import { currentBundleHash } from "../provenance.ts";
import { dropAuditRecord, restoreAuditRecord, type PreviousAuditRecord } from "./audit-record.ts";
import { type AgentLabel, assertWritableRoot, destinationRoot, namesIn, occupied } from "./destination.ts";
import { privateDir, type TempDir } from "./stage.ts";

const LEFTOVER = /^\.(?:.+\.staging|fetch)-(\d+)-[0-9a-f]+$/;
const JOURNAL = /^(.+)\.([0-9a-f]{12})\.json$/;
const BACKUP = "backup";

/**
 * The journal dir of a scope under A. A project is named by the real path of C, which the
 * lockfile's place follows; the audit cache's scope id would not do, since it changes when an
 * install creates a root and would orphan the journal of that very install.
 */
export function journalDir(ctx: LemonContext, scope: Scope): string {
  const base = join(ctx.agentDir, "cache", "install-txn");
  if (scope === "global") return join(base, "global");
  let real: string;
  try {
    real = realpathSync(ctx.cwd);
  } catch {
    real = resolve(ctx.cwd);
  }
  return join(base, `project-${sha256Hex(real).slice(0, 16)}`);
}

/** An open transaction: the journal under A, the txn dir in the root with its backup slot. */
export interface Txn {
  journal: InstallJournal;
  /** The journal file under A. */
  file: string;
  /** `<root>/.<key>.txn-<txn>`. */
  dir: TempDir;
  dest: string;
  backup: string;
  auditFile: string;
  /** The audit record replaced by this install, once it has been. */
  prevAudit: PreviousAuditRecord | null;
  /** True once the previous skill sits in `backup`. */
  backedUp: boolean;
  /** True once the staged skill sits at `dest`. */
  activated: boolean;
}

export interface TxnPlan {
  key: string;
  agent: AgentLabel;
  root: string;
  bundle_hash: string;
  stamp: string;
  replacing: boolean;
}

const writeJournal = (ctx: LemonContext, txn: Txn) =>
  writeFileAtomic(txn.file, formatJson(txn.journal), { confineTo: ctx.agentDir, mode: 0o600 });

/** Writes the journal first, then creates the txn dir: a txn dir never exists without its journal. */
export async function openTxn(ctx: LemonContext, scope: Scope, plan: TxnPlan): Promise<Txn> {
  const txnId = randomHex(6);
  const dir = journalDir(ctx, scope);
  await makeDir(dir, 0o700);
  const journal: InstallJournal = {
    version: 1,
    key: plan.key,
    agent: plan.agent,
    txn: txnId,
    bundle_hash: plan.bundle_hash,
    stamp: plan.stamp,
    replacing: plan.replacing,
    audit: null,
  };
  const file = join(dir, `${plan.key}.${txnId}.json`);
  const pending = { journal, file } as Txn;
  await writeJournal(ctx, pending);
  try {
    const txnDir = await privateDir(plan.root, `.${plan.key}.txn-${txnId}`, true);
    return {
      journal,
      file,
      dir: txnDir,
      dest: join(plan.root, plan.key),
      backup: join(txnDir.path, BACKUP),
      auditFile: auditCacheFile(ctx, scope),
      prevAudit: null,
      backedUp: false,
      activated: false,
    };
  } catch (err) {
    await rm(file, { force: true });
    throw err;
  }
}

/** Records in the journal what the audit cache held before this install replaced it. */
export async function saveAudit(ctx: LemonContext, txn: Txn, prev: PreviousAuditRecord): Promise<void> {
  txn.prevAudit = prev;
  txn.journal.audit = { present: prev.present, value: prev.value };
  await writeJournal(ctx, txn);
}

/** Step 10: the previous skill (if any) into the journal's backup slot, the staged one into place. */
export async function activate(txn: Txn, staged: string): Promise<void> {
  if (txn.journal.replacing) {
    await rename(txn.dest, txn.backup);
    txn.backedUp = true;
  }
  await rename(staged, txn.dest);
  txn.activated = true;
}

/** Step 12 for a live transaction: the new skill out, the backup back, the audit record restored. */
export async function rollback(txn: Txn): Promise<void> {
  if (txn.activated) await rm(txn.dest, { recursive: true, force: true });
  if (txn.backedUp) await rename(txn.backup, txn.dest);
  if (txn.prevAudit !== null) await restoreAuditRecord(txn.prevAudit);
  await txn.dir.remove();
  await rm(txn.file, { force: true });
}

/**
 * Step 13 once the lock record is written: the journal goes first, so that a writer recovering
 * later never undoes an install whose record a remove has dropped since.
 */
export async function closeTxn(txn: Txn): Promise<void> {
  await rm(txn.file, { force: true });
  await txn.dir.remove();
}

/** True when the lock already says the journalled activation happened. */
function finished(doc: LockDoc, j: InstallJournal): boolean {
  const rec = recordOf(doc, j.key);
  return (
    rec !== null && rec.bundle_hash === j.bundle_hash && (rec.installed_at === j.stamp || rec.updated_at === j.stamp)
  );
}

/** True when the lock already holds the record this live transaction was writing. */
export const journalFinished = (doc: LockDoc, txn: Txn): boolean => finished(doc, txn.journal);

function readJournal(file: string, key: string, txn: string): InstallJournal | null {
  const read = readRegularFile(file, 1 << 20);
  if (!read.ok) return null;
  try {
    const raw: unknown = parseJson(new TextDecoder().decode(read.bytes));
    if (!isValid(InstallJournal, raw)) return null;
    const j = raw as InstallJournal;
    return j.key === key && j.txn === txn ? j : null;
  } catch {
    return null;
  }
}

/** True when the scope has a journal or a removal to settle (cheap: one readdir under A). */
export async function hasJournals(ctx: LemonContext, scope: Scope): Promise<boolean> {
  return (await namesIn(journalDir(ctx, scope))).some((n) => JOURNAL.test(n) || REMOVAL.test(n));
}

const REMOVAL = /^(.+)\.([0-9a-f]{12})\.removing\.json$/;

/**
 * lemon's own mark of a removal in flight: a remove parks `<root>/.<key>.removing-<txn>` only
 * after writing it, so a parked dir without one (shipped in a cloned root) is never put back.
 */
export const removalMark = (ctx: LemonContext, scope: Scope, key: string, txn: string): string =>
  join(journalDir(ctx, scope), `${key}.${txn}.removing.json`);

/** Drops the marks of removals whose parked dir is in none of `roots` (put back by a signal handler). */
export async function dropStaleMarks(ctx: LemonContext, scope: Scope, roots: readonly string[]): Promise<void> {
  const dir = journalDir(ctx, scope);
  for (const name of await namesIn(dir)) {
    const m = REMOVAL.exec(name);
    if (m === null) continue;
    let parked = false;
    for (const root of roots) if (await occupied(join(root, `.${m[1]}.removing-${m[2]}`))) parked = true;
    if (!parked) await rm(join(dir, name), { force: true });
  }
}

export async function markRemoval(ctx: LemonContext, scope: Scope, key: string, txn: string): Promise<string> {
  const file = removalMark(ctx, scope, key, txn);
  await makeDir(journalDir(ctx, scope), 0o700);
  await writeFileAtomic(file, formatJson({ version: 1, key, txn }), { confineTo: ctx.agentDir, mode: 0o600 });
  return file;
}

/**
 * Finishes or undoes every journal a dead writer of the scope left under A. Call only while
 * holding the scope's lockfile lock, with the document read under it. A journal whose root is
 * switched off now, or resolves outside C, or whose backup could not go back, is kept for later.
 */
export async function recoverJournals(ctx: LemonContext, scope: Scope, doc: LockDoc): Promise<void> {
  const dir = journalDir(ctx, scope);
  for (const name of await namesIn(dir)) {
    const m = JOURNAL.exec(name);
    if (m === null) continue;
    const file = join(dir, name);
    const j = readJournal(file, m[1]!, m[2]!);
    // lemon writes journals atomically: one that does not read is not a plan to act on.
    if (j === null) {
      await rm(file, { force: true });
      continue;
    }
    let root: string;
    try {
      root = destinationRoot(ctx, scope, j.agent);
      await assertWritableRoot(ctx, scope, root);
    } catch {
      continue;
    }
    const dest = join(root, j.key);
    const txnDir = join(root, `.${j.key}.txn-${j.txn}`);
    if (!finished(doc, j) && !(await undo(ctx, scope, j, dest, join(txnDir, BACKUP)))) continue;
    await rm(file, { force: true });
    await rm(txnDir, { recursive: true, force: true });
  }
}

/** Puts back what an unfinished activation replaced; false when its backup cannot go back yet. */
async function undo(ctx: LemonContext, scope: Scope, j: InstallJournal, dest: string, backup: string) {
  // Only the skill this journal activated is removed: its bytes say so.
  const ours = async () => (await occupied(dest)) && (await currentBundleHash(dest)) === j.bundle_hash;
  const backedUp = j.replacing && (await occupied(backup));
  // Replacing without a backup: the first rename never happened, `dest` is still the old skill.
  if ((backedUp || !j.replacing) && (await ours())) await rm(dest, { recursive: true, force: true });
  if (backedUp) {
    if (await occupied(dest)) return false;
    await rename(backup, dest);
  }
  const auditFile = auditCacheFile(ctx, scope);
  if (j.audit !== null)
    await restoreAuditRecord({ file: auditFile, id: `skill:${j.key}`, present: j.audit.present, value: j.audit.value });
  else await dropAuditRecord(auditFile, j.key, j.bundle_hash);
  return true;
}

/** Removes the staging and fetch dirs of dead processes from `root` (a root recovery may write). */
export async function sweepTemp(root: string): Promise<void> {
  for (const name of await namesIn(root)) {
    const temp = LEFTOVER.exec(name);
    if (temp === null) continue;
    const pid = Number(temp[1]);
    if (pid !== process.pid && !pidAlive(pid)) await rm(join(root, name), { recursive: true, force: true });
  }
}

/** Step 9's re-check: a skill that appeared since step 4 is a concurrent install. */
export async function recheck(dest: string, key: string, replace: boolean): Promise<boolean> {
  const there = await occupied(dest);
  if (there && !replace) throw conflict(`Skill '${key}' is already installed at ${dest}; use --force to replace it`);
  return there;
}
