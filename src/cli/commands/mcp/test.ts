/**
 * @module cli/commands/mcp/test
 * `lemon mcp test NAME [--global] [--list-tools] [--verbose] [--no-browser] [--headless-auth]` / `test --url URL [--transport
 * http|sse]` (cli.md §3.5, check-style): an isolated connection, the handshake and listings, the
 * report, close; never a tool call. A project entry must be trusted (a terminal user may confirm).
 * An OAuth server's flow runs after approval (`--approve` or a terminal; `--no-browser`,
 * `--headless-auth`). `--list-tools` prints the counted remote tools and the utilities apart.
 */
import { cell, LemonError, terminalText } from "../../../core/index.ts";
import { mcpTest, type McpTestReport } from "../../../core/mcp/index.ts";
import { defineCommand } from "../../command.ts";
import { formatRows, printJson } from "../../output.ts";
import { projectDir } from "../../project-dir.ts";
import { trustPrompt } from "./client.ts";
import { cliOAuth, oauthFlags } from "./login.ts";
import { globalFlag } from "./shared.ts";

function human(r: McpTestReport, verbose: boolean): string {
  const lines = [`${cell(r.name)}: ${r.ok ? "ok" : "failed"}\n`];
  const rows: string[][] = [["transport", r.transport]];
  if (r.server_info) rows.push(["server", `${cell(r.server_info.name)} ${cell(r.server_info.version)}`]);
  if (r.protocol_version) rows.push(["protocol", cell(r.protocol_version)]);
  if (r.ok)
    rows.push(["counts", `tools ${r.counts.tools}, resources ${r.counts.resources}, prompts ${r.counts.prompts}`]);
  const t = r.timing_ms;
  rows.push([
    "timing",
    `connect ${t.connect} ms, initialize ${t.initialize} ms, list ${t.list} ms, total ${t.total} ms`,
  ]);
  if (r.error) rows.push(["error", `${r.error.code}: ${r.error.message}`]);
  if (r.error?.hint) rows.push(["hint", cell(r.error.hint)]);
  for (const name of r.tools ?? []) rows.push(["tool", name]);
  for (const name of r.utilities ?? []) rows.push(["utility", name]);
  lines.push(formatRows(rows, "  "));
  if (verbose && r.stderr)
    lines.push(
      "  server stderr:\n",
      ...terminalText(r.stderr)
        .split("\n")
        .map((l) => `    ${l}\n`),
    );
  return lines.join("");
}

/** Server stderr for a terminal: as in `mcp call`, bidi and invisible characters go with ESC. */

export default defineCommand({
  name: "test",
  description: "Connect to one server and list what it offers",
  args: [{ name: "name", description: "Server name in the selected lemon file" }],
  flags: {
    ...globalFlag,
    url: { type: "string", description: "Test an endpoint directly", value: "url" },
    transport: { type: "string", description: "Transport of --url: http (default) or sse", value: "http|sse" },
    "list-tools": { type: "boolean", description: "Also print the published tool and utility names" },
    verbose: { type: "boolean", description: "Add the last 4 KiB of server stderr (human output)" },
    ...oauthFlags,
  },
  async run({ flags, args, io }) {
    if (flags.url === undefined && args.name === undefined)
      throw new LemonError("INVALID_PARAMS", "NAME or --url is required");
    if (flags.transport !== undefined && flags.transport !== "http" && flags.transport !== "sse")
      throw new LemonError("INVALID_PARAMS", "--transport must be http or sse");
    if (flags.transport !== undefined && flags.url === undefined)
      throw new LemonError("INVALID_PARAMS", "--transport applies to --url only");
    const approveTrust = trustPrompt(io);
    // The OAuth flow may run after approval (cli.md §3.5); without one nothing is shown or opened.
    const { oauth } = cliOAuth(io, flags);
    const report = await mcpTest(args.name ?? "", {
      oauth,
      cwd: projectDir(io, flags),
      env: io.env,
      global: flags.global,
      listTools: flags["list-tools"],
      verbose: flags.verbose && !flags.json,
      ...(flags.url !== undefined ? { url: flags.url } : {}),
      ...(flags.transport === "http" || flags.transport === "sse" ? { transport: flags.transport } : {}),
      ...(approveTrust !== undefined ? { approveTrust } : {}),
    });
    if (flags.json) {
      const { stderr: _stderr, ...doc } = report;
      printJson(io, doc);
    } else io.out(human(report, flags.verbose));
    return report.ok ? 0 : 1;
  },
});
