/**
 * @module cli/commands/mcp/tools
 * `lemon mcp tools [NAME]` (cli.md §3.7): the published tools of the project (or of one server),
 * `NAME  LABEL  SERVER`; JSON `{"ok":true,"tools":[{name,label,server,description}]}`. With NAME
 * only that server is started, and one that cannot list says why (unknown: NOT_FOUND; untrusted:
 * FORBIDDEN with the trust hint; down: UNAVAILABLE) rather than printing an empty list.
 */
import { cell } from "../../../core/index.ts";
import { defineCommand } from "../../command.ts";
import { formatTable, printJson } from "../../output.ts";
import { cliMcpClient } from "./client.ts";

export default defineCommand({
  name: "tools",
  description: "List the published MCP tools",
  args: [{ name: "name", description: "Only this server's tools" }],
  async run({ flags, args, io }) {
    const client = await cliMcpClient(io, flags);
    try {
      const tools = await client.published(args.name !== undefined ? { server: args.name } : {});
      const rows = tools.map((t) => ({ name: t.name, label: t.label, server: t.server, description: t.description }));
      if (flags.json) return printJson(io, { ok: true, tools: rows });
      if (rows.length === 0) {
        io.out("No MCP tools found.\n");
        return;
      }
      io.out(
        formatTable(
          ["NAME", "LABEL", "SERVER"],
          rows.map((t) => [t.name, cell(t.label, 60), cell(t.server)]),
        ),
      );
    } finally {
      await client.close();
    }
  },
});
