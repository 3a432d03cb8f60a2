/**
 * @module cli/commands/mcp/status
 * `lemon mcp status` (cli.md §3.7), configuration only until the client lands: every effective
 * server with its source and enabled state; nothing is connected, so counts are zero and the
 * state is `disabled` or `disconnected`.
 */
import { effectiveServers } from "../../../core/mcp/index.ts";
import { defineLemonCommand } from "../../command.ts";
import { formatTable, info, printJson } from "../../output.ts";
import { mcpContext } from "./shared.ts";

export default defineLemonCommand({
  meta: { name: "status", description: "Show the configured MCP servers and their state" },
  args: {},
  async run({ args, io }) {
    const set = await effectiveServers(mcpContext(io, args), {}, "project");
    const servers: Record<string, Record<string, unknown>> = {};
    for (const s of set.servers)
      servers[s.name] = {
        name: s.name,
        source: s.source,
        transport: s.type,
        enabled: s.enabled,
        state: s.enabled ? "disconnected" : "disabled",
        connected: false,
        protocol_version: null,
        server_info: null,
        capabilities: { tools: false, resources: false, prompts: false },
        tool_count: 0,
        resource_count: 0,
        prompt_count: 0,
        auth: { type: s.server.entry.oauth !== undefined ? "oauth" : Object.keys(s.server.entry.headers ?? {}).length > 0 ? "headers" : "none" },
        reconnect_attempts: 0,
        crashes_30s: 0,
        last_error: null,
        warnings: s.warnings,
      };
    if (args.json) {
      printJson(io, {
        ok: true,
        disabled: set.disabled,
        enabled: set.enabled && !set.disabled,
        cache_ttl_ms: 300000,
        cached_tools: 0,
        servers,
        diagnostics: set.diagnostics,
      });
      return 0;
    }
    const quiet = Boolean(args.quiet);
    if (set.disabled) info(io, quiet, "MCP is disabled");
    if (set.servers.length === 0) info(io, quiet, "no MCP servers configured");
    else
      io.out(
        formatTable(
          ["NAME", "STATE", "TOOLS", "RESOURCES", "PROMPTS", "LAST ERROR"],
          set.servers.map((s) => [s.name, s.enabled ? "disconnected" : "disabled", "0", "0", "0", ""]),
        ),
      );
    for (const d of set.diagnostics) info(io, quiet, `${d.level}: ${d.message}`);
    return 0;
  },
});
