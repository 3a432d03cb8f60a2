/**
 * @module cli/commands/mcp/login
 * `lemon mcp login NAME [--global] [--no-browser] [--headless-auth]` (cli.md §3.6): runs the
 * OAuth flow of one entry of the selected lemon file and stores its tokens (mcp.md §11.6). The
 * approval comes first (mcp.md §11.4: `--approve`, else a `[y/N]` prompt on a terminal, else
 * FORBIDDEN with nothing printed or opened); then the URL goes to stderr and, unless
 * `--no-browser` or `--headless-auth`, to the browser. `cliOAuth` is the same machinery for `mcp test`.
 */
import { cell, LemonError } from "../../../core/index.ts";
import { mcpLogin, type OAuthCallbacks, oauthApproval } from "../../../core/mcp/index.ts";
import { abortedOr, cliApprover, type CliApprover, describeRequest } from "../../approve.ts";
import { openBrowser } from "../../browser.ts";
import { defineCommand, type FlagSpec } from "../../command.ts";
import type { CliIo } from "../../io.ts";
import { printJson } from "../../output.ts";
import { projectDir } from "../../project-dir.ts";
import { trustPrompt } from "./client.ts";
import { globalFlag, nameArg } from "./shared.ts";

export const oauthFlags = {
  "no-browser": { type: "boolean", description: "OAuth: print the authorization URL instead of opening it" },
  "headless-auth": {
    type: "boolean",
    description: "OAuth: lemon follows the authorization redirect itself (test harnesses; still needs approval)",
  },
} as const satisfies Record<string, FlagSpec>;

/** The OAuth callbacks of one command run, and its approver (to tell a declined prompt). */
export function cliOAuth(
  io: CliIo,
  flags: { approve: boolean; "no-browser": boolean; "headless-auth": boolean; quiet?: boolean },
): { oauth: OAuthCallbacks; approver: CliApprover } {
  const approver = cliApprover(io, { approve: flags.approve });
  const headless = flags["headless-auth"];
  const oauth: OAuthCallbacks = {
    approve: async (r) => {
      const request = oauthApproval(r);
      const a = approver.approve;
      if (a === true) return true;
      if (typeof a !== "function") return false;
      try {
        return (await a(request)) === true;
      } catch (err) {
        // Off a terminal "after reviewing the request" needs the request: what the prompt would
        // have asked (server, authorization server origin, scopes), never the URL or a token.
        throw withRequestHint(err, describeRequest(request));
      }
    },
    openUrl: async (url) => {
      // Only after approval (mcp.md §11.4); the headless follower needs no browser.
      if (headless) return;
      io.err(`Open this URL to authorize lemon:\n  ${cell(url)}\n`);
      // Not awaited: telling a failed opener takes a moment, and the callback may come first.
      if (!flags["no-browser"])
        void openBrowser(url, io.env).then((ok) => {
          if (!ok) io.err("warning: could not open a browser; open the URL above\n");
        });
    },
    headless,
    interactive: true,
  };
  return { oauth, approver };
}

/** A FORBIDDEN refusal of an approval, with the request it refused as the hint (login, test, call). */
export function withRequestHint(err: unknown, question: string): unknown {
  if (!LemonError.is(err) || err.code !== "FORBIDDEN" || err.hint !== undefined) return err;
  const asked = question.replace(/\? \[y\/N\] $/, "");
  return new LemonError(err.code, err.message, {
    hint: `the request: ${asked.charAt(0).toLowerCase()}${asked.slice(1)}`,
    ...(err.details ? { details: err.details } : {}),
  });
}

export default defineCommand({
  name: "login",
  description: "Run a server's OAuth flow and store its tokens",
  args: nameArg,
  flags: { ...globalFlag, ...oauthFlags },
  async run({ flags, args, io }) {
    const { oauth, approver } = cliOAuth(io, flags);
    const approveTrust = trustPrompt(io);
    let r: Awaited<ReturnType<typeof mcpLogin>>;
    try {
      r = await mcpLogin(args.name, {
        cwd: projectDir(io, flags),
        env: io.env,
        global: flags.global,
        oauth,
        ...(approveTrust !== undefined ? { approveTrust } : {}),
      });
    } catch (err) {
      return abortedOr(io, flags.json, approver, err);
    }
    if (flags.json) printJson(io, { ok: true, name: r.name, expires_at: r.expires_at, scopes: r.scopes });
    else {
      const until = r.expires_at !== null ? `, expires ${r.expires_at}` : "";
      const scopes = r.scopes.length > 0 ? ` (scopes ${cell(r.scopes.join(" "))})` : "";
      io.out(`Logged in to MCP server '${cell(r.name)}'${scopes}${until}\n`);
    }
    return 0;
  },
});
