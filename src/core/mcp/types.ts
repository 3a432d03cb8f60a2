/**
 * @module mcp/types
 * The shapes of MCP configuration: a normalised server entry (mcp.md §3.1), where it came from,
 * and the redacted view every listing shows (cli.md §1.4 ServerView).
 */
import type { McpServerConfig } from "../schema/mcp-json.ts";

export type Transport = "stdio" | "http" | "sse";
export type Approval = "always" | "never";

/** A server entry after alias resolution; its single source is the entry schema. */
export type { McpServerConfig } from "../schema/mcp-json.ts";

/** Which `${…}` dialect applies when the entry is expanded at connect time. */
export type VariableSyntax = "lemon" | "editor" | "none";

export type SourceLevel = "project" | "user";
export type LemonSourceLabel = "lemon:project" | "lemon:global" | "lemon:env" | "lemon:config";

export type ProviderId =
  | "omp"
  | "claude"
  | "codex"
  | "gemini"
  | "opencode"
  | "cursor"
  | "windsurf"
  | "vscode"
  | "mcp-json";

/** One entry as a source produced it, before precedence is applied. */
export interface SourcedServer {
  /** Configured name, or undefined for an unnamed legacy entry of a lemon source. */
  name: string | undefined;
  /** `lemon:project`, `claude:user`, … */
  source: string;
  /** The file the entry came from, when it came from a file. */
  file?: string;
  /** Position of the entry in its source (lemon files: index into `servers`, then `mcpServers`). */
  index: number;
  entry: McpServerConfig;
  transport: Transport;
  /** Dialect used to expand placeholders at connect time. */
  vars: VariableSyntax;
  /** omp / mcp-json glob filters over raw tool names (deny wins), kept apart from exact filters. */
  toolGlobs?: { enabled: string[]; disabled: string[] };
  imported: boolean;
  /** Warnings of the mapping, e.g. `timeout_ms clamped to 300000 ms` (imports only). */
  warnings?: string[];
}

export interface ServerFilters {
  allow_tools: string[];
  block_tools: string[];
  allow_resources: string[];
  block_resources: string[];
  allow_prompts: string[];
  block_prompts: string[];
}

/** A redacted entry (cli.md §1.4): never commands, arguments, cwd, URLs, values or extensions. */
export interface ServerView {
  name: string | null;
  index: number;
  type: Transport;
  enabled: boolean;
  approval: Approval;
  env_count: number;
  env_var_count: number;
  header_count: number;
  tool_approval_count: number;
  has_oauth: boolean;
  filters: ServerFilters;
  timeouts: { timeout_ms: number | null; tool_timeout_ms: number | null; ready_timeout_ms: number | null };
}
