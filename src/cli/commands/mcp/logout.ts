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
    else
      io.out(
        r.deleted
          ? `Logged out of MCP server '${cell(r.name)}'\n`
          : `No stored tokens for MCP server '${cell(r.name)}'\n`,
      );
    return 0;
  },
});
