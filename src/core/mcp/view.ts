/**
 * @module mcp/view
 * The redacted ServerView (cli.md §1.4): counts and filters only — never commands, arguments,
 * cwd, URLs, env/header values or unknown extension fields.
 */
import type { McpServerConfig, ServerFilters, ServerView, Transport } from "./types.ts";

const count = (o: unknown) => (o && typeof o === "object" ? Object.keys(o).length : 0);
const list = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : []);
const num = (v: unknown) => (typeof v === "number" ? v : null);

export function serverView(entry: McpServerConfig, transport: Transport, index: number): ServerView {
  const filters: ServerFilters = {
    allow_tools: list(entry.allow_tools),
    block_tools: list(entry.block_tools),
    allow_resources: list(entry.allow_resources),
    block_resources: list(entry.block_resources),
    allow_prompts: list(entry.allow_prompts),
    block_prompts: list(entry.block_prompts),
  };
  return {
    name: typeof entry.name === "string" ? entry.name : null,
    index,
    type: transport,
    enabled: entry.enabled !== false,
    approval: entry.approval ?? "never",
    env_count: count(entry.env),
    env_var_count: list(entry.env_vars).length,
    header_count: count(entry.headers),
    tool_approval_count: count(entry.tool_approvals),
    has_oauth: entry.oauth !== undefined,
    filters,
    timeouts: {
      timeout_ms: num(entry.timeout_ms),
      tool_timeout_ms: num(entry.tool_timeout_ms),
      ready_timeout_ms: num(entry.ready_timeout_ms),
    },
  };
}
