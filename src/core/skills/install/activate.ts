/**
 * @module skills/install/activate
 * install.md §5 steps 9–13 as a journalled transaction under the scope's lockfile lock. Before a
 * rename touches the destination, a private `.<key>.txn-<random>/` records what is about to happen
 * (`intent.json`) and later holds the backup of a replaced skill. A process that fails rolls back
 * at once; one that dies (SIGKILL, power loss) leaves the journal, and the next writer of the scope
 * finishes the job under the same lock: the install counts as done only when the lock record names
 * its bundle, otherwise the previous skill and audit record are put back. Every activation of a
 * scope happens under that lock, so a journal found while holding it is abandoned.
 */
import { readdir, rename, rm } from "node:fs/promises";
import { join } from "node:path";
import type { LemonContext } from "../../context.ts";
import { conflict } from "../../errors.ts";
import { formatJson, randomHex, writeFileAtomic } from "../../fsx/atomic.ts";
import { pidAlive } from "../../fsx/pid.ts";
import { readRegularFile } from "../../fsx/regular-file.ts";
import { parseJson } from "../../json.ts";
import type { LockDoc, LockRecord } from "../lockfile.ts";
import { currentBundleHash } from "../provenance.ts";
import { dropAuditRecord, restoreAuditRecord, type PreviousAuditRecord } from "./audit-record.ts";
import { INSTALL_KEY, occupied } from "./destination.ts";
import { privateDir, type TempDir } from "./stage.ts";

/** What a journal promises: enough to tell a finished activation from one to undo. */
interface Intent {
  key: string;
  dest: string;
  /** Bundle hash of the skill being activated. */
  bundle_hash: string;
  /** The timestamp the new lock record carries (`installed_at`, or `updated_at` for an update). */
  stamp: string;
  /** The audit record that was replaced, once it has been. */
  audit: PreviousAuditRecord | null;
}

const TXN = /^\.(.+)\.txn-[0-9a-f]+$/;
const LEFTOVER = /^\.(?:.+\.staging|fetch)-(\d+)-[0-9a-f]+$/;

/** A name {@link recoverJournals} may have work for: a journal, or a staging or fetch dir. */
export const journalLeftover = (name: string): boolean => TXN.test(name) || LEFTOVER.test(name);
const INTENT = "intent.json";
const BACKUP = "backup";

/** An open journal: the intent on disk and the backup slot. */
export interface Txn {
  dir: TempDir;
  intent: Intent;
  /** Where a replaced skill waits until the transaction ends. */
  backup: string;
  /** True once the previous skill sits in `backup`. */
  backedUp: boolean;
  /** True once the staged skill sits at `dest`. */
  activated: boolean;
}

export async function openTxn(destRoot: string, intent: Omit<Intent, "audit">): Promise<Txn> {
  const dir = await privateDir(destRoot, `.${intent.key}.txn-${randomHex(6)}`, true);
  const txn: Txn = {
    dir,
    intent: { ...intent, audit: null },
    backup: join(dir.path, BACKUP),
    backedUp: false,
    activated: false,
  };
  await saveIntent(txn);
  return txn;
}

export async function saveIntent(txn: Txn): Promise<void> {
  await writeFileAtomic(join(txn.dir.path, INTENT), formatJson(txn.intent), { confineTo: null });
}

/** Step 10: the previous skill (if any) into the journal's backup slot, the staged one into place. */
export async function activate(txn: Txn, staged: string, replacing: boolean): Promise<void> {
  if (replacing) {
    await rename(txn.intent.dest, txn.backup);
    txn.backedUp = true;
  }
  await rename(staged, txn.intent.dest);
  txn.activated = true;
}

/** Step 12 for a live transaction: the new skill out, the backup back, the audit record restored. */
export async function rollback(txn: Txn): Promise<void> {
  if (txn.activated) await rm(txn.intent.dest, { recursive: true, force: true });
  if (txn.backedUp) await rename(txn.backup, txn.intent.dest);
  if (txn.intent.audit !== null) await restoreAuditRecord(txn.intent.audit);
  await txn.dir.remove();
}

function readIntent(dir: string): Intent | null {
  const read = readRegularFile(join(dir, INTENT), 1 << 20);
  if (!read.ok) return null;
  try {
    const raw = parseJson(new TextDecoder().decode(read.bytes)) as Partial<Intent> | null;
    if (raw === null || typeof raw !== "object") return null;
    if (typeof raw.key !== "string" || typeof raw.dest !== "string" || typeof raw.bundle_hash !== "string") return null;
    if (typeof raw.stamp !== "string") return null;
    return { key: raw.key, dest: raw.dest, bundle_hash: raw.bundle_hash, stamp: raw.stamp, audit: raw.audit ?? null };
  } catch {
    return null;
  }
}

/** True when the lock already says the journalled activation happened. */
function finished(doc: LockDoc, intent: Intent): boolean {
  const rec: LockRecord | undefined = Object.hasOwn(doc.skills, intent.key) ? doc.skills[intent.key] : undefined;
  return (
    rec !== undefined &&
    rec.bundle_hash === intent.bundle_hash &&
    (rec.installed_at === intent.stamp || rec.updated_at === intent.stamp)
  );
}

/** True when the lock already holds the record this live transaction was writing. */
export const journalFinished = (doc: LockDoc, txn: Txn): boolean => finished(doc, txn.intent);

/**
 * Finishes or undoes every journal a dead writer left in `destRoot`. Call only while holding the
 * scope's lockfile lock, with the document read under it. A journal without a readable intent
 * died before anything was moved: it is just removed.
 */
export async function recoverJournals(destRoot: string, doc: LockDoc, audit: AuditTrust): Promise<void> {
  let names: string[];
  try {
    names = await readdir(destRoot);
  } catch {
    return;
  }
  for (const name of names) {
    // Staging and fetch dirs of a process that died: never activated, just removed.
    const temp = LEFTOVER.exec(name);
    if (temp !== null) {
      const pid = Number(temp[1]);
      if (pid !== process.pid && !pidAlive(pid)) await rm(join(destRoot, name), { recursive: true, force: true });
      continue;
    }
    const txnKey = TXN.exec(name)?.[1];
    if (txnKey === undefined) continue;
    const dir = join(destRoot, name);
    const read = readIntent(dir);
    // A journal is only ever about the key in its own name, directly in this root: one naming
    // anything else (a committed, hostile one in a project) moves nothing.
    const intent = read !== null && read.key === txnKey && INSTALL_KEY.test(read.key) ? read : null;
    const backup = join(dir, BACKUP);
    if (intent !== null && intent.dest === join(destRoot, intent.key) && !finished(doc, intent)) {
      // Only the skill this journal activated is removed: its bytes say so.
      if ((await occupied(intent.dest)) && (await currentBundleHash(intent.dest)) === intent.bundle_hash)
        await rm(intent.dest, { recursive: true, force: true });
      if ((await occupied(backup)) && !(await occupied(intent.dest))) await rename(backup, intent.dest);
      await undoAuditRecord(intent, audit);
      // A backup that could not go back (something else took its place) is never deleted.
      if (await occupied(backup)) continue;
    }
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Whose journals may say what the audit cache held. A project's roots lie in the clone, so a
 * journal there could carry a forged record: for them the new record is only dropped (a cache
 * miss, which re-audits), never replaced by what the journal says.
 */
export interface AuditTrust {
  file: string;
  trusted: boolean;
}

async function undoAuditRecord(intent: Intent, audit: AuditTrust): Promise<void> {
  const prev = intent.audit;
  if (audit.trusted && prev !== null && prev.file === audit.file && prev.id === `skill:${intent.key}`)
    await restoreAuditRecord(prev);
  else await dropAuditRecord(audit.file, intent.key, intent.bundle_hash);
}

/** Step 9's re-check: a skill that appeared since step 4 is a concurrent install. */
export async function recheck(dest: string, key: string, replace: boolean): Promise<boolean> {
  const there = await occupied(dest);
  if (there && !replace) throw conflict(`Skill '${key}' is already installed at ${dest}; use --force to replace it`);
  return there;
}
