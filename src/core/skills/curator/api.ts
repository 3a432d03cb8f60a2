/**
 * @module skills/curator/api
 * `lemon.skills.curator` (cli.md §7): status, run, reviewPrompt, pause, resume of one scope,
 * built on the same pass as the background curator. Settings are the effective `[skills.curator]`
 * (config.toml under `config.skills`), with per-call thresholds from the CLI flags.
 */
import type { LemonContext } from "../../context.ts";
import { conflict } from "../../errors.ts";
import { scopePathsFor, type Scope } from "../../paths.ts";
import type { CandidateRow } from "../../schema/curator.ts";
import { setEnabled } from "../settings.ts";
import {
  loadAgentConfig,
  loadSkillsSettings,
  type AgentConfig,
  type AgentsConfig,
  type CuratorSettings,
  type DeepPartialSkills,
} from "../skills-config.ts";
import { readUsage, setLifecycle, usageDiagnostic, usageRows } from "../usage/sidecar.ts";
import { currentReviewPrompt, curatorStatus, runCurator, type CuratorScope } from "./run.ts";
import type { CuratorRunOptions, CuratorRunResult, CuratorStatus } from "./run.ts";
import { setPaused } from "./state.ts";

/** What the instance hands the curator: its configuration and where its events go. */
export interface CuratorHost {
  readConfigFile: boolean;
  config?: { skills?: DeepPartialSkills; agents?: AgentsConfig };
  emit?: CuratorScope["emit"];
}

/** Per-call thresholds (the CLI's `--stale-after-days` / `--archive-after-days`). */
export interface Thresholds {
  staleAfterDays?: number;
  archiveAfterDays?: number;
}

/** Overrides beyond the file's settings: the background curator's options. */
export interface ScopeOverrides extends Thresholds {
  settings?: Partial<CuratorSettings>;
  reviewCommand?: string[];
  lastActivityAt?: () => Date | null;
  reviewTimeoutMs?: number;
}

/** A scope's curator: files, settings and effects, for one call. */
export async function curatorScope(
  ctx: LemonContext,
  scope: Scope,
  host: CuratorHost,
  over: ScopeOverrides = {},
): Promise<CuratorScope> {
  const loaded = await loadSkillsSettings(ctx, {
    readConfigFile: host.readConfigFile,
    ...(host.config?.skills !== undefined ? { config: host.config.skills } : {}),
  });
  const settings: CuratorSettings = { ...loaded.curator, ...(over.settings ?? {}) };
  if (over.staleAfterDays !== undefined) settings.staleAfterDays = over.staleAfterDays;
  if (over.archiveAfterDays !== undefined) settings.archiveAfterDays = over.archiveAfterDays;
  const paths = scopePathsFor(ctx, scope);
  const usage = paths.usage;
  const rows = async (): Promise<CandidateRow[]> => {
    const read = await readUsage(usage);
    // A pass over an unreadable sidecar would see no skills and still count as a run: refuse it.
    if (!read.ok) throw conflict(`cannot curate ${scope} skills: invalid ${usage}: ${read.reason}`);
    return usageRows(read.skills, {
      staleAfterDays: settings.staleAfterDays,
      archiveAfterDays: settings.archiveAfterDays,
      now: ctx.now(),
    });
  };
  const agent = async (): Promise<AgentConfig | null> =>
    over.reviewCommand !== undefined && over.reviewCommand.length > 0
      ? { command: [...over.reviewCommand] }
      : loadAgentConfig(ctx, settings.agent, {
          readConfigFile: host.readConfigFile,
          ...(host.config?.agents !== undefined ? { agents: host.config.agents } : {}),
        });
  return {
    ctx,
    scope,
    stateFile: paths.curatorState,
    logsDir: paths.curatorLogs,
    confineTo: scope === "project" ? ctx.cwd : null,
    settings,
    rows,
    disable: async (name) => {
      await setEnabled(ctx, name, false, scope);
    },
    setLifecycle: (name, state) => setLifecycle(ctx, scope, name, state),
    agent,
    ...(over.lastActivityAt !== undefined ? { lastActivityAt: over.lastActivityAt } : {}),
    ...(host.emit !== undefined ? { emit: host.emit } : {}),
    ...(over.reviewTimeoutMs !== undefined ? { reviewTimeoutMs: over.reviewTimeoutMs } : {}),
  };
}

/** `status` with the rows of an unreadable sidecar reported instead of failing the call. */
export async function statusOf(s: CuratorScope): Promise<CuratorStatus> {
  const read = await readUsage(scopePathsFor(s.ctx, s.scope).usage);
  if (read.ok) return curatorStatus(s);
  const file = scopePathsFor(s.ctx, s.scope).usage;
  const st = await curatorStatus({ ...s, rows: async () => [] });
  return { ...st, should_run_now: false, diagnostics: [usageDiagnostic(file, read.reason), ...st.diagnostics] };
}

export type CallOptions = { scope?: Scope } & Thresholds;

/** The `lemon.skills.curator` object for an instance; `ctxFor` applies a call's `cwd`. */
export function curatorApi(ctxFor: (cwd: string | undefined) => LemonContext, host: CuratorHost) {
  const scoped = (o: (CallOptions & { cwd?: string }) | undefined) => {
    const thresholds: Thresholds = {};
    if (o?.staleAfterDays !== undefined) thresholds.staleAfterDays = o.staleAfterDays;
    if (o?.archiveAfterDays !== undefined) thresholds.archiveAfterDays = o.archiveAfterDays;
    return curatorScope(ctxFor(o?.cwd), o?.scope ?? "global", host, thresholds);
  };
  const paused = async (o: (CallOptions & { cwd?: string }) | undefined, value: boolean) => {
    const s = await scoped(o);
    await setPaused(s.stateFile, value, s.confineTo, s.ctx.now);
  };
  return {
    status: async (o?: CallOptions & { cwd?: string }): Promise<CuratorStatus> => statusOf(await scoped(o)),
    run: async (o?: CallOptions & CuratorRunOptions & { cwd?: string }): Promise<CuratorRunResult> =>
      runCurator(await scoped(o), {
        auto: o?.auto === true,
        force: o?.force === true,
        submitReview: o?.submitReview === true,
        prompt: o?.prompt === true,
      }),
    reviewPrompt: async (o?: CallOptions & { cwd?: string }): Promise<string> => currentReviewPrompt(await scoped(o)),
    pause: (o?: CallOptions & { cwd?: string }) => paused(o, true),
    resume: (o?: CallOptions & { cwd?: string }) => paused(o, false),
  };
}

export type CuratorApi = ReturnType<typeof curatorApi>;
