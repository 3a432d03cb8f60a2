/**
 * @module cli/commands/mcp/logout
 * `lemon mcp logout NAME [--global] [--registration]` (cli.md §3.6): deletes the entry's stored
 * tokens; with `--registration` also the dynamic client registration, which is otherwise kept so
 * the next login reuses it (mcp.md §11.6). Nothing is contacted.
 */
import { cell } from "../../../core/index.ts";
import { mcpLogout } from "../../../core/mcp/index.ts";
import { defineCommand } from "../../command.ts";
import { printJson } from "../../output.ts";
import { projectDir } from "../../project-dir.ts";
import { globalFlag, nameArg } from "./shared.ts";

type Deleted = Awaited<ReturnType<typeof mcpLogout>>;

/** One line saying what was deleted; with --registration, each of the two. */
function confirmation(r: Deleted, registration: boolean): string {
  const name = cell(r.name);
  if (!registration)
    return r.deleted ? `Logged out of MCP server '${name}'\n` : `No stored tokens for MCP server '${name}'\n`;
  const tokens = r.tokens;
  const reg = r.registration;
  if (tokens && reg) return `Logged out of MCP server '${name}': deleted its tokens and its client registration\n`;
  if (tokens) return `Logged out of MCP server '${name}': deleted its tokens (no client registration stored)\n`;
  if (reg) return `Deleted the client registration of MCP server '${name}' (no stored tokens)\n`;
  return `No stored tokens or client registration for MCP server '${name}'\n`;
}

export default defineCommand({
  name: "logout",
  description: "Delete a server's stored OAuth tokens",
  args: nameArg,
  flags: {
    ...globalFlag,
    registration: { type: "boolean", description: "Also delete the dynamic client registration" },
  },
  async run({ flags, args, io }) {
    const r = await mcpLogout(args.name, {
      cwd: projectDir(io, flags),
      env: io.env,
      global: flags.global,
      registration: flags.registration,
    });
    if (flags.json) printJson(io, { ok: true, name: r.name, deleted: r.deleted });
    else io.out(confirmation(r, flags.registration));
    return 0;
  },
});
