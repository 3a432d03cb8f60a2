/**
 * @module skills/install/update
 * `skill update` (install.md §9): ask the upstream for its identity (one ls-remote for git, never
 * a clone), compare it with the installed one, refuse to overwrite local edits, and reinstall
 * through the install sequence's own activation (install.ts `stageAndActivate`, replace
 * semantics, `installed_at` kept). Several keys query their upstreams in parallel, bounded, and
 * record what they saw in one lockfile write.
 */
import { join } from "node:path";
import type { LemonContext } from "../../context.ts";
import { type ErrorCode, LemonError, notFound, toLemonError } from "../../errors.ts";
import { isoSeconds } from "../../fsx/atomic.ts";
import { scopePathsFor, type Scope } from "../../paths.ts";
import { parseOverrideHash } from "../audit/override.ts";
import { currentBundleHash } from "../provenance.ts";
import { installedIdentity, readLockForWrite, recordOf, updateLockfile, type LockRecord } from "../lockfile.ts";
import { requestApproval, type Approver } from "./approval.ts";
import { bounded } from "./bounded.ts";
import { stageAndActivate } from "./install.ts";
import { resolveRegistrySpec, type RegistryConfigSource } from "../online/registry.ts";
import { specFromRecord, type SourceSpec } from "./source.ts";
import { occupied, recordedRoot } from "./destination.ts";
import { recoverInterrupted } from "./recovery.ts";
import { assertSkillKey } from "./uninstall.ts";
import { upstreamIdentity } from "./upstream.ts";

/** Result status of one key (install.md §9). */
export type UpdateStatus = "up_to_date" | "updated" | "update_available" | "pinned";

/** cli.md §7 UpdateResult: `from`/`to` = installed/upstream identity (full hashes). */
export interface UpdateResult {
  key: string;
  status: UpdateStatus;
  from: string | null;
  to: string | null;
}

/** One key of a several-key run: its result, or the error that stopped it (cli.md §2.13). */
export type UpdateItem = UpdateResult | { key: string; error: { code: ErrorCode; message: string } };

/** How approvals are answered; the install engine's type. */
export type ApproveArg = Approver;

export interface UpdateRequest {
  /** Project scope when false (install.md §9 `--local`); default global. */
  global: boolean;
  approve: ApproveArg;
  /** Overwrite local modifications (§9 step 4). */
  force: boolean;
  /** Only query upstream and record checked_at / latest_upstream_hash (§9 step 3). */
  check: boolean;
  /** A new ref to follow (also the only way to move a commit pin). */
  ref?: string;
  /** Exact bundle sha256 for a blocked update (install.md §8). */
  securityOverride?: string;
  onProgress?: (line: string) => void;
  onNotice?: (line: string) => void;
  /** Remote checks in flight at once for several keys (default UPDATE_CONCURRENCY). */
  concurrency?: number;
  /** The instance's registry settings (createLemon `config.skills`, readConfigFile). */
  registryConfig?: RegistryConfigSource;
}

/** Bound of parallel upstream queries of `update --all` / `--check`. */
export const UPDATE_CONCURRENCY = 8;

/** Sources an update can follow; `--all` skips the others instead of failing on them. */
const UPDATABLE = new Set(["local", "git", "github", "registry", "hermes", "well_known"]);

/** A key after step 2: its record, the source to follow, and what the upstream says. */
interface Queried {
  key: string;
  rec: LockRecord;
  spec: SourceSpec;
  installed: string | null;
  /** The upstream identity; for a pin, the pin itself. */
  upstream: string;
  pinned: boolean;
}

type Outcome = { key: string; result: UpdateResult } | { key: string; error: LemonError };

/**
 * One remote question per (clone URL, ref) in a run: skills installed from the same repository
 * (several skills of one repo, the common case) share one ls-remote. Other kinds hash per skill.
 */
type Asked = Map<string, Promise<string>>;
const askedKey = (spec: SourceSpec) =>
  spec.kind === "git" || spec.kind === "github" ? `${spec.cloneUrl ?? ""}\0${spec.ref ?? ""}` : null;

/** Steps 1–2 for one key: the record (NOT_FOUND / INVALID_REQUEST) and the upstream identity. */
async function query(ctx: LemonContext, key: string, rec: LockRecord | null, req: UpdateRequest, asked: Asked) {
  assertSkillKey(key);
  if (rec === null) throw notFound(`Skill '${key}' has no install record; nothing to update`);
  const spec = specFromRecord(rec, {
    cwd: ctx.cwd,
    homeDir: ctx.homeDir,
    env: ctx.env,
    ...(req.ref !== undefined ? { ref: req.ref } : {}),
  });
  await resolveRegistrySpec(ctx, spec, req.registryConfig);
  const installed = installedIdentity(rec);
  // A commit pin names its own identity: nothing to ask, and never moved without --ref.
  const pinned = spec.pinned && req.ref === undefined;
  const ask = () =>
    upstreamIdentity(spec, {
      env: ctx.env,
      // lemon's own cache, never a project root: a download to hash writes nothing under C.
      scratch: join(ctx.agentDir, "cache"),
      key,
      ...(req.onProgress ? { onProgress: req.onProgress } : {}),
    });
  const shared = askedKey(spec);
  let pending = shared === null ? undefined : asked.get(shared);
  if (pending === undefined) {
    pending = ask();
    if (shared !== null) asked.set(shared, pending);
  }
  const upstream = await pending;
  return { key, rec, spec, installed, upstream, pinned } satisfies Queried;
}

/**
 * Step 3 for every queried key in one write: `checked_at` and `latest_upstream_hash`, plus the
 * new `source_ref` when `--ref` moved an up-to-date skill to another ref naming the same commit.
 */
async function recordChecks(ctx: LemonContext, scope: Scope, queried: Queried[], req: UpdateRequest) {
  if (queried.length === 0) return;
  const paths = scopePathsFor(ctx, scope);
  const at = isoSeconds(ctx.now());
  await updateLockfile(
    paths.lockfile,
    scope === "project" ? ctx.cwd : null,
    async (doc) => {
      for (const q of queried) {
        const rec = recordOf(doc, q.key);
        if (rec === null) continue;
        const moved = req.ref !== undefined && !req.check && q.upstream === q.installed;
        doc.skills[q.key] = {
          ...rec,
          checked_at: at,
          latest_upstream_hash: q.upstream,
          ...(moved ? { source_ref: q.spec.ref } : {}),
        };
      }
      return { next: doc, result: undefined };
    },
    { command: req.check ? "lemon skill update --check" : "lemon skill update" },
  );
}

/** Steps 4–5 for one key whose upstream moved: drift, approval, reinstall with replace semantics. */
async function reinstall(ctx: LemonContext, scope: Scope, q: Queried, req: UpdateRequest): Promise<UpdateResult> {
  const destRoot = recordedRoot(ctx, scope, q.rec);
  const dest = join(destRoot, q.key);
  if (!req.force) {
    const current = await currentBundleHash(dest);
    // A directory that is gone has no edits to protect, and saying it has would send the user
    // looking for changes that do not exist.
    if (current === null && !(await occupied(dest)))
      throw notFound(`Skill '${q.key}' is not installed at ${dest}: its directory is gone`, {
        hint: `re-run with --force to install it again, or 'lemon skill remove ${q.key}' to drop its record`,
      });
    if (current !== q.rec.bundle_hash)
      throw new LemonError(
        "CONFLICT",
        `Skill '${q.key}' has local modifications; re-run with --force to overwrite them`,
      );
  }
  // §9 step 5: the operation approval comes before anything is fetched (§5 step 4 onwards).
  await requestApproval(req.approve, {
    kind: "skill_update",
    key: q.key,
    scope,
    trustLevel: q.spec.trust,
    source: q.spec.display,
    destination: dest,
  });
  const done = await stageAndActivate(ctx, {
    spec: q.spec,
    scope,
    agent: q.rec.agent,
    destRoot,
    key: q.key,
    replace: true,
    update: true,
    approve: req.approve,
    ...(req.securityOverride !== undefined ? { securityOverride: req.securityOverride } : {}),
    ...(req.onProgress ? { onProgress: req.onProgress } : {}),
    ...(req.onNotice ? { onNotice: req.onNotice } : {}),
  });
  return { key: q.key, status: "updated", from: q.installed, to: installedIdentity(done.lock) };
}

async function run(ctx: LemonContext, keys: readonly string[] | "all", req: UpdateRequest): Promise<Outcome[]> {
  if (req.securityOverride !== undefined) parseOverrideHash(req.securityOverride);
  const scope: Scope = req.global === false ? "project" : "global";
  const lockfile = scopePathsFor(ctx, scope).lockfile;
  const doc = await readLockForWrite(lockfile);
  const list =
    keys === "all"
      ? Object.keys(doc.skills)
          .filter((k) => UPDATABLE.has(doc.skills[k]?.source_kind ?? ""))
          .sort()
      : [...new Set(keys)];
  const asked: Asked = new Map();
  const queried = await bounded(list, req.concurrency ?? UPDATE_CONCURRENCY, async (key) => {
    try {
      return await query(ctx, key, recordOf(doc, key), req, asked);
    } catch (err) {
      return { key, error: toLemonError(err) };
    }
  });
  const ok = queried.filter((q): q is Queried => !("error" in q));
  try {
    await recordChecks(ctx, scope, ok, req);
  } catch (err) {
    const error = toLemonError(err);
    return queried.map((q) => ({ key: q.key, error: "error" in q ? q.error : error }));
  }
  const outcomes: Outcome[] = [];
  for (const q of queried) {
    if ("error" in q) {
      outcomes.push(q);
      continue;
    }
    const same = { key: q.key, from: q.installed, to: q.upstream };
    if (q.pinned) outcomes.push({ key: q.key, result: { ...same, status: "pinned" } });
    else if (q.upstream === q.installed) outcomes.push({ key: q.key, result: { ...same, status: "up_to_date" } });
    else if (req.check) outcomes.push({ key: q.key, result: { ...same, status: "update_available" } });
    else {
      try {
        // A killed install or remove of the scope is settled before the local-edit check looks.
        await recoverInterrupted(ctx, scope, "lemon skill update");
        outcomes.push({ key: q.key, result: await reinstall(ctx, scope, q, req) });
      } catch (err) {
        outcomes.push({ key: q.key, error: toLemonError(err) });
      }
    }
  }
  return outcomes;
}

/** One key; throws its LemonError (NOT_FOUND, INVALID_REQUEST, CONFLICT, FORBIDDEN …). */
export async function updateSkill(ctx: LemonContext, key: string, req: UpdateRequest): Promise<UpdateResult> {
  const [outcome] = await run(ctx, [key], req);
  if (outcome === undefined) throw notFound(`Skill '${key}' has no install record; nothing to update`);
  if ("error" in outcome) throw outcome.error;
  return outcome.result;
}

/**
 * Several keys, or every updatable record of the scope's lock ("all"); never throws for one key:
 * a failed key's item carries its error. Throws only when the lockfile itself cannot be read.
 */
export async function updateSkills(
  ctx: LemonContext,
  keys: readonly string[] | "all",
  req: UpdateRequest,
): Promise<UpdateItem[]> {
  return (await run(ctx, keys, req)).map((o) =>
    "error" in o ? { key: o.key, error: { code: o.error.code, message: o.error.message } } : o.result,
  );
}

/** `update --check`: updateSkills with check forced on. */
export function checkUpdates(
  ctx: LemonContext,
  keys: readonly string[] | "all",
  req: Omit<UpdateRequest, "check">,
): Promise<UpdateItem[]> {
  return updateSkills(ctx, keys, { ...req, check: true });
}
