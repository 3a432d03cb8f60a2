/**
 * @module cli/commands/mcp/remove
 * `lemon mcp remove NAME [--global]` (cli.md §3.4): the selected lemon file only, never imports.
 */
import { defineLemonCommand } from "../../command.ts";
import { printJson } from "../../output.ts";
import { globalArg, mcpApi } from "./shared.ts";

export default defineLemonCommand({
  meta: { name: "remove", description: "Remove an MCP server from lemon's mcp.json", alias: ["rm"] },
  args: {
    name: { type: "positional", description: "Server name", required: true },
    ...globalArg,
  },
  async run({ args, io }) {
    const r = await mcpApi(io, args).remove(String(args.name), { global: Boolean(args.global) });
    if (args.json) printJson(io, { ok: true, name: r.name, scope: r.scope, file: r.file, removed: true });
    else io.out(`Removed MCP server '${r.name}' from ${r.file}\n`);
    return 0;
  },
});
