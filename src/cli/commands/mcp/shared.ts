/**
 * @module cli/commands/mcp/shared
 * What the `lemon mcp` subcommands share: the configuration API over the run's context (built
 * from the `./mcp` entry alone, so `mcp list` loads neither the skills stack nor the MCP SDK),
 * the scope flag and the NAME argument.
 */
import { mcpConfig, type McpConfigCommands } from "../../../core/mcp/index.ts";
import type { ArgSpec, FlagSpec } from "../../command.ts";
import type { CliIo } from "../../io.ts";
import { projectDir } from "../../project-dir.ts";

export function mcpApi(io: CliIo, flags: { cwd?: string | undefined }): McpConfigCommands {
  return mcpConfig({ cwd: projectDir(io, flags), env: io.env });
}

export const globalFlag = {
  global: { type: "boolean", description: "Use the agent dir's mcp.json instead of the project's" },
} as const satisfies Record<string, FlagSpec>;

export const nameArg = [
  { name: "name", description: "Server name", required: true },
] as const satisfies readonly ArgSpec[];

/** `Added MCP server 'x' to <file> (stdio, approval always)`, or `Replaced … in …` (cli.md §3.1). */
export function addedLine(
  name: string,
  r: { action: string; file: string; server: { type: string; approval: string } },
): string {
  const verb = r.action === "added" ? `Added MCP server '${name}' to` : `Replaced MCP server '${name}' in`;
  return `${verb} ${r.file} (${r.server.type}, approval ${r.server.approval})\n`;
}
