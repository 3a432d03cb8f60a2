/**
 * @module schema/mcp-json
 * lemon's own `mcp.json` (mcp.md §2.2), project `C/.lemon/mcp.json` and global `A/mcp.json`.
 * Only the top-level shape is checked here: one bad entry is skipped with a diagnostic
 * (validate.ts), while a wrong top level makes the whole file invalid (never overwritten).
 * Unknown top-level keys and unknown entry fields survive rewrites.
 */
import { Type, type Static } from "@sinclair/typebox";

export const McpJson = Type.Object(
  {
    enabled: Type.Optional(Type.Boolean()),
    servers: Type.Optional(Type.Array(Type.Unknown())),
    mcpServers: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    enabled_servers: Type.Optional(Type.Array(Type.String())),
    disabled_servers: Type.Optional(Type.Array(Type.String())),
  },
  { additionalProperties: true },
);
export type McpJson = Static<typeof McpJson>;

export const emptyMcpJson = (): McpJson => ({ servers: [] });

/** `LEMON_MCP_SERVERS`: a JSON array of entries, or `{"servers": […]}`. */
export const McpEnvServers = Type.Union([
  Type.Array(Type.Unknown()),
  Type.Object({ servers: Type.Array(Type.Unknown()) }, { additionalProperties: true }),
]);
export type McpEnvServers = Static<typeof McpEnvServers>;
