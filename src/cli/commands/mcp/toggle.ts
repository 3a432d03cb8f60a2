/**
 * @module cli/commands/mcp/toggle
 * `lemon mcp enable|disable NAME [--global] [--force]` (cli.md §3.3): moves the name between
 * `enabled_servers` and `disabled_servers` of the selected lemon file.
 */
import { defineLemonCommand, type LemonCommand } from "../../command.ts";
import { printJson } from "../../output.ts";
import { globalArg, mcpApi, nameArg } from "./shared.ts";

export function toggleCommand(enabled: boolean): LemonCommand {
  return defineLemonCommand({
    meta: {
      name: enabled ? "enable" : "disable",
      description: `${enabled ? "Enable" : "Disable"} an MCP server of any source by name`,
    },
    args: {
      // Checked in run(): citty itself throws a non-LemonError for a missing positional.
      name: { type: "positional", description: "Server name", required: false },
      ...globalArg,
      force: { type: "boolean", description: "Accept a name that is not (yet) configured" },
    },
    async run({ args, io }) {
      const api = mcpApi(io, args);
      const opts = { global: Boolean(args.global), force: Boolean(args.force) };
      const name = nameArg(args.name, enabled ? "enable" : "disable");
      const r = enabled ? await api.enable(name, opts) : await api.disable(name, opts);
      if (args.json) printJson(io, { ok: true, name: r.name, scope: r.scope, file: r.file, enabled: r.enabled, changed: r.changed });
      else io.out(`${enabled ? "Enabled" : "Disabled"} MCP server '${name}' (${r.scope}, ${r.changed ? "updated" : "unchanged"} ${r.file})\n`);
      return 0;
    },
  });
}
