/**
 * @module cli/commands/mcp/get
 * `lemon mcp get NAME [--global]` (cli.md §3.2): one effective server of any source as `list
 * --all` shows it, plus its redacted fields (command and arguments or URL, env and header names,
 * trust, approval). Values of env entries and headers are never printed.
 */
import { defineCommand } from "../../command.ts";
import { formatRows, formatTable, printDiagnostics, printJson } from "../../output.ts";
import { globalFlag, mcpApi, nameArg } from "./shared.ts";

export default defineCommand({
  name: "get",
  description: "Show one effective MCP server of any source",
  args: nameArg,
  flags: globalFlag,
  async run({ flags, args, io }) {
    const s = await mcpApi(io, flags).get(args.name, { global: flags.global });
    if (flags.json) return printJson(io, { ok: true, scope: flags.global ? "global" : "project", server: s });
    const notes: string[] = [];
    if (s.disabled_by !== null) notes.push(`disabled by ${s.disabled_by}`);
    if (s.shadowed.length > 0) notes.push(`shadows ${s.shadowed.length}`);
    io.out(
      formatTable(
        ["NAME", "SOURCE", "TYPE", "ENABLED", "NOTE"],
        [[s.name, s.source, s.type, s.enabled ? "yes" : "no", notes.join(", ")]],
      ),
    );
    const rows: string[][] = [];
    if (s.command !== null) rows.push(["command", s.command]);
    if (s.args !== null && s.args.length > 0) rows.push(["args", s.args.join(" ")]);
    if (s.cwd !== null) rows.push(["cwd", s.cwd]);
    if (s.url !== null) rows.push(["url", s.url]);
    rows.push(["env", s.env_names.length > 0 ? s.env_names.join(", ") : "none"]);
    if (s.type !== "stdio") rows.push(["headers", s.header_names.length > 0 ? s.header_names.join(", ") : "none"]);
    rows.push(["approval", s.approval]);
    rows.push(["trust", s.trust_reason !== null ? `${s.trust}: ${s.trust_reason}` : s.trust]);
    rows.push(["file", s.file ?? "(environment or module options)"]);
    for (const w of s.warnings) rows.push(["warning", w]);
    io.out(formatRows(rows, "  "));
    printDiagnostics(io, flags.quiet, s.diagnostics);
  },
});
