/**
 * @module cli/commands/mcp/toggle
 * `lemon mcp enable|disable NAME [--global] [--force]` (cli.md §3.3): moves the name between
 * `enabled_servers` and `disabled_servers` of the selected lemon file.
 */
import { defineCommand, type LemonCommand } from "../../command.ts";
import { printJson } from "../../output.ts";
import { globalFlag, mcpApi, nameArg } from "./shared.ts";

export function toggleCommand(enabled: boolean): LemonCommand {
  return defineCommand({
    name: enabled ? "enable" : "disable",
    description: `${enabled ? "Enable" : "Disable"} an MCP server of any source by name`,
    args: nameArg,
    flags: { ...globalFlag, force: { type: "boolean", description: "Accept a name that is not (yet) configured" } },
    async run({ flags, args, io }) {
      const api = mcpApi(io, flags);
      const opts = { global: flags.global, force: flags.force };
      const r = enabled ? await api.enable(args.name, opts) : await api.disable(args.name, opts);
      if (flags.json)
        return printJson(io, {
          ok: true,
          name: r.name,
          scope: r.scope,
          file: r.file,
          enabled: r.enabled,
          changed: r.changed,
        });
      const verb = enabled ? "Enabled" : "Disabled";
      io.out(`${verb} MCP server '${r.name}' (${r.scope}, ${r.changed ? "updated" : "unchanged"} ${r.file})\n`);
    },
  });
}
