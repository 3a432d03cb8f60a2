/**
 * @module cli/commands/mcp/login
 * `lemon mcp login NAME [--global] [--no-browser] [--headless-auth]` (cli.md §3.6): runs the
 * OAuth flow of one entry of the selected lemon file and stores its tokens (mcp.md §11.6). The
 * approval comes first (mcp.md §11.4: `--approve`, else a `[y/N]` prompt on a terminal, else
 * FORBIDDEN with nothing printed or opened); then the URL goes to stderr and, unless
 * `--no-browser` or `--headless-auth`, to the browser. `cliOAuth` is the same machinery for `mcp test`.
 */
import { cell } from "../../../core/index.ts";
import { mcpLogin, type OAuthCallbacks } from "../../../core/mcp/index.ts";
import { abortedOr, cliApprover, type CliApprover } from "../../approve.ts";
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
      const request = {
        kind: "mcp_oauth" as const,
        server: r.server,
        authorizationServer: r.authorization_server,
        ...(r.authorization_endpoint !== undefined && r.authorization_endpoint !== r.authorization_server
          ? { authorizationEndpoint: r.authorization_endpoint }
          : {}),
        scopes: r.scopes,
        redirect: r.redirect,
      };
      const a = approver.approve;
      return a === true ? true : typeof a === "function" ? (await a(request)) === true : false;
    },
    openUrl: async (url) => {
      // Only after approval (mcp.md §11.4); the headless follower needs no browser.
      if (headless) return;
      io.err(`Open this URL to authorize lemon:\n  ${cell(url)}\n`);
      if (!flags["no-browser"]) await openBrowser(url, io.env);
    },
    headless,
    interactive: true,
  };
  return { oauth, approver };
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
