/**
 * @module skills/tools/result
 * The result and definition shapes of lemon's agent tools (cli.md §7, mcp.md §12), shared by
 * `read_skill` and `skill_manage`. A tool never throws at its caller: every failure is a result
 * with `isError: true`, so an agent loop can hand it back to the model unchanged.
 */
/** One block of a tool result (cli.md §7 `ContentBlock`). */
export type ContentBlock =
  | { type: "text"; text: string }
  | { type: "image"; data: string; mimeType: string }
  | { type: "audio"; data: string; mimeType: string }
  | { type: "resource_link"; uri: string; name?: string }
  | { type: "resource"; resource: { uri: string; text?: string; blob?: string; mimeType?: string } };

/** What a tool call returns: content for the model, structured `details` for the host. */
export interface ToolResult<D = Record<string, unknown>> {
  content: ContentBlock[];
  isError: boolean;
  details: D;
}

/** The embedder's context of one tool call; its ids reach the telemetry events (skills.md §11). */
export interface ToolCallContext {
  toolCallId?: string;
  sessionKey?: string;
  runId?: string;
  agentId?: string;
  signal?: AbortSignal;
}

/** Where a tool comes from, for the ToolRegistry's precedence (mcp.md §12). */
export type ToolSource = "builtin" | "wasm" | "extension" | "mcp";

/** A JSON Schema of an object, as LLM tool-calling APIs take it (a TypeBox `Type.Object` is one). */
export interface JsonSchemaObject {
  type: "object";
  properties: Record<string, unknown>;
  required?: string[];
  additionalProperties?: unknown;
  description?: string;
}

/**
 * A tool ready to hand to an LLM tool-calling API (mcp.md §12): `parameters` is plain JSON Schema,
 * `execute` validates its own arguments and never rejects.
 */
export interface ToolDefinition {
  name: string;
  label: string;
  description: string;
  parameters: JsonSchemaObject;
  source: ToolSource;
  requiresApproval?: boolean;
  execute(args: unknown, ctx?: ToolCallContext): Promise<ToolResult>;
}

/** A successful one-text-block result. */
export function textResult<D>(text: string, details: D): ToolResult<D> {
  return { content: [{ type: "text", text }], isError: false, details };
}

/** A failed one-text-block result: the text is the message the model sees. */
export function errorResult<D>(text: string, details: D): ToolResult<D> {
  return { content: [{ type: "text", text }], isError: true, details };
}

/** The text of a result's text blocks, joined by newlines (what the CLI prints). */
export function resultText(r: ToolResult<unknown>): string {
  return r.content
    .filter((b): b is { type: "text"; text: string } => b.type === "text")
    .map((b) => b.text)
    .join("\n");
}

/**
 * The arguments as plain JSON data, or null when reading them throws (a getter that throws, a
 * Proxy): an agent loop's arguments are JSON anyway, and a copy made once cannot change or throw
 * while the tool reads it field by field.
 */
export function plainParams(params: unknown): { value: unknown } | null {
  if (typeof params !== "object" || params === null) return { value: params };
  try {
    const text = JSON.stringify(params);
    return { value: text === undefined ? undefined : JSON.parse(text) };
  } catch {
    return null;
  }
}
