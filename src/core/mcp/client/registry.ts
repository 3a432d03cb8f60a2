/**
 * @module mcp/client/registry
 * The ToolRegistry of mcp.md §12 / cli.md §8: tool sources merged with the precedence
 * builtin > wasm > extension > mcp. A lower source's tool whose name is taken is dropped and
 * reported; calls go to the tool that won, so an MCP server can never shadow a host's own tool.
 */
import { notFound } from "../../errors.ts";
import type { ToolCallContext, ToolDefinition, ToolResult, ToolSource } from "../../skills/tools/result.ts";

export interface ToolSources {
  builtin?: ToolDefinition[];
  wasm?: ToolDefinition[];
  extension?: ToolDefinition[];
}

export interface Shadowed {
  name: string;
  kept: ToolSource;
  dropped: ToolSource;
}

export interface ToolRegistry {
  getTools(opts?: { cwd?: string; refresh?: boolean }): Promise<{ tools: ToolDefinition[]; shadowed: Shadowed[] }>;
  callTool(name: string, args: unknown, ctx?: ToolCallContext & { cwd?: string }): Promise<ToolResult>;
}

const ORDER = ["builtin", "wasm", "extension"] as const;

/** `mcpTools` is `lemon.mcp.getTools`; it is asked per `getTools` call (discovery is cached). */
export function createToolRegistry(
  sources: ToolSources,
  mcpTools: (opts: { cwd?: string; refresh?: boolean }) => Promise<ToolDefinition[]>,
): ToolRegistry {
  const merge = async (opts: { cwd?: string; refresh?: boolean }) => {
    const kept = new Map<string, ToolDefinition & { source: ToolSource }>();
    const shadowed: Shadowed[] = [];
    const add = (t: ToolDefinition, source: ToolSource) => {
      const have = kept.get(t.name);
      if (have !== undefined) {
        shadowed.push({ name: t.name, kept: have.source, dropped: source });
        return;
      }
      kept.set(t.name, { ...t, source });
    };
    for (const src of ORDER) for (const t of sources[src] ?? []) add(t, src);
    for (const t of await mcpTools(opts)) add(t, "mcp");
    return { tools: [...kept.values()], shadowed };
  };
  return {
    getTools: (opts = {}) => merge(opts),
    async callTool(name, args, ctx = {}) {
      const { cwd, ...rest } = ctx;
      const { tools } = await merge(cwd !== undefined ? { cwd } : {});
      const tool = tools.find((t) => t.name === name);
      if (tool === undefined) throw notFound(`tool '${name}' not found`);
      return tool.execute(args, rest);
    },
  };
}
