/**
 * @module mcp/view
 * The redacted ServerView (cli.md §1.4): counts and filters only — never commands, arguments,
 * cwd, URLs, env/header values or unknown extension fields.
 */
import type { Approval, McpServerConfig, ServerFilters, ServerView, Transport } from "./types.ts";

/**
 * An entry's approval: `never` when absent, as mcp.md §3.1 says of lemon's own sources. Imports
 * never reach here without one: they are given `always` when accepted (§4.2, importers/common.ts).
 */
export const approvalOf = (entry: McpServerConfig): Approval => entry.approval ?? "never";

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
    approval: approvalOf(entry),
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
