/**
 * @module cli/commands/mcp/trust
 * `lemon mcp trust [NAME …] [--all] [--yes]` and `untrust [NAME …] [--all]` (cli.md §3.6a,
 * mcp.md §4.4). Before anything is recorded the user sees, per untrusted project server, its
 * source file and exactly what would run; every shown value is escaped, so a hostile name,
 * argument or path cannot move the cursor, recolour or hide text on the terminal.
 */
import { LemonError } from "../../../core/index.ts";
import type { McpTrustRequest } from "../../../core/mcp/index.ts";
import { usageError } from "../../args.ts";
import type { PromptIo } from "../../approve.ts";
import { defineCommand, type LemonCommand } from "../../command.ts";
import type { CliIo } from "../../io.ts";
import { printJson } from "../../output.ts";
import { describeServer, escapeShown } from "./review.ts";
import { mcpApi } from "./shared.ts";

export { describeServer, escapeShown, shownArg } from "./review.ts";

const REQUIRED = "approval required; re-run with --approve after reviewing the request";

function isatty(fd: number): boolean {
  return (require("node:tty") as typeof import("node:tty")).isatty(fd);
}

async function processLine(): Promise<string | null> {
  for await (const line of console) return line;
  return null;
}

const allFlag = (what: string) => ({ all: { type: "boolean", description: what } }) as const;
const namesArg = [{ name: "names", description: "Server names (or --all)", variadic: true }] as const;

function selection(words: readonly string[], all: boolean): string[] {
  const names = [...words];
  if (names.length === 0 && !all) throw usageError("give a server name or --all");
  return names;
}

/** The confirmation of `trust`: the reviews, then `--yes`, a `[y/N]` prompt or FORBIDDEN. */
function confirmer(io: CliIo, flags: { approve: boolean; json: boolean; quiet: boolean }) {
  return async (requests: McpTrustRequest[]): Promise<boolean> => {
    const prompt = io as PromptIo;
    const interactive = !flags.approve && (prompt.interactive ?? (isatty(0) && isatty(2)));
    // A JSON run's stderr carries only the error document, unless a question is asked there.
    if ((!flags.json && !flags.quiet) || interactive) for (const r of requests) io.err(describeServer(r));
    if (flags.approve) return true;
    if (!interactive)
      throw new LemonError("FORBIDDEN", REQUIRED, { hint: "review it above, then: lemon mcp trust NAME --yes" });
    const project = escapeShown(requests[0]?.project ?? "");
    const what = requests.length === 1 ? "this project MCP server" : `these ${requests.length} project MCP servers`;
    io.err(`Trust ${what} for ${project}? [y/N] `);
    const answer = await (prompt.readLine ?? processLine)();
    return answer !== null && /^(y|yes)$/i.test(answer.trim());
  };
}

export const trust: LemonCommand = defineCommand({
  name: "trust",
  description: "Review and trust a project's MCP servers before they can run",
  args: namesArg,
  flags: allFlag("Every enabled untrusted project server"),
  async run({ flags, words, io }) {
    const names = selection(words, flags.all);
    const r = await mcpApi(io, flags).trust(names, { all: flags.all, confirm: confirmer(io, flags) });
    if (r.declined) {
      if (flags.json) throw new LemonError("FORBIDDEN", "approval denied");
      io.err("Aborted.\n");
      return 1;
    }
    if (flags.json) return printJson(io, { ok: true, trusted: r.trusted, already: r.already });
    for (const n of r.trusted) io.out(`Trusted MCP server '${escapeShown(n)}'\n`);
    for (const n of r.already) io.out(`MCP server '${escapeShown(n)}' is already trusted\n`);
    if (r.trusted.length === 0 && r.already.length === 0) io.out("No untrusted project MCP servers\n");
  },
});

export const untrust: LemonCommand = defineCommand({
  name: "untrust",
  description: "Withdraw trust in a project's MCP servers",
  args: namesArg,
  flags: allFlag("Every trust record of this project"),
  async run({ flags, words, io }) {
    const names = selection(words, flags.all);
    const r = await mcpApi(io, flags).untrust(names, { all: flags.all });
    if (flags.json) return printJson(io, { ok: true, untrusted: r.untrusted });
    for (const n of r.untrusted) io.out(`Removed trust in MCP server '${escapeShown(n)}'\n`);
    if (r.untrusted.length === 0) io.out("No trust recorded for those servers\n");
  },
});

export default trust;
