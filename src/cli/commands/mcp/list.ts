/**
 * @module cli/commands/mcp/list
 * `lemon mcp list [--global] [--all]` (cli.md §3.2). Redacted: names, sources, types, states and
 * counts only. A hot path: no SDK, and TOML/JSONC parsing loads only for files that exist.
 */
import type { McpEffectiveListing, McpFileListing } from "../../../core/mcp/index.ts";
import { defineLemonCommand } from "../../command.ts";
import type { CliIo } from "../../io.ts";
import { formatTable, info, printDiagnostics, printJson } from "../../output.ts";
import { globalArg, mcpApi } from "./shared.ts";

function printFile(io: CliIo, l: McpFileListing, quiet: boolean): void {
  if (l.servers.length === 0) info(io, quiet, l.exists ? `no MCP servers in ${l.file}` : `${l.file} does not exist`);
  else
    io.out(
      formatTable(
        ["NAME", "TYPE", "ENABLED", "APPROVAL", "ENV", "HEADERS", "TOOL-APPROVALS"],
        l.servers.map((s) => [
          s.name ?? `#${s.index}`,
          s.type,
          s.enabled ? "yes" : "no",
          s.approval,
          String(s.env_count + s.env_var_count),
          String(s.header_count),
          String(s.tool_approval_count),
        ]),
      ),
    );
  printDiagnostics(io, quiet, l.diagnostics);
}

function printAll(io: CliIo, l: McpEffectiveListing, quiet: boolean): void {
  if (l.effective.length === 0) info(io, quiet, "no MCP servers configured");
  else
    io.out(
      formatTable(
        ["NAME", "SOURCE", "TYPE", "ENABLED", "NOTE"],
        l.effective.map((s) => {
          const notes: string[] = [];
          if (s.disabled_by !== null) notes.push(`disabled by ${s.disabled_by}`);
          if (s.shadowed.length > 0) notes.push(`shadows ${s.shadowed.length}`);
          return [s.name, s.source, s.type, s.enabled ? "yes" : "no", notes.join(", ")];
        }),
      ),
    );
  printDiagnostics(io, quiet, l.diagnostics);
}

export default defineLemonCommand({
  meta: { name: "list", description: "List MCP servers of lemon's mcp.json, or with --all the effective set" },
  args: {
    ...globalArg,
    all: { type: "boolean", description: "Effective merged set of every source, imports included" },
  },
  async run({ args, io }) {
    const api = mcpApi(io, args);
    const global = Boolean(args.global);
    const quiet = Boolean(args.quiet);
    if (args.all) {
      const l = await api.list({ global, all: true });
      if (args.json) printJson(io, { ok: true, scope: l.scope, effective: l.effective, diagnostics: l.diagnostics });
      else printAll(io, l, quiet);
    } else {
      const l = await api.list({ global });
      if (args.json) printJson(io, { ok: true, ...l });
      else printFile(io, l, quiet);
    }
    return 0;
  },
});
