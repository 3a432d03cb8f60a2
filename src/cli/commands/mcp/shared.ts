/**
 * @module cli/commands/mcp/shared
 * What the `lemon mcp` subcommands share: the core context (built directly, so `mcp list` loads
 * neither the skills stack nor the MCP SDK), scope flags and repeated-flag collection.
 */
import { invalidParams } from "../../../core/errors.ts";
import { createContext, type LemonContext } from "../../../core/context.ts";
import { createMcpConfig, type McpConfigApi } from "../../../core/mcp/index.ts";
import type { CliIo } from "../../io.ts";
import { projectDir } from "../../project-dir.ts";

export function mcpContext(io: CliIo, args: Record<string, unknown>): LemonContext {
  return createContext({ cwd: projectDir(io, args), env: io.env });
}

export function mcpApi(io: CliIo, args: Record<string, unknown>): McpConfigApi {
  return createMcpConfig(mcpContext(io, args));
}

export const globalArg = {
  global: { type: "boolean", description: "Use the agent-dir mcp.json instead of the project's" },
} as const;

/** Every value of a repeatable string flag (`--env A=1 --env B=2`, `--env=A=1`). */
export function collect(argv: string[], flag: string): string[] {
  const out: string[] = [];
  const long = `--${flag}`;
  for (let i = 0; i < argv.length; i++) {
    const tok = argv[i]!;
    if (tok === long) {
      const v = argv[i + 1];
      if (v !== undefined) out.push(v);
      i++;
    } else if (tok.startsWith(`${long}=`)) out.push(tok.slice(long.length + 1));
  }
  return out;
}

/** The NAME positional, or INVALID_PARAMS (exit 2). */
export function nameArg(v: unknown, command: string): string {
  if (typeof v !== "string" || v === "")
    throw invalidParams("missing argument <NAME>", { hint: `run 'lemon mcp ${command} --help' for details` });
  return v;
}
