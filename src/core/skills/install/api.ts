/**
 * @module skills/install/api
 * `skills.install / update / uninstall` of one lemon instance (cli.md §7): options to requests,
 * the instance's `approve` callback (default deny) unless the call pre-approves, the Entry of the
 * installed skill, and the registry refresh that makes the next listing see the change.
 */
import { realpathSync } from "node:fs";
import { dirname, join } from "node:path";
import { withCwd, type LemonContext } from "../../context.ts";
import { LemonError } from "../../errors.ts";
import { scopePathsFor, type Scope } from "../../paths.ts";
import type { Finding, Verdict } from "../../schema/finding.ts";
import { toEntry, type SkillEntry } from "../entry.ts";
import type { LockRecord } from "../lockfile.ts";
import type { SkillRegistry } from "../registry.ts";
import type { RegistryConfigSource } from "../online/registry.ts";
import { eventTs, type SkillLifecycleEvent } from "../usage/events.ts";
import type { ApprovalRequest, Approver } from "./approval.ts";
import { parseAgent, type AgentLabel } from "./destination.ts";
import { installSkill, type Activated, type InstallListing } from "./install.ts";

/** cli.md §7 InstallOptions, plus `agent` (install.md §4.8) and the CLI's progress and notice lines. */
export interface InstallOptions {
  cwd?: string;
  /** Default true; false installs into the project of `cwd`. */
  global?: boolean;
  /** Default `lemon`. */
  agent?: AgentLabel;
  /** `true` pre-approves (`--approve`); a function answers each request; default: the instance's `approve`. */
  approve?: Approver;
  force?: boolean;
  ref?: string;
  path?: string;
  skill?: string;
  as?: string;
  /** The exact bundle sha256 of a blocked skill (install.md §8). */
  securityOverride?: string;
  onProgress?: (line: string) => void;
  onNotice?: (line: string) => void;
}

/** cli.md §7 InstallResult. */
export interface InstallResult {
  action: "installed" | "replaced";
  skill: SkillEntry;
  audit: { verdict: Verdict; findings: Finding[] };
  lock: LockRecord;
}

/** The instance's event hub as far as install, update and uninstall report to it (skills.md §11). */
export interface LifecycleEvents {
  wants(type: LifecycleEventType): boolean;
  emit(type: LifecycleEventType, event: SkillLifecycleEvent): void;
}
export type LifecycleEventType = "skill.install" | "skill.update" | "skill.uninstall";

/** What the lifecycle calls need from their registry. */
export interface LifecycleHost {
  ctx: LemonContext;
  /** createLemon's `approve` option. */
  approve: ((request: ApprovalRequest) => Promise<boolean>) | undefined;
  registry: SkillRegistry;
  events: LifecycleEvents | undefined;
  /** Where a registry source's base URL and timeout come from (install.md §4.4). */
  online?: RegistryConfigSource;
}

/**
 * Reports one operation once its state is on disk (or it failed): `fields` gives what the result
 * knows; a failure carries its error code. A call whose key never became known reports nothing.
 */
async function reported<R>(
  host: LifecycleHost,
  type: LifecycleEventType,
  base: { key: () => string | null; scope: Scope },
  run: () => Promise<R>,
  fields: (r: R) => Promise<Pick<SkillLifecycleEvent, "source_kind" | "audit_verdict" | "key">>,
): Promise<R> {
  const events = host.events;
  const ts = () => eventTs(host.ctx);
  try {
    const r = await run();
    if (events?.wants(type)) events.emit(type, { ts: ts(), scope: base.scope, result: "ok", ...(await fields(r)) });
    return r;
  } catch (err) {
    const key = base.key();
    if (key !== null && events?.wants(type)) {
      const error_code = LemonError.is(err) ? err.code : "OPERATION_FAILED";
      events.emit(type, { ts: ts(), key, scope: base.scope, source_kind: null, result: "error", error_code });
    }
    throw err;
  }
}

/** A record's `source_kind`, read after an update or before an uninstall (null when there is none). */
async function sourceKindOf(ctx: LemonContext, scope: Scope, key: string): Promise<string | null> {
  const { readLockfile } = await import("../lockfile.ts");
  const read = await readLockfile(scopePathsFor(ctx, scope).lockfile);
  return read.ok && Object.hasOwn(read.doc.skills, key) ? (read.doc.skills[key]?.source_kind ?? null) : null;
}

/** The call's answer to approvals: its own, else the instance's callback, else deny. */
export function approverOf(host: LifecycleHost, approve: Approver | undefined): Approver {
  if (approve === true || typeof approve === "function") return approve;
  return host.approve ?? false;
}

/**
 * The Entry of the skill just activated at `dest`. Usually the scope's listing has it; one hidden
 * by a higher-precedence root, or in a root this instance does not read (an isolated context's
 * `--agent claude`), is read directly, with the provenance of its new record.
 */
async function entryAt(host: LifecycleHost, ctx: LemonContext, done: Activated): Promise<SkillEntry> {
  await host.registry.refresh();
  const v = await host.registry.view({ cwd: ctx.cwd, scope: done.scope, refresh: true });
  const listed = v.entries.find((e) => e.path === done.dest);
  if (listed) return listed;
  const { provenanceOf } = await import("../provenance.ts");
  const prov = provenanceOf(done.lock, done.scope, false);
  const shadowed = v.discovery.shadowed.find((s) => s.record.candidate.path === done.dest);
  if (shadowed) return toEntry(shadowed.record, v.ctx, new Set(), prov);
  const { loadCandidate } = await import("../load.ts");
  const rootPath = dirname(done.dest);
  const root = { scope: done.scope, label: done.agent, path: rootPath, realPath: realpathSync(rootPath), exists: true };
  const candidate = {
    key: done.key,
    root,
    path: done.dest,
    realPath: realpathSync(done.dest),
    category: null,
    skillFile: join(done.dest, "SKILL.md"),
  };
  const rec = await loadCandidate(candidate);
  if (!rec.valid)
    throw new LemonError("OPERATION_FAILED", `installed skill at ${done.dest} does not load: ${rec.message}`);
  return toEntry(rec, v.ctx, new Set(), prov);
}

/** `skills.install(source, opts)`: install.md §5. */
export async function install(host: LifecycleHost, source: string, opts: InstallOptions = {}): Promise<InstallResult> {
  const ctx = withCwd(host.ctx, opts.cwd);
  let key: string | null = opts.as ?? null;
  const run = async (): Promise<InstallResult> => {
    const out = await installSkill(ctx, {
      source,
      global: opts.global !== false,
      agent: opts.agent === undefined ? "lemon" : parseAgent(opts.agent),
      approve: approverOf(host, opts.approve),
      force: opts.force === true,
      onKey: (k) => {
        key = k;
      },
      ...online(host),
      ...pick(opts),
    });
    if (out.kind !== "activated") throw new LemonError("OPERATION_FAILED", "install returned a listing");
    const skill = await entryAt(host, ctx, out);
    return { action: out.action, skill, audit: out.audit, lock: out.lock };
  };
  return reported(host, "skill.install", { key: () => key, scope: scopeOf(opts) }, run, async (r) => ({
    key: r.skill.key,
    source_kind: r.lock.source_kind,
    audit_verdict: r.audit.verdict,
  }));
}

/** Options of `install --list`. */
export interface ListSourceOptions {
  cwd?: string;
  ref?: string;
  path?: string;
  onProgress?: (line: string) => void;
}

/** `install --list`: the skills a source holds (cli.md §2.12); nothing is installed or approved. */
export async function listSource(
  host: LifecycleHost,
  source: string,
  opts: ListSourceOptions = {},
): Promise<Omit<InstallListing, "kind">> {
  const ctx = withCwd(host.ctx, opts.cwd);
  const out = await installSkill(ctx, {
    source,
    global: true,
    agent: "lemon",
    approve: false,
    force: false,
    list: true,
    ...online(host),
    ...pick(opts),
  });
  if (out.kind !== "list") throw new LemonError("OPERATION_FAILED", "listing installed a skill");
  return { source: out.source, skills: out.skills };
}

function pick(opts: InstallOptions) {
  return {
    ...(opts.ref !== undefined ? { ref: opts.ref } : {}),
    ...(opts.path !== undefined ? { path: opts.path } : {}),
    ...(opts.skill !== undefined ? { skill: opts.skill } : {}),
    ...(opts.as !== undefined ? { as: opts.as } : {}),
    ...(opts.securityOverride !== undefined ? { securityOverride: opts.securityOverride } : {}),
    ...(opts.onProgress !== undefined ? { onProgress: opts.onProgress } : {}),
    ...(opts.onNotice !== undefined ? { onNotice: opts.onNotice } : {}),
  };
}

/** The scope an option set names (`global` default true). */
export const scopeOf = (opts: { global?: boolean }): Scope => (opts.global === false ? "project" : "global");

/** cli.md §7 UpdateOptions, with the approver widened like {@link InstallOptions.approve}. */
export interface UpdateOptions {
  cwd?: string;
  global?: boolean;
  approve?: Approver;
  force?: boolean;
  check?: boolean;
  ref?: string;
  securityOverride?: string;
  onProgress?: (line: string) => void;
  onNotice?: (line: string) => void;
}

const online = (host: LifecycleHost) => (host.online !== undefined ? { registryConfig: host.online } : {});

function updateRequest(host: LifecycleHost, opts: UpdateOptions) {
  return {
    ...online(host),
    global: opts.global !== false,
    approve: approverOf(host, opts.approve),
    force: opts.force === true,
    check: opts.check === true,
    ...(opts.ref !== undefined ? { ref: opts.ref } : {}),
    ...(opts.securityOverride !== undefined ? { securityOverride: opts.securityOverride } : {}),
    ...(opts.onProgress !== undefined ? { onProgress: opts.onProgress } : {}),
    ...(opts.onNotice !== undefined ? { onNotice: opts.onNotice } : {}),
  };
}

/** `skills.update(key, opts)`: install.md §9 for one key. */
export async function update(host: LifecycleHost, key: string, opts: UpdateOptions = {}) {
  const { updateSkill } = await import("./update.ts");
  const ctx = withCwd(host.ctx, opts.cwd);
  const scope = scopeOf(opts);
  const run = async () => {
    try {
      return await updateSkill(ctx, key, updateRequest(host, opts));
    } finally {
      await host.registry.refresh();
    }
  };
  return reported(host, "skill.update", { key: () => key, scope }, run, async () => ({
    key,
    source_kind: await sourceKindOf(ctx, scope, key),
  }));
}

/** Several keys or every record of the scope (`"all"`); a failed key's item carries its error. */
export async function updateMany(host: LifecycleHost, keys: readonly string[] | "all", opts: UpdateOptions = {}) {
  const { updateSkills } = await import("./update.ts");
  try {
    return await updateSkills(withCwd(host.ctx, opts.cwd), keys, updateRequest(host, opts));
  } finally {
    await host.registry.refresh();
  }
}

/** Options of `skills.uninstall` (cli.md §7). */
export interface UninstallOptions {
  cwd?: string;
  global?: boolean;
  force?: boolean;
  approve?: Approver;
}

/** `skills.uninstall(key, opts)`: install.md §10. */
export async function uninstall(host: LifecycleHost, key: string, opts: UninstallOptions = {}) {
  const { uninstallSkill } = await import("./uninstall.ts");
  const ctx = withCwd(host.ctx, opts.cwd);
  const scope = scopeOf(opts);
  // The record is gone afterwards: its source kind is read first, and only when someone listens.
  const kind = host.events?.wants("skill.uninstall") ? await sourceKindOf(ctx, scope, key) : null;
  const run = async () => {
    try {
      return await uninstallSkill(ctx, key, {
        global: opts.global !== false,
        force: opts.force === true,
        approve: approverOf(host, opts.approve),
      });
    } finally {
      await host.registry.refresh();
    }
  };
  return reported(host, "skill.uninstall", { key: () => key, scope }, run, async () => ({ key, source_kind: kind }));
}
