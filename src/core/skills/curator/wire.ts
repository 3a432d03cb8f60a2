/**
 * @module skills/curator/wire
 * The curator as createLemon exposes it: `lemon.skills.curator` (arguments checked, failures as
 * LemonError) and the background curator of the `curator` option (skills.md §13.6). Kept light:
 * the curator's code loads on first use, so an instance that never curates pays nothing for it.
 */
import { withCwd, type LemonContext } from "../../context.ts";
import type { Diagnostic } from "../../diagnostics.ts";
import { checkArg, checkOptions, invalidParams, toLemonError, type ArgKind } from "../../errors.ts";
import type { Scope } from "../../paths.ts";
import type { CuratorRun } from "../../schema/curator.ts";
import type { CuratorHost } from "./api.ts";
import type { CuratorManager, CuratorManagerOptions } from "./manager.ts";
import type { CuratorRunResult, CuratorStatus } from "./run.ts";

export type { CuratorManagerOptions } from "./manager.ts";
export type { CuratorRunResult, CuratorStatus } from "./run.ts";

/** Options every curator call takes; thresholds override `[skills.curator]` for this call. */
export interface CuratorCallOptions {
  cwd?: string;
  scope?: Scope;
  staleAfterDays?: number;
  archiveAfterDays?: number;
}

export interface CuratorRunCallOptions extends CuratorCallOptions {
  auto?: boolean;
  force?: boolean;
  submitReview?: boolean;
  /** Include the review prompt in the result. */
  prompt?: boolean;
}

/** `lemon.skills.curator` (cli.md §7, §2.17). */
export interface SkillsCuratorApi {
  status(opts?: CuratorCallOptions): Promise<CuratorStatus>;
  run(opts?: CuratorRunCallOptions): Promise<CuratorRunResult>;
  reviewPrompt(opts?: CuratorCallOptions): Promise<string>;
  pause(opts?: CuratorCallOptions): Promise<void>;
  resume(opts?: CuratorCallOptions): Promise<void>;
}

/** Where the curator's events go: the instance's `curator.run` and `diagnostic` events. */
export interface CuratorHooks {
  run?: (event: {
    ts: string;
    scope: Scope;
    counts: CuratorRun["counts"];
    review_required: boolean;
    report_path: string;
  }) => void;
  diagnostic?: (d: Diagnostic) => void;
}

const SCOPE = ["global", "project"] as const;
const CALL: Record<string, ArgKind> = {
  cwd: "string",
  scope: SCOPE,
  staleAfterDays: "number",
  archiveAfterDays: "number",
};
const RUN: Record<string, ArgKind> = {
  ...CALL,
  auto: "boolean",
  force: "boolean",
  submitReview: "boolean",
  prompt: "boolean",
};
const MANAGER: Record<string, ArgKind> = {
  enabled: "boolean",
  intervalHours: "number",
  minIdleHours: "number",
  staleAfterDays: "number",
  archiveAfterDays: "number",
  scope: SCOPE,
  reviewCommand: "string[]",
  lastActivityAt: "function",
};

/** Thresholds must be days a person could mean: finite and not negative. */
function checkAmounts(o: Record<string, unknown> | undefined, names: string[], what: string): void {
  for (const n of names) {
    const v = o?.[n];
    if (v !== undefined && (typeof v !== "number" || !Number.isFinite(v) || v < 0))
      throw invalidParams(`${what}: ${n} must be a number of at least 0 (got ${String(v)})`);
  }
}

/** Checks the `curator` option of createLemon; INVALID_PARAMS naming the field. */
export function checkCuratorOption(v: unknown): void {
  if (v === undefined || v === false) return;
  const what = "createLemon: option 'curator'";
  checkArg(v, "object", what);
  checkOptions(v, MANAGER, what);
  checkAmounts(
    v as Record<string, unknown>,
    ["intervalHours", "minIdleHours", "staleAfterDays", "archiveAfterDays"],
    what,
  );
}

export interface CuratorWiring {
  api: SkillsCuratorApi;
  /** Stops the background curator and waits for a pass in progress. */
  close(): Promise<void>;
}

/**
 * The API and, unless `curator` is false or `enabled: false`, the background curator. Call
 * `checkCuratorOption` first.
 */
export function curatorWiring(
  context: LemonContext,
  options: { curator?: CuratorManagerOptions | false; readConfigFile?: boolean; config?: CuratorHost["config"] },
  hooks: CuratorHooks = {},
): CuratorWiring {
  const host: CuratorHost = {
    readConfigFile: options.readConfigFile !== false,
    ...(options.config !== undefined ? { config: options.config } : {}),
    emit: (e) => hooks.run?.(e),
  };
  let apiP: Promise<import("./api.ts").CuratorApi> | null = null;
  const api = () => (apiP ??= import("./api.ts").then((m) => m.curatorApi((cwd) => withCwd(context, cwd), host)));
  const call =
    <O extends CuratorCallOptions, R>(name: string, fields: Record<string, ArgKind>, run: (o?: O) => Promise<R>) =>
    async (o?: O): Promise<R> => {
      try {
        const what = `skills.curator.${name}`;
        checkOptions(o, fields, what);
        checkAmounts(o as Record<string, unknown> | undefined, ["staleAfterDays", "archiveAfterDays"], what);
        return await run(o);
      } catch (err) {
        throw toLemonError(err);
      }
    };
  const curatorApi: SkillsCuratorApi = {
    status: call("status", CALL, async (o) => (await api()).status(o)),
    run: call("run", RUN, async (o?: CuratorRunCallOptions) => (await api()).run(o)),
    reviewPrompt: call("reviewPrompt", CALL, async (o) => (await api()).reviewPrompt(o)),
    pause: call("pause", CALL, async (o) => (await api()).pause(o)),
    resume: call("resume", CALL, async (o) => (await api()).resume(o)),
  };
  const opt = options.curator;
  let managerP: Promise<CuratorManager | null> | null = null;
  if (opt !== false && opt?.enabled !== false) {
    const mo: CuratorManagerOptions = opt ?? {};
    managerP = import("./manager.ts").then(
      (m) => {
        const mgr = new m.CuratorManager(
          { ctx: context, host, ...(hooks.diagnostic !== undefined ? { diagnostic: hooks.diagnostic } : {}) },
          mo,
        );
        mgr.start();
        return mgr;
      },
      (err: unknown) => {
        context.log({ level: "error", message: `background curator not started: ${String(err)}` });
        return null;
      },
    );
  }
  return {
    api: curatorApi,
    close: async () => {
      if (managerP !== null) await (await managerP)?.close();
    },
  };
}
