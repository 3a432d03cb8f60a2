/**
 * @module cli/commands/mcp/status
 * `lemon mcp status` (cli.md §3.7): connects to every effective, enabled, trusted server of the
 * project and prints `status()` (mcp.md §13). Untrusted project servers are listed, never started.
 */
import { cell } from "../../../core/index.ts";
import { defineCommand } from "../../command.ts";
import { formatTable, info, printDiagnostics, printJson } from "../../output.ts";
import { cliMcpClient } from "./client.ts";

export default defineCommand({
  name: "status",
  description: "Connect to every enabled server and show its state",
  async run({ flags, io }) {
    const client = await cliMcpClient(io, flags);
    try {
      const st = await client.status();
      if (flags.json) return printJson(io, { ok: true, ...st });
      if (st.disabled) io.err("MCP is disabled\n");
      const rows = Object.values(st.servers).map((s) => [
        cell(s.name),
        s.state,
        String(s.tool_count),
        String(s.resource_count),
        String(s.prompt_count),
        s.last_error ?? "",
      ]);
      // The same line as `mcp list --all`: one wording for "nothing configured".
      if (rows.length === 0) info(io, flags.quiet, "no MCP servers configured");
      else io.out(formatTable(["NAME", "STATE", "TOOLS", "RESOURCES", "PROMPTS", "LAST ERROR"], rows));
      printDiagnostics(io, flags.quiet, st.diagnostics);
    } finally {
      await client.close();
    }
  },
});
