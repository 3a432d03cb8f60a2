/**
 * @module cli/commands/mcp/shared
 * What the `lemon mcp` subcommands share: the configuration API over the run's context (built
 * from the `./mcp` entry alone, so `mcp list` loads neither the skills stack nor the MCP SDK),
 * the scope flag and the NAME argument.
 */
import { mcpConfig, type McpConfigApi } from "../../../core/mcp/index.ts";
import type { ArgSpec, FlagSpec } from "../../command.ts";
import type { CliIo } from "../../io.ts";
import { projectDir } from "../../project-dir.ts";

export function mcpApi(io: CliIo, flags: { cwd?: string | undefined }): McpConfigApi {
  return mcpConfig({ cwd: projectDir(io, flags), env: io.env });
}

export const globalFlag = {
  global: { type: "boolean", description: "Use the agent dir's mcp.json instead of the project's" },
} as const satisfies Record<string, FlagSpec>;

export const nameArg = [{ name: "name", description: "Server name", required: true }] as const satisfies readonly ArgSpec[];
