/**
 * @module cli/commands/mcp/remove
 * `lemon mcp remove NAME [--global]` (cli.md §3.4): the selected lemon file only, never imports.
 */
import { defineLemonCommand } from "../../command.ts";
import { printJson } from "../../output.ts";
import { globalArg, mcpApi, nameArg } from "./shared.ts";

export default defineLemonCommand({
  meta: { name: "remove", description: "Remove an MCP server from lemon's mcp.json", alias: ["rm"] },
  args: {
    // Checked in run(): citty itself throws a non-LemonError for a missing positional.
    name: { type: "positional", description: "Server name", required: false },
    ...globalArg,
  },
  async run({ args, io }) {
    const r = await mcpApi(io, args).remove(nameArg(args.name, "remove"), { global: Boolean(args.global) });
    if (args.json) printJson(io, { ok: true, name: r.name, scope: r.scope, file: r.file, removed: true });
    else io.out(`Removed MCP server '${r.name}' from ${r.file}\n`);
    return 0;
  },
});
