/**
 * @module cli/commands/mcp/add-json
 * `lemon mcp add-json NAME '<json>' [--global] [--replace]` (cli.md §3.2): one entry given as a
 * JSON object in lemon's or Claude Code's shape, validated and written as `add` writes it.
 */
import { defineCommand } from "../../command.ts";
import { hint, printJson } from "../../output.ts";
import { addedLine, globalFlag, mcpApi } from "./shared.ts";

export default defineCommand({
  name: "add-json",
  description: "Add an MCP server given as one JSON object (lemon's or Claude Code's entry shape)",
  args: [
    { name: "name", description: "Server name", required: true },
    { name: "json", description: 'The entry, e.g. \'{"command":"uvx","args":["mcp-server-git"]}\'', required: true },
  ],
  flags: { ...globalFlag, replace: { type: "boolean", description: "Replace an existing entry of the same name" } },
  async run({ flags, args, io }) {
    const r = await mcpApi(io, flags).addJson(args.name, args.json, { global: flags.global, replace: flags.replace });
    if (flags.json)
      return printJson(io, { ok: true, action: r.action, scope: r.scope, file: r.file, server: r.server });
    io.out(addedLine(args.name, r));
    // The text was on the command line: env and header values may be credentials (cli.md §3.1).
    if (r.server.env_count + r.server.header_count > 0)
      hint(io, flags.quiet, "shell history may retain credential arguments");
  },
});
