/**
 * @module cli/commands/tool/run-tool
 * What both `lemon tool` commands share (cli.md §2.18): the JSON parameters given inline, as
 * `@file` or `-` (stdin), the call context from `--session` / `--agent`, and the output: the
 * tool's text (human) or `{"ok","isError","text","details"}` (JSON), on stdout even when the tool
 * failed, exit 1 when it did. Arguments that never reach the tool are INVALID_PARAMS (exit 2).
 */
import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import {
  createLemon,
  stripAnsi,
  type ApprovalRequest,
  type Lemon,
  type ToolCallContext,
  type ToolResult,
} from "../../../core/index.ts";
import { parseToolsFlag, toolsFlag, usageError } from "../../args.ts";
import { cliApprover, type CliApprover, type PromptIo } from "../../approve.ts";
import type { FlagSpec } from "../../command.ts";
import type { CliIo } from "../../io.ts";
import { printJson } from "../../output.ts";
import { projectDir } from "../../project-dir.ts";

/** The flags of both commands. */
export const TOOL_FLAGS = {
  ...toolsFlag,
  session: { type: "string", description: "Session key recorded with the call", value: "key" },
  agent: { type: "string", description: "Agent id recorded with the call", value: "id" },
} as const satisfies Record<string, FlagSpec>;

export const PARAMS_ARG = [
  { name: "params", description: "The tool's JSON parameters: inline, @file, or - for stdin", required: true },
] as const;

/** Parameters larger than this are refused: the largest valid call (1 MiB of file content, escaped) fits. */
const MAX_PARAMS_BYTES = 8 * 1024 * 1024;

/** Reads an open descriptor to its end, refusing more than the bound. */
function readFd(fd: number, what: string): string {
  const chunks: Buffer[] = [];
  let total = 0;
  for (;;) {
    const chunk = Buffer.allocUnsafe(65536);
    let n: number;
    try {
      n = readSync(fd, chunk, 0, chunk.length, null);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === "EAGAIN") continue;
      if (code === "EOF") break;
      throw usageError(`${what}: cannot be read (${code ?? "error"})`);
    }
    if (n === 0) break;
    total += n;
    if (total > MAX_PARAMS_BYTES) throw usageError(`${what}: exceeds ${MAX_PARAMS_BYTES} bytes`);
    chunks.push(chunk.subarray(0, n));
  }
  return Buffer.concat(chunks, total).toString("utf8");
}

/** The text of `@file`: a regular file, bounded, relative to the process's directory. */
function readParamsFile(io: CliIo, cwd: string, name: string): string {
  const what = `@${name}`;
  const file = isAbsolute(name) ? name : resolve(io.cwd ?? cwd, name);
  let fd: number;
  try {
    // Non-blocking: a FIFO opens at once (and is refused below) instead of waiting for a writer.
    fd = openSync(file, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (err) {
    throw usageError(`${what}: cannot be read (${(err as NodeJS.ErrnoException).code ?? "error"})`);
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw usageError(`${what}: not a regular file`);
    if (st.size > MAX_PARAMS_BYTES) throw usageError(`${what}: exceeds ${MAX_PARAMS_BYTES} bytes`);
    return readFd(fd, what);
  } finally {
    closeSync(fd);
  }
}

/** The parameter object of the call: `{…}` inline, `@file`, or `-` for stdin. */
export function readParams(io: CliIo, cwd: string, raw: string): Record<string, unknown> {
  let text = raw;
  let what = "params";
  if (raw === "-") {
    what = "stdin";
    text = (io as CliIo & { readStdin?: () => string }).readStdin?.() ?? readFd(0, what);
  } else if (raw.startsWith("@")) {
    what = raw;
    text = readParamsFile(io, cwd, raw.slice(1));
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    const detail = err instanceof Error ? err.message.split("\n")[0] : "invalid JSON";
    throw usageError(`${what}: invalid JSON (${detail})`, 'pass one JSON object, e.g. \'{"key":"my-skill"}\'');
  }
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw usageError(`${what}: must be a JSON object`, 'pass one JSON object, e.g. \'{"key":"my-skill"}\'');
  return value as Record<string, unknown>;
}

/** How a run's write approvals went: asked on a terminal and declined, or needed with no way to ask. */
export interface ToolApprovals {
  declined: boolean;
  unavailable: boolean;
}

function isatty(fd: number): boolean {
  const tty = require("node:tty") as typeof import("node:tty");
  return tty.isatty(fd);
}

/**
 * The instance of one tool run. Approvals (cli.md §1.3): `--approve` grants them; on a terminal
 * each request is the shared CLI `[y/N]` prompt (approve.ts); without a terminal a request is
 * refused (the tool then answers `Operation aborted`) and noted, so the command can say how to
 * approve.
 */
export function toolLemon(
  io: CliIo,
  flags: Record<string, unknown>,
): { lemon: Lemon; approver: CliApprover; approvals: ToolApprovals } {
  const tools = parseToolsFlag(flags.tools);
  const approver = cliApprover(io, { approve: flags.approve === true });
  const approvals: ToolApprovals = { declined: false, unavailable: false };
  const interactive = () => (io as PromptIo).interactive ?? (isatty(0) && isatty(2));
  const approve = async (request: ApprovalRequest): Promise<boolean> => {
    if (flags.approve === true) return true;
    if (!interactive()) {
      approvals.unavailable = true;
      return false;
    }
    const yes = typeof approver.approve === "function" ? await approver.approve(request) : approver.approve;
    if (!yes) approvals.declined = true;
    return yes;
  };
  const lemon = createLemon({
    cwd: projectDir(io, flags),
    env: io.env,
    curator: false,
    approve,
    ...(tools ? { availableTools: tools } : {}),
  });
  return { lemon, approver, approvals };
}

/** After a call: `Aborted.` for a declined prompt, the way to approve when none could be asked (stderr). */
export function reportApprovals(io: CliIo, quiet: boolean, approvals: ToolApprovals): void {
  if (approvals.declined) io.err("Aborted.\n");
  else if (approvals.unavailable && !quiet)
    io.err("hint: approval required; re-run with --approve after reviewing the request\n");
}

/** The call context of `--session` / `--agent`. */
export function callContext(flags: { session?: string | undefined; agent?: string | undefined }): ToolCallContext {
  return {
    ...(flags.session !== undefined ? { sessionKey: flags.session } : {}),
    ...(flags.agent !== undefined ? { agentId: flags.agent } : {}),
  };
}

// C0 controls but TAB/LF/CR, DEL and C1: nothing a reader of the text needs, and a terminal obeys them.
const CONTROLS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/g;

/**
 * Prints a tool result (cli.md §2.18) and gives the exit code. The human form is the tool's text
 * with escape sequences and control characters removed: skill files are untrusted and this
 * output may reach a terminal; JSON escapes them instead and keeps the text exact.
 */
export function printResult(io: CliIo, json: boolean, r: ToolResult<unknown>): number {
  const text = r.content.map((b) => (b.type === "text" ? b.text : "")).join("\n");
  if (json) printJson(io, { ok: !r.isError, isError: r.isError, text, details: r.details });
  else {
    const shown = stripAnsi(text).replace(CONTROLS, "");
    io.out(shown.endsWith("\n") ? shown : `${shown}\n`);
  }
  return r.isError ? 1 : 0;
}
