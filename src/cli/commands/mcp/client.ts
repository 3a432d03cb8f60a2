/**
 * @module cli/commands/mcp/client
 * What `mcp status`, `tools`, `call` and `test` share: the MCP client over the run's context
 * (from the `./mcp` entry; the SDK loads only when a server is contacted) and the terminal
 * questions for a tool approval and for trusting a project server. Without a terminal nothing
 * is asked: the caller's FORBIDDEN stands.
 */
import { cell, LemonError } from "../../../core/index.ts";
import {
  mcpClient,
  type McpClient,
  type McpToolApprovalRequest,
  type McpTrustRequest,
} from "../../../core/mcp/index.ts";
import type { PromptIo } from "../../approve.ts";
import type { CliIo } from "../../io.ts";
import { projectDir } from "../../project-dir.ts";
import { describeServer, escapeShown } from "./review.ts";

/** Only an io that says someone can answer is asked (processIo for a terminal); never a guess. */
function interactive(io: PromptIo): boolean {
  return io.interactive === true && io.readLine !== undefined;
}

async function ask(io: PromptIo, question: string): Promise<boolean> {
  io.err(question);
  const line = io.readLine ? await io.readLine() : null;
  return line !== null && /^(y|yes)$/i.test(line.trim());
}

/** The `[y/N]` question for trusting a project server: the review `lemon mcp trust` shows, then the question. */
export function trustQuestion(r: McpTrustRequest): string {
  return `${describeServer(r)}Trust this project MCP server for ${escapeShown(r.project)}? [y/N] `;
}

/** A terminal-only trust prompt (mcp.md §4.4: a TTY user may confirm, which records the trust). */
export function trustPrompt(io: CliIo): ((r: McpTrustRequest) => Promise<boolean>) | undefined {
  const p = io as PromptIo;
  if (!interactive(p)) return undefined;
  return (r) => ask(p, trustQuestion(r));
}

export const APPROVAL_REQUIRED = "approval required: run with --approve or from a terminal";

/** The approval of `mcp call` (cli.md §3.6b): `--approve` grants, a terminal asks, else FORBIDDEN. */
export function callApprover(
  io: CliIo,
  approve: boolean,
): { approve: (r: McpToolApprovalRequest) => Promise<boolean>; declined(): boolean } {
  let declined = false;
  return {
    declined: () => declined,
    approve: async (r) => {
      if (approve) return true;
      const p = io as PromptIo;
      if (!interactive(p)) throw new LemonError("FORBIDDEN", APPROVAL_REQUIRED);
      const yes = await ask(
        p,
        `Call MCP tool '${cell(r.tool)}' of server '${cell(r.server)}' (${r.transport}) with ${cell(r.argumentsPreview)}? [y/N] `,
      );
      if (!yes) declined = true;
      return yes;
    },
  };
}

/** The client of one command run (no periodic refresh: the CLI discovers once). */
export function cliMcpClient(
  io: CliIo,
  flags: { cwd?: string | undefined },
  extra: { approve?: (r: McpToolApprovalRequest) => Promise<boolean> } = {},
): Promise<McpClient> {
  return mcpClient({ cwd: projectDir(io, flags), env: io.env, refreshIntervalMs: 0, ...extra });
}
