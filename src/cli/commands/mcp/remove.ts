/**
 * @module cli/commands/mcp/remove
 * `lemon mcp remove NAME [--global]` (cli.md §3.4): the selected lemon file only, never imports.
 */
import { defineCommand } from "../../command.ts";
import { printJson } from "../../output.ts";
import { globalFlag, mcpApi, nameArg } from "./shared.ts";

export default defineCommand({
  name: "remove",
  description: "Remove an MCP server from lemon's mcp.json",
  args: nameArg,
  flags: globalFlag,
  async run({ flags, args, io }) {
    const r = await mcpApi(io, flags).remove(args.name, { global: flags.global });
    if (flags.json) printJson(io, { ok: true, name: r.name, scope: r.scope, file: r.file, removed: true });
    else io.out(`Removed MCP server '${r.name}' from ${r.file}\n`);
  },
});
