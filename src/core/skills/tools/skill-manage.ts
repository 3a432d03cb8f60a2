/**
 * @module skills/tools/skill-manage
 * The `skill_manage` agent tool (skills.md §9): an agent creates, edits, patches and deletes its
 * own skills in lemon's roots, pins, archives and restores them, and reads their usage report.
 * Arguments are untrusted (manage-params.ts), file changes are staged, audited and committed
 * atomically (manage-actions.ts), lifecycle changes go to the usage sidecar and `skills.json`
 * (manage-lifecycle.ts). Never throws: every failure is an `isError` result with the exact
 * message of §9.2, and every call but `report` emits `skill.write` (§11).
 */
import { withCwd, type LemonContext } from "../../context.ts";
import { LemonError } from "../../errors.ts";
import type { Scope } from "../../paths.ts";
import type { Verdict } from "../../schema/finding.ts";
import { eventTs, sessionFields, type SkillWriteEvent } from "../usage/events.ts";
import type { FileAction } from "./manage-actions.ts";
import type { ManageAudit } from "./manage-audit.ts";
import {
  ACTIONS,
  checkSafeKey,
  ManageError,
  parseRequest,
  shown,
  type ManageErrorKind,
  type ManageRequest,
} from "./manage-params.ts";
import { errorResult, plainParams, textResult, type ToolCallContext, type ToolResult } from "./result.ts";

/** cli.md §7 `ApprovalRequest` of kind `skill_write`. */
export interface SkillWriteApprovalRequest {
  kind: "skill_write";
  action: string;
  scope: Scope;
  name: string;
  filePath?: string;
}

/** §9.3 `details` of a success. */
export interface SkillManageOkDetails {
  action: string;
  name: string | null;
  scope: Scope;
  path: string | null;
  file_path: string | null;
  replacements: number | null;
  audit: ManageAudit | null;
  lifecycle_state: string | null;
  skills?: unknown[];
}

/** §9.3 `details` of a failure. */
export interface SkillManageErrorDetails {
  error: ManageErrorKind;
  message: string;
}

export type SkillManageDetails = SkillManageOkDetails | SkillManageErrorDetails;

/** The context of one call: the embedder's ids, and the project directory it runs for. */
export type SkillManageCall = ToolCallContext & { cwd?: string };

/** What the tool needs from its instance. */
export interface SkillManageHost {
  context: LemonContext;
  /** `[skills] write_approval` (skills-config.ts), asked once per mutating call. */
  writeApproval(): Promise<boolean>;
  /** The embedder's approval callback; absent = deny. */
  approve?: (request: SkillWriteApprovalRequest) => Promise<boolean>;
  /**
   * Delivers `skill.write` with its persisting subscribers (the usage sidecar) awaited, when the
   * name could be a key; `emit` alone otherwise (a rejected name never gets a sidecar record).
   */
  publish?: (event: SkillWriteEvent, ctx: LemonContext) => Promise<void>;
  emit?: (event: SkillWriteEvent) => void;
  /** Drops the instance's cached listings and snapshots after a change (skills.md §7.3). */
  refresh?: () => Promise<void>;
  /**
   * False when the call has no project directory (`project scope requires cwd`). The module
   * always has one; an embedder running tools for no project says so here.
   */
  hasProject?: boolean;
}

const MUTATING_LIFECYCLE = new Set(["pin", "unpin", "archive", "restore"]);
const FILE_ACTIONS = new Set(["create", "edit", "patch", "write_file", "remove_file", "delete"]);

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * An unexpected failure as §9.3 kinds: the LemonError code when there is one, else io_error with
 * one neutral line: a raw file system error names lemon's internal staging paths and can be as
 * long as the longest path, neither of which the agent should get.
 */
function failureOf(err: unknown, name: string): ManageError {
  if (err instanceof ManageError) return err;
  if (LemonError.is(err)) {
    const kind: ManageErrorKind =
      err.code === "CONFLICT"
        ? "conflict"
        : err.code === "FORBIDDEN"
          ? "forbidden"
          : err.code === "NOT_FOUND"
            ? "not_found"
            : err.code === "INVALID_PARAMS" || err.code === "INVALID_REQUEST"
              ? "invalid_params"
              : "io_error";
    return new ManageError(kind, err.message);
  }
  const code = (err as { code?: unknown } | null)?.code;
  const errno = typeof code === "string" && /^E[A-Z0-9]{1,20}$/.test(code) ? code : "internal error";
  const what = name === "" ? "skill" : `skill '${shown(name)}'`;
  return new ManageError("io_error", `could not update ${what}: ${errno}`);
}

/** Fields the event may carry: never content, only what the request names (§11). */
function eventOf(
  ctx: LemonContext,
  call: SkillManageCall | undefined,
  base: EventBase,
  started: number,
  result: { ok: true; verdict: Verdict | null } | { ok: false; kind: ManageErrorKind; verdict: Verdict | null },
): SkillWriteEvent {
  return {
    ts: eventTs(ctx),
    action: base.action,
    name: base.name,
    scope: base.scope,
    ...(base.filePath !== null ? { file_path: base.filePath } : {}),
    result: result.ok ? "ok" : "error",
    ...(!result.ok ? { error_code: result.kind } : {}),
    ...(result.verdict !== null ? { audit_verdict: result.verdict } : {}),
    duration_ms: Math.max(0, Math.round(performance.now() - started)),
    ...sessionFields(call),
  };
}

/** What a request's event says before it is parsed (a rejected call names what it was asked). */
function rawBase(args: unknown): EventBase {
  const a = isRecord(args) ? args : {};
  const str = (v: unknown, max: number) => (typeof v === "string" ? v.slice(0, max) : "");
  const action = str(a.action, 64);
  const name = str(a.name, 256);
  const scopeOk = a.scope === undefined || a.scope === null || a.scope === "project" || a.scope === "global";
  return {
    action,
    name,
    scope: a.scope === "global" ? "global" : "project",
    // A path is named only once checkFilePath accepted it (the agent's raw text may hold anything).
    filePath: null,
    // Only a call that names a real action, scope and possible key counts in that key's usage record.
    persist: (ACTIONS as readonly string[]).includes(action) && scopeOk && keyLike(name),
  };
}

interface EventBase {
  action: string;
  name: string;
  scope: Scope;
  filePath: string | null;
  persist: boolean;
}

/**
 * Whether the usage sidecar should hear of this call: only for a skill that is there now (a
 * directory with a SKILL.md in the scope's lemon root). A rejected call naming no skill, or a
 * delete that removed it, would leave a record for a skill that does not exist, and an agent
 * could grow the file without bound with calls that all fail.
 */
async function skillExists(ctx: LemonContext, scope: Scope, name: string): Promise<boolean> {
  try {
    const [{ join }, { kindOf, skillRootOf }] = await Promise.all([import("node:path"), import("./manage-fs.ts")]);
    const root = await skillRootOf(ctx, scope);
    return (await kindOf(join(root, name))) === "dir" && (await kindOf(join(root, name, "SKILL.md"))) === "file";
  } catch {
    return false;
  }
}

function keyLike(name: string): boolean {
  try {
    checkSafeKey(name);
    return true;
  } catch {
    return false;
  }
}

/** Runs one `skill_manage` call; never rejects. */
export async function skillManage(
  host: SkillManageHost,
  args: unknown,
  call?: SkillManageCall,
): Promise<ToolResult<SkillManageDetails>> {
  const started = performance.now();
  // A copy made once (a getter that throws, a Proxy: `parameters must be a JSON object`).
  const plain = plainParams(args);
  if (plain !== null) args = plain.value;
  let base = plain === null ? rawBase({}) : rawBase(args);
  let ctx = host.context;
  let verdict: Verdict | null = null;
  const finish = async (
    result: ToolResult<SkillManageDetails>,
    outcome: { ok: true } | { ok: false; kind: ManageErrorKind },
  ): Promise<ToolResult<SkillManageDetails>> => {
    if (base.action === "report") return result;
    const event = eventOf(ctx, call, base, started, { ...outcome, verdict });
    try {
      if (host.publish && base.persist && (await skillExists(ctx, base.scope, base.name)))
        await host.publish(event, ctx);
      else host.emit?.(event);
    } catch {
      // Telemetry never fails the call (the hub isolates its own subscribers as well).
    }
    return result;
  };
  try {
    if (plain === null) throw new ManageError("invalid_params", "parameters must be a JSON object");
    const req = parseRequest(args);
    base = { ...base, name: req.name ?? "", filePath: req.filePath ?? null };
    if (req.scope === "project" && host.hasProject === false)
      throw new ManageError("invalid_params", "project scope requires cwd");
    if (call?.cwd !== undefined) ctx = withCwd(host.context, call.cwd);
    if (req.action === "report") {
      const { usageReportAction } = await import("./manage-lifecycle.ts");
      const r = await usageReportAction(ctx, req);
      return textResult<SkillManageDetails>(r.text, okDetails(req, { skills: r.rows }));
    }
    await approveWrite(host, req, call);
    let details: SkillManageOkDetails;
    let text: string;
    if (FILE_ACTIONS.has(req.action)) {
      const [{ runFileAction }, { skillRootOf }, { lifecycleOf, forgetSkill, voidProvenance }] = await Promise.all([
        import("./manage-actions.ts"),
        import("./manage-fs.ts"),
        import("./manage-lifecycle.ts"),
      ]);
      const root = await skillRootOf(ctx, req.scope);
      const out = await runFileAction(
        {
          ctx,
          root,
          ...(call?.signal ? { signal: call.signal } : {}),
          isPinned: async () => (await lifecycleOf(ctx, req.scope, req.name!)) === "pinned",
          forget: () => forgetSkill(ctx, req.scope, req.name!),
        },
        req as ManageRequest & { action: FileAction },
      ).catch((err: unknown) => {
        if (err instanceof ManageError && err.kind === "blocked") verdict = "block";
        throw err;
      });
      verdict = out.audit?.verdict ?? null;
      if (req.action !== "delete") await voidProvenance(ctx, req.scope, req.name!);
      await refreshAfterWrite(host);
      const state = req.action === "delete" ? null : await lifecycleOf(ctx, req.scope, req.name!).catch(() => null);
      details = okDetails(req, {
        path: out.path,
        file_path: out.filePath,
        replacements: out.replacements,
        audit: out.audit,
        lifecycle_state: state ?? (req.action === "delete" ? null : "active"),
      });
      text = out.text;
    } else if (MUTATING_LIFECYCLE.has(req.action)) {
      const { runLifecycleAction } = await import("./manage-lifecycle.ts");
      const out = await runLifecycleAction(ctx, req, call?.agentId);
      await refreshAfterWrite(host);
      details = okDetails(req, { path: out.path, lifecycle_state: out.state });
      text = out.text;
    } else throw new ManageError("invalid_params", `unknown action '${req.action}'`);
    const result = textResult<SkillManageDetails>(text, details);
    return await finish(result, { ok: true });
  } catch (err) {
    const failure = failureOf(err, base.name);
    const result = errorResult<SkillManageDetails>(failure.message, { error: failure.kind, message: failure.message });
    return await finish(result, { ok: false, kind: failure.kind });
  }
}

/** The write is done: a cache that cannot be dropped must not turn it into a reported failure. */
async function refreshAfterWrite(host: SkillManageHost): Promise<void> {
  try {
    await host.refresh?.();
  } catch (err) {
    host.context.log({ level: "warn", message: `skill listing not refreshed: ${(err as Error).message}` });
  }
}

/** `[skills] write_approval` gate (§9): denied, failed or absent approval is `Operation aborted`. */
async function approveWrite(host: SkillManageHost, req: ManageRequest, call: SkillManageCall | undefined) {
  if (call?.signal?.aborted) throw new ManageError("aborted", "Operation aborted");
  if (!(await host.writeApproval())) return;
  const request: SkillWriteApprovalRequest = {
    kind: "skill_write",
    action: req.action,
    scope: req.scope,
    name: req.name ?? "",
    ...(req.filePath !== undefined ? { filePath: req.filePath } : {}),
  };
  let approved = false;
  try {
    approved = host.approve !== undefined && (await host.approve(request)) === true;
  } catch {
    approved = false;
  }
  if (!approved) throw new ManageError("aborted", "Operation aborted");
}

function okDetails(req: ManageRequest, extra: Partial<SkillManageOkDetails>): SkillManageOkDetails {
  return {
    action: req.action,
    name: req.name ?? null,
    scope: req.scope,
    path: null,
    file_path: null,
    replacements: null,
    audit: null,
    lifecycle_state: null,
    ...extra,
  };
}
