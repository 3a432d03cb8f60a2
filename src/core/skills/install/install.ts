/**
 * @module skills/install/install
 * The install sequence of install.md §5: plan, early conflict check, operation approval, then
 * `stageAndActivate` (steps 4–13), which `update` reuses with replace semantics. The staging and
 * backup dirs are dot-named under the destination root (a rename stays on its filesystem), the
 * fetch dir under A/cache; all are removed at the end. The journal of an activation is lemon's
 * own state under A (activate.ts).
 */
import { existsSync } from "node:fs";
import { basename, join } from "node:path";
import type { LemonContext } from "../../context.ts";
import { conflict, invalidParams, invalidRequest } from "../../errors.ts";
import { isoSeconds, makeDir } from "../../fsx/atomic.ts";
import { scopePathsFor, type Scope } from "../../paths.ts";
import type { Finding, Verdict } from "../../schema/finding.ts";
import { parseOverrideHash } from "../audit/override.ts";
import { escapeKey } from "../skill-key.ts";
import { readLockForWrite, recordOf, updateLockfile, type LockRecord } from "../lockfile.ts";
import { activate, closeTxn, journalFinished, openTxn, recheck, rollback, saveAudit, type Txn } from "./activate.ts";
import { requestApproval, type Approver } from "./approval.ts";
import { auditRecordOf, putAuditRecord } from "./audit-record.ts";
import { assertWritableRoot, destinationRoot, INSTALL_KEY, occupied, type AgentLabel } from "./destination.ts";
import { fetchSource, type FetchedSource } from "./fetch.ts";
import { findSkills, selectSkill, type FoundSkill } from "./select.ts";
import { resolveRegistrySpec, type RegistryConfigSource } from "../online/registry.ts";
import { parseSource, type SourceSpec } from "./source.ts";
import { decide, recordFor } from "./record.ts";
import { recoverInterrupted, recoverScope } from "./recovery.ts";
import { privateDir, stageSkill, tempSuffix, type Staged, type TempDir } from "./stage.ts";
import { pauseAt } from "../../test-hooks.ts";

export { pauseAt } from "../../test-hooks.ts";

/** One install as the module and the CLI ask for it (cli.md §2.12, §7 InstallOptions). */
export interface InstallRequest {
  source: string;
  /** Global scope (default) or the project of the context's cwd. */
  global: boolean;
  agent: AgentLabel;
  approve: Approver;
  force: boolean;
  ref?: string;
  path?: string;
  skill?: string;
  as?: string;
  securityOverride?: string;
  /** Print the skills the source holds; install nothing. */
  list?: boolean;
  onProgress?: (line: string) => void;
  onNotice?: (line: string) => void;
  /** Told the key as soon as it is known (before approvals), for events about a failed install. */
  onKey?: (key: string) => void;
  /** The instance's registry settings (createLemon `config.skills`, readConfigFile). */
  registryConfig?: RegistryConfigSource;
}

/** `install --list`: the skills of the source (cli.md §2.12). */
export interface InstallListing {
  kind: "list";
  source: string;
  skills: { key: string; path: string }[];
}

/** A finished activation, before the registry turns `dest` into an Entry. */
export interface Activated {
  kind: "activated";
  action: "installed" | "replaced";
  key: string;
  scope: Scope;
  agent: AgentLabel;
  dest: string;
  audit: { verdict: Verdict; findings: Finding[] };
  lock: LockRecord;
}

export type InstallOutcome = InstallListing | Activated;

/** What `stageAndActivate` needs: a parsed source, where it goes, and how to decide. */
export interface ActivationPlan {
  spec: SourceSpec;
  scope: Scope;
  agent: AgentLabel;
  destRoot: string;
  /** The key when fixed before fetching (`--as`, a registry/hermes/well-known name, update's key). */
  key: string | null;
  /** `--skill`: which skill of a source holding several. */
  skill?: string;
  /** Replace an existing destination (`--force`; always for update). */
  replace: boolean;
  /** An update: keeps `installed_at` (and the last check) of the previous record, sets `updated_at`. */
  update?: boolean;
  approve: Approver;
  securityOverride?: string;
  /** Runs once the key and destination are known, before staging (the operation approval). */
  beforeStage?: (key: string, dest: string) => Promise<void>;
  /** Fields set on the new record last (update passes its check results). */
  patch?: Partial<Omit<LockRecord, "key">>;
  onProgress?: (line: string) => void;
  onNotice?: (line: string) => void;
}

/** The key a source's root skill takes: the subdir's last segment, the local dir's name, or the repo name. */
export function rootNameOf(spec: SourceSpec): string {
  if (spec.subdir !== null) return spec.subdir.split("/").pop()!;
  if (spec.kind === "local" && spec.localPath !== null) return basename(spec.localPath);
  const last =
    spec.sourceId
      .replace(/[/\\]+$/, "")
      .split(/[/\\:]/)
      .pop() ?? "";
  return last.replace(/\.git$/, "");
}

/** INVALID_PARAMS for a key `--as` gave, INVALID_REQUEST for one the source's layout gave. */
function checkKey(key: string, fromFlag: boolean): string {
  if (INSTALL_KEY.test(key)) return key;
  const message = `invalid skill key '${escapeKey(key)}': keys match ^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`;
  if (fromFlag) throw invalidParams(message);
  throw invalidRequest(message, { hint: "choose another key with --as <key>" });
}

const alreadyInstalled = (key: string, dest: string) =>
  conflict(`Skill '${key}' is already installed at ${dest}; use --force to replace it`);

const lockfileOf = (ctx: LemonContext, scope: Scope) => scopePathsFor(ctx, scope).lockfile;
const confineOf = (ctx: LemonContext, scope: Scope) => (scope === "project" ? ctx.cwd : null);

/** Fetches the source into a private dir under `parent` and finds its skills; the caller removes `dir`. */
async function fetchAndFind(
  ctx: LemonContext,
  spec: SourceSpec,
  parent: string,
  onProgress?: (line: string) => void,
): Promise<{ dir: TempDir; fetched: FetchedSource; found: FoundSkill[] }> {
  const dir = await privateDir(parent, `.fetch-${tempSuffix()}`);
  try {
    const fetched = await fetchSource(spec, dir.path, { env: ctx.env, ...(onProgress ? { onProgress } : {}) });
    await pauseAt(ctx, "fetched");
    const found = await findSkills(fetched.root);
    return { dir, fetched, found };
  } catch (err) {
    await dir.remove();
    throw err;
  }
}

/**
 * install.md §5 steps 4–13: fetch and select, stage, validate, hash, audit and decide, then under
 * the scope's lockfile lock re-check, activate by rename, write the lock and audit records, and
 * roll everything back on failure (see activate.ts for a process that dies mid-way).
 */
export async function stageAndActivate(ctx: LemonContext, plan: ActivationPlan): Promise<Activated> {
  const { spec, scope, destRoot } = plan;
  await assertWritableRoot(ctx, scope, destRoot);
  await makeDir(destRoot, 0o755);
  // Fetched under lemon's own cache, never in a root another tool may own (or a project clone):
  // what a killed fetch leaves there is swept by the next writer (recovery.ts).
  const fetchParent = join(ctx.agentDir, "cache");
  await makeDir(fetchParent, 0o755);
  const { dir: fetchDir, fetched, found } = await fetchAndFind(ctx, spec, fetchParent, plan.onProgress);
  let staged: Staged | null = null;
  try {
    const selected = selectSkill(found, plan.skill, rootNameOf(spec));
    const key = checkKey(plan.key ?? (selected.path === "" ? rootNameOf(spec) : selected.key), false);
    const dest = join(destRoot, key);
    if (!plan.replace && (await occupied(dest))) throw alreadyInstalled(key, dest);
    await plan.beforeStage?.(key, dest);
    staged = await stageSkill(ctx, selected.dir, destRoot, key);
    const approvals = await decide(ctx, plan, staged);
    await pauseAt(ctx, "staged");
    const stamp = isoSeconds(ctx.now());
    const file = lockfileOf(ctx, scope);
    const confine = confineOf(ctx, scope);
    let pending: Txn | null = null;
    const s = staged;
    const done = await updateLockfile(
      file,
      confine,
      async (doc) => {
        await recoverScope(ctx, scope, doc);
        const replacing = await recheck(dest, key, plan.replace);
        const prev = recordOf(doc, key) ?? undefined;
        const record = recordFor(plan, s, fetched, selected, prev, stamp, approvals);
        const txn = await openTxn(ctx, scope, {
          key,
          agent: plan.agent,
          root: destRoot,
          bundle_hash: s.bundleHash,
          stamp,
          replacing,
        });
        try {
          await activate(txn, s.dir);
          await pauseAt(ctx, "activated");
          const prevAudit = await putAuditRecord(txn.auditFile, key, auditRecordOf(s.report, key, ctx.now()));
          await saveAudit(ctx, txn, prevAudit);
          await pauseAt(ctx, "recorded");
        } catch (err) {
          await rollback(txn);
          throw err;
        }
        doc.skills[key] = record;
        pending = txn;
        return { next: doc, result: { txn, replacing, record } };
      },
      { command: plan.update ? "lemon skill update" : "lemon skill install" },
    ).catch(async (err: unknown) => {
      // The lock write failed after activation: undo under the lock. This process still knows
      // exactly what it replaced; a journal another writer already recovered is left alone.
      const txn: Txn | null = pending;
      if (txn !== null)
        await updateLockfile(file, confine, async (doc) => {
          if ((await occupied(txn.file)) && !journalFinished(doc, txn)) await rollback(txn);
          await recoverScope(ctx, scope, doc);
          return { next: undefined, result: undefined };
        }).catch(() => {});
      throw err;
    });
    await pauseAt(ctx, "locked");
    await closeTxn(done.txn);
    return {
      kind: "activated",
      action: done.replacing ? "replaced" : "installed",
      key,
      scope,
      agent: plan.agent,
      dest,
      audit: { verdict: s.report.verdict, findings: s.report.findings },
      lock: done.record,
    };
  } finally {
    await staged?.outer.remove();
    await fetchDir.remove();
  }
}

/** Lists the skills of a source without installing (`--list`), fetched under the agent dir's cache. */
async function listSource(ctx: LemonContext, spec: SourceSpec): Promise<InstallListing> {
  const parent = join(ctx.agentDir, "cache");
  await makeDir(parent, 0o755);
  const { dir, found } = await fetchAndFind(ctx, spec, parent);
  try {
    const rootName = rootNameOf(spec);
    const skills = found.map((f) => ({ key: f.path === "" ? rootName : f.key, path: f.path }));
    return { kind: "list", source: spec.display, skills };
  } finally {
    await dir.remove();
  }
}

/** The key install.md §5 step 1 knows before fetching, if any. */
function upFrontKey(spec: SourceSpec, req: InstallRequest): string | null {
  if (req.as !== undefined) return req.as;
  if (spec.key !== null) return spec.key;
  if (req.skill !== undefined) return req.skill;
  if (spec.subdir !== null) return rootNameOf(spec);
  if (spec.kind === "local" && spec.localPath !== null && existsSync(join(spec.localPath, "SKILL.md")))
    return rootNameOf(spec);
  return null;
}

/** install.md §5 for one request in the context's cwd. */
export async function installSkill(ctx: LemonContext, req: InstallRequest): Promise<InstallOutcome> {
  if (req.securityOverride !== undefined) parseOverrideHash(req.securityOverride);
  if (req.as !== undefined) checkKey(req.as, true);
  const spec = parseSource(req.source, {
    cwd: ctx.cwd,
    homeDir: ctx.homeDir,
    env: ctx.env,
    ...(req.ref !== undefined ? { ref: req.ref } : {}),
    ...(req.path !== undefined ? { path: req.path } : {}),
  });
  // No registry configured: UNAVAILABLE before anyone is asked to approve anything.
  await resolveRegistrySpec(ctx, spec, req.registryConfig);
  if (req.list === true) return listSource(ctx, spec);
  const scope: Scope = req.global ? "global" : "project";
  const destRoot = destinationRoot(ctx, scope, req.agent);
  await assertWritableRoot(ctx, scope, destRoot);
  // An invalid lockfile fails before anyone is asked anything (skills.md §1.3 rule 4).
  await readLockForWrite(lockfileOf(ctx, scope));
  // A killed install of this scope is settled before the early check looks at the destination:
  // its half-activated skill would otherwise make the plain re-run a false CONFLICT.
  await recoverInterrupted(ctx, scope, "lemon skill install");
  let approvedKey: string | null = null;
  const approveOperation = async (key: string, dest: string) => {
    req.onKey?.(key);
    if (approvedKey === key) return;
    const trustLevel = spec.trust;
    await requestApproval(req.approve, {
      kind: "skill_install",
      key,
      scope,
      trustLevel,
      source: spec.display,
      destination: dest,
    });
    approvedKey = key;
  };
  const early = upFrontKey(spec, req);
  if (early !== null) req.onKey?.(early);
  if (early !== null && INSTALL_KEY.test(early)) {
    const dest = join(destRoot, early);
    if (!req.force && (await occupied(dest))) throw alreadyInstalled(early, dest);
    await approveOperation(early, dest);
  }
  return stageAndActivate(ctx, {
    spec,
    scope,
    agent: req.agent,
    destRoot,
    key: req.as ?? spec.key,
    ...(req.skill !== undefined ? { skill: req.skill } : {}),
    replace: req.force,
    approve: req.approve,
    ...(req.securityOverride !== undefined ? { securityOverride: req.securityOverride } : {}),
    beforeStage: approveOperation,
    ...(req.onProgress ? { onProgress: req.onProgress } : {}),
    ...(req.onNotice ? { onNotice: req.onNotice } : {}),
  });
}
