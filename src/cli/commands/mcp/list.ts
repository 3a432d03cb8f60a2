/**
 * @module cli/commands/mcp/list
 * `lemon mcp list [--global] [--all]` (cli.md §3.2). Redacted: names, sources, types, states and
 * counts only. A hot path: no SDK, and TOML/JSONC parsing loads only for files that exist.
 */
import type { McpConfigApi, McpEffectiveListing, McpFileListing } from "../../../core/mcp/index.ts";
import { cell } from "../../../core/index.ts";
import { defineCommand } from "../../command.ts";
import type { CliIo } from "../../io.ts";
import { formatTable, hint, info, printDiagnostics, printJson } from "../../output.ts";
import { globalFlag, mcpApi } from "./shared.ts";

function printFile(io: CliIo, l: McpFileListing, quiet: boolean): void {
  printDiagnostics(io, quiet, l.diagnostics);
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
}

function printAll(io: CliIo, l: McpEffectiveListing, quiet: boolean): void {
  printDiagnostics(io, quiet, l.diagnostics);
  if (l.effective.length === 0) info(io, quiet, "no MCP servers configured");
  else
    io.out(
      formatTable(
        ["NAME", "SOURCE", "TYPE", "ENABLED", "TRUST", "NOTE"],
        l.effective.map((s) => {
          const notes: string[] = [];
          if (s.disabled_by !== null) notes.push(`disabled by ${s.disabled_by}`);
          if (s.shadowed.length > 0) notes.push(`shadows ${s.shadowed.length}`);
          // mcp.md §4.4: "-" for the user's own sources, which need no trust.
          return [s.name, s.source, s.type, s.enabled ? "yes" : "no", s.trust ?? "-", notes.join(", ")];
        }),
      ),
    );
}

/** The servers other sources add to the selected file's, for the hint of cli.md §3.2. */
async function fromElsewhere(api: McpConfigApi, l: McpFileListing, global: boolean): Promise<number> {
  const own = new Set(l.servers.flatMap((s) => (s.name !== undefined ? [s.name] : [])));
  const all = await api.list({ global, all: true });
  // Only imports count: lemon's own sources (`lemon:*`, unnamed entries included) are not "other tools".
  return all.effective.filter((s) => !s.source.startsWith("lemon:") && !own.has(s.name)).length;
}

export default defineCommand({
  name: "list",
  description: "List the MCP servers of lemon's mcp.json, or with --all the effective set",
  flags: {
    ...globalFlag,
    all: { type: "boolean", description: "The effective merged set of every source, imports included" },
  },
  async run({ flags, io }) {
    const api = mcpApi(io, flags);
    const { global, quiet } = flags;
    if (flags.all) {
      const l = await api.list({ global, all: true });
      // Diagnostics quote keys of foreign files: one clean line in JSON too (no ESC, bidi, newlines).
      const diagnostics = l.diagnostics.map((d) => ({
        ...d,
        message: cell(d.message),
        ...(d.key !== undefined ? { key: cell(d.key) } : {}),
      }));
      if (flags.json) printJson(io, { ok: true, scope: l.scope, effective: l.effective, diagnostics });
      else printAll(io, l, quiet);
      return;
    }
    const l = await api.list({ global });
    if (flags.json) return printJson(io, { ok: true, ...l });
    printFile(io, l, quiet);
    if (quiet) return;
    const more = await fromElsewhere(api, l, global);
    if (more > 0) hint(io, quiet, `${more} more servers come from other tools; see 'lemon mcp list --all'`);
  },
});
