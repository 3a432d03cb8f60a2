/**
 * @module cli/approve
 * Approvals on the command line (cli.md §1.3, install.md §1): `--approve` pre-approves; on a
 * terminal each request is a `[y/N]` prompt on stderr (default No; only `y`/`yes` accepts);
 * without a terminal the command fails FORBIDDEN before anything changes. Summaries show what
 * is asked (key, scope, trust, redacted source, destination, findings), never file contents.
 */
import { cell, LemonError, type ApprovalRequest, type Approver } from "../core/index.ts";
import type { CliIo } from "./io.ts";

/** The io a prompt runs on: CliIo says whether someone can answer (`interactive`) and how (`readLine`). */
export type PromptIo = CliIo;

const REQUIRED = "approval required; re-run with --approve after reviewing the request";

const lines = (findings: readonly string[], max = 20) => {
  const shown = findings.slice(0, max).map((f) => `  ${cell(f)}\n`);
  if (findings.length > max) shown.push(`  … and ${findings.length - max} more\n`);
  return shown.join("");
};

/** The question for one request, ending with the `[y/N] ` prompt. */
export function describeRequest(r: ApprovalRequest): string {
  if (r.kind === "mcp_tool")
    return `Call MCP tool '${cell(r.tool)}' of server '${cell(r.server)}' (${r.transport}) with ${cell(r.argumentsPreview)}? [y/N] `;
  if (r.kind === "mcp_oauth") {
    const scopes = r.scopes.length > 0 ? ` for scopes ${cell(r.scopes.join(" "))}` : "";
    const page = r.authorizationEndpoint !== undefined ? ` (sign-in page ${cell(r.authorizationEndpoint)})` : "";
    return `Log in to MCP server '${cell(r.server)}' at ${cell(r.authorizationServer)}${page}${scopes} (loopback redirect)? [y/N] `;
  }
  if (r.kind === "mcp_sampling")
    return `Let MCP server '${cell(r.server)}' sample the model (${r.summary.message_count} messages, ${r.summary.text_chars} characters, request ${r.summary.request_hash.slice(0, 16)})? [y/N] `;
  if (r.kind === "skill_write") {
    const file = r.filePath !== undefined ? ` (file ${cell(r.filePath)})` : "";
    return `Allow skill_manage to ${cell(r.action)} skill '${cell(r.name)}' in the ${r.scope} scope${file}? [y/N] `;
  }
  const key = cell(r.key);
  switch (r.kind) {
    case "skill_install":
      return `Install skill '${key}' (${r.trustLevel}, ${r.scope}) from ${cell(r.source)} into ${cell(r.destination)}? [y/N] `;
    case "skill_update":
      return `Update skill '${key}' (${r.trustLevel}, ${r.scope}) from ${cell(r.source)} at ${cell(r.destination)}? [y/N] `;
    case "skill_uninstall":
      return `Remove skill '${key}' from ${cell(r.destination)}? [y/N] `;
    case "skill_audit_warn":
      return `The security audit warns about skill '${key}' (bundle sha256 ${r.bundleHash}):\n${lines(r.findings)}Accept these findings? [y/N] `;
    case "security_override":
      return `Skill '${key}' from ${cell(r.source)} is blocked by the security audit; override the block for bundle sha256 ${r.bundleHash}?\n${lines(r.findings, 50)}Install it anyway? [y/N] `;
  }
}

/** A CLI approver plus whether the user declined a prompt (the command then prints `Aborted.`). */
export interface CliApprover {
  approve: Approver;
  declined(): boolean;
}

/**
 * The approver of one command run: `--approve`, a prompt when the io says someone can answer it
 * (processIo asks the terminal; an in-process io never is one unless told), or a refusal.
 */
export function cliApprover(io: CliIo, flags: { approve: boolean }): CliApprover {
  let declined = false;
  if (flags.approve) return { approve: true, declined: () => false };
  const approve = async (request: ApprovalRequest): Promise<boolean> => {
    if (io.interactive !== true || io.readLine === undefined) throw new LemonError("FORBIDDEN", REQUIRED);
    // Every value in the question went through cell(): one line each, no control characters.
    io.err(describeRequest(request));
    const answer = await io.readLine();
    const yes = answer !== null && /^(y|yes)$/i.test(answer.trim());
    if (!yes) declined = true;
    return yes;
  };
  return { approve, declined: () => declined };
}

/**
 * A declined prompt ends the command with `Aborted.` on stderr and exit 1 (cli.md §1.3); JSON
 * output keeps the FORBIDDEN `approval denied` envelope. Anything else is rethrown.
 */
export function abortedOr(io: CliIo, json: boolean, approver: CliApprover, err: unknown): number {
  if (!json && approver.declined() && err instanceof LemonError && err.code === "FORBIDDEN") {
    io.err("Aborted.\n");
    return 1;
  }
  throw err;
}
