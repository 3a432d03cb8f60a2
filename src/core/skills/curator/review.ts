/**
 * @module skills/curator/review
 * Submits the review prompt to an agent command (install.md §13.4): argv only, never a shell;
 * the prompt on stdin (or appended as the last argument with `prompt = "arg"`); the child env is
 * the safe default set (mcp.md §5.1) plus the agent's `env_vars` that are set, plus its `env`.
 * Nothing of the child's output is kept: an agent may echo secrets, and the report records only
 * the outcome. A run over its time limit, or a lemon process ended by a signal, has the agent's
 * process group killed.
 */
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import type { LemonContext } from "../../context.ts";
import { isoSeconds } from "../../fsx/atomic.ts";
import { holdPath, releasePath } from "../../fsx/cleanup.ts";
import type { ReviewSubmission } from "../../schema/curator.ts";
import type { AgentConfig } from "../skills-config.ts";
import { childEnv } from "../../child-env.ts";

/** The default time an agent gets for a review, as an automation job's default (install.md §13.1). */
export const REVIEW_TIMEOUT_MS = 300_000;
/** Grace between SIGTERM and SIGKILL of a timed-out agent (install.md §13.3). */
const KILL_GRACE_MS = 5_000;

/** The child env of an agent command (mcp.md §5.1 safe set ∪ env_vars ∪ env). */
export function agentEnv(ctx: LemonContext, agent: AgentConfig, extra: Record<string, string>): Record<string, string> {
  return { ...childEnv(ctx.env, ctx.platform, agent), ...extra };
}

export interface SubmitOptions {
  timeoutMs?: number;
  /** Extra variables for the child (the run's id and scope). */
  extraEnv?: Record<string, string>;
}

/** Runs the agent with the prompt; resolves with the submission record, never rejects. */
export async function submitReview(
  ctx: LemonContext,
  agent: AgentConfig,
  prompt: string,
  opts: SubmitOptions = {},
): Promise<ReviewSubmission> {
  const runId = randomUUID();
  const submittedAt = isoSeconds(ctx.now());
  const status = await runAgent(ctx, agent, prompt, runId, opts);
  return { run_id: runId, submitted_at: submittedAt, status };
}

function runAgent(
  ctx: LemonContext,
  agent: AgentConfig,
  prompt: string,
  runId: string,
  opts: SubmitOptions,
): Promise<ReviewSubmission["status"]> {
  const [cmd, ...args] = agent.command;
  const viaArg = agent.prompt === "arg";
  if (cmd === undefined) return Promise.resolve("failed");
  const env = agentEnv(ctx, agent, { LEMON_CURATOR_RUN_ID: runId, ...(opts.extraEnv ?? {}) });
  return new Promise((resolveStatus) => {
    let settled = false;
    let timedOut = false;
    const done = (s: ReviewSubmission["status"]) => {
      if (settled) return;
      settled = true;
      releasePath(held);
      clearTimeout(timer);
      if (kill !== undefined) clearTimeout(kill);
      resolveStatus(s);
    };
    let kill: ReturnType<typeof setTimeout> | undefined;
    const child = spawn(cmd, viaArg ? [...args, prompt] : args, {
      cwd: ctx.cwd,
      env,
      stdio: [viaArg ? "ignore" : "pipe", "ignore", "ignore"],
      // Its own process group, so a timeout ends whatever the agent started too.
      detached: ctx.platform !== "win32",
      shell: false,
      windowsHide: true,
    });
    const signalGroup = (sig: NodeJS.Signals) => {
      try {
        if (child.pid !== undefined && ctx.platform !== "win32") process.kill(-child.pid, sig);
        else child.kill(sig);
      } catch {
        // Already gone.
      }
    };
    // A lemon killed by a signal (cron's timeout, ^C) takes the agent's process group with it.
    const held = `agent-process-group:${child.pid ?? "none"}`;
    if (child.pid !== undefined) holdPath(held, () => signalGroup("SIGTERM"));
    const timer = setTimeout(() => {
      timedOut = true;
      signalGroup("SIGTERM");
      kill = setTimeout(() => signalGroup("SIGKILL"), KILL_GRACE_MS);
    }, opts.timeoutMs ?? REVIEW_TIMEOUT_MS);
    child.on("error", () => done("failed"));
    child.on("exit", (code) => done(timedOut ? "timeout" : code === 0 ? "ok" : "failed"));
    if (!viaArg && child.stdin) {
      // An agent that exits without reading its stdin closes the pipe: EPIPE is its outcome, not ours.
      child.stdin.on("error", () => {});
      child.stdin.end(prompt);
    }
  });
}
