/**
 * @module mcp/client/call
 * One tool call (mcp.md §9, §6.3): the published name is looked up in the project's current
 * inventory only (a retired name is NOT_FOUND, never routed to a replacement), filters are checked
 * again, the server's requirement and the embedder's policy are ORed into at most one approval
 * request, and the request goes out with the raw name under `tool_timeout_ms`. A timed-out or
 * disconnected call is never replayed: the remote side may already have acted.
 */
import { LemonError, forbidden, invalidParams, notFound } from "../../errors.ts";
import { stripInvisible } from "../../text.ts";
import type { ContentBlock, ToolCallContext, ToolResult } from "../../skills/tools/result.ts";
import type { EffectiveServer } from "../effective.ts";
import { DEFAULT_REQUEST_TIMEOUT_MS, MAX_TOTAL_TIMEOUT_MS } from "./connect.ts";
import { promptAllowed, resourceAllowed, toolAllowed, type PublishedTool } from "./inventory.ts";
import type { Link } from "./link.ts";
import { canonicalJson } from "./naming.ts";

/** The approval request of §9 (cli.md §7 `ApprovalRequest` kind `mcp_tool`). */
export interface McpToolApprovalRequest {
  kind: "mcp_tool";
  server: string;
  tool: string;
  name: string;
  transport: string;
  argumentsPreview: string;
}

/** What the embedder's `toolPolicy` sees. */
export interface ToolCallInfo {
  name: string;
  server: string;
  tool: string;
  source: "mcp";
  requiresApproval: boolean;
}
export type ToolPolicyDecision = "allow" | "require_approval" | "deny";

export interface McpCallDetails {
  server: string;
  tool: string;
  structuredContent?: unknown;
  error?: "tool_error";
  [k: string]: unknown;
}

export interface CallPolicy {
  approve?: (r: McpToolApprovalRequest) => Promise<boolean>;
  toolPolicy?: (call: ToolCallInfo) => ToolPolicyDecision | Promise<ToolPolicyDecision>;
  maxResultChars: number;
}

export const MCP_DISABLED = "MCP is disabled";
export const notConnected = (server: string) =>
  new LemonError("UNAVAILABLE", `MCP server '${server}' is not connected`);
export const noLongerAvailable = (name: string) => notFound(`MCP tool '${name}' is no longer available; refresh tools`);
export const toolNotFound = (name: string) => notFound(`MCP tool '${name}' not found`);

/** install.md §12.3 secret-like key names (normalised: lowercase, `_`/`-`/space removed). */
const SECRET_KEY =
  /apikey|authorization|bearer|credential|masterkey|oauth|password|privatekey|secret|sessiontoken|token|walletkey/;
const isSecretKey = (k: string) => SECRET_KEY.test(k.toLowerCase().replace(/[_\- ]/g, ""));

function redact(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(redact);
  if (v !== null && typeof v === "object")
    return Object.fromEntries(
      Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, isSecretKey(k) ? "[redacted]" : redact(x)]),
    );
  return v;
}

/** §9 `arguments_preview`: canonical JSON, secret-like values redacted, controls removed, ≤ 1,024 chars. */
export function argumentsPreview(args: unknown): string {
  // Control characters inside strings are escaped by JSON; the escapes are removed too, so a
  // preview never shows a terminal sequence in any form.
  const text = stripInvisible(canonicalJson(redact(args ?? {}))).replace(/\\u00[01][0-9a-f]|\\[bfnrt]/g, "");
  return Array.from(text).slice(0, 1024).join("");
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** Content blocks of a result: the contract's kinds pass through; anything else is dropped. */
function blocks(content: unknown): ContentBlock[] {
  if (!Array.isArray(content)) return [];
  const out: ContentBlock[] = [];
  for (const b of content) {
    if (!isObj(b)) continue;
    if (b.type === "text" && typeof b.text === "string") out.push({ type: "text", text: b.text });
    else if ((b.type === "image" || b.type === "audio") && typeof b.data === "string" && typeof b.mimeType === "string")
      out.push({ type: b.type, data: b.data, mimeType: b.mimeType });
    else if (b.type === "resource_link" && typeof b.uri === "string")
      out.push({ type: "resource_link", uri: b.uri, ...(typeof b.name === "string" ? { name: b.name } : {}) });
    else if (b.type === "resource" && isObj(b.resource) && typeof b.resource.uri === "string") {
      const r = b.resource;
      out.push({
        type: "resource",
        resource: {
          uri: r.uri as string,
          ...(typeof r.text === "string" ? { text: r.text } : {}),
          ...(typeof r.blob === "string" ? { blob: r.blob } : {}),
          ...(typeof r.mimeType === "string" ? { mimeType: r.mimeType } : {}),
        },
      });
    }
  }
  return out;
}

/** §6.3: the text of one result beyond `max` characters is cut, with the marker. */
export function truncateText(content: ContentBlock[], max: number): ContentBlock[] {
  const total = content.reduce((n, b) => n + (b.type === "text" ? b.text.length : 0), 0);
  if (total <= max) return content;
  let left = max;
  const out: ContentBlock[] = [];
  for (const b of content) {
    if (b.type !== "text") {
      out.push(b);
      continue;
    }
    if (left <= 0) continue;
    const text = b.text.slice(0, left);
    left -= text.length;
    out.push({ type: "text", text });
  }
  out.push({ type: "text", text: `[truncated: showing ${max} of ${total} characters]` });
  return out;
}

/** Checks the utility's parameters and the filters; returns the request params. */
function utilityParams(
  s: EffectiveServer,
  tool: PublishedTool,
  args: Record<string, unknown>,
): Record<string, unknown> {
  const need = (k: string) => {
    if (typeof args[k] !== "string" || args[k] === "") throw invalidParams(`missing parameter '${k}'`);
    return args[k] as string;
  };
  switch (tool.utility) {
    case "resources/read": {
      const uri = need("uri");
      if (!resourceAllowed(s, uri)) throw forbidden(`tool '${uri}' is blocked by configuration`);
      return { uri };
    }
    case "prompts/get": {
      const name = need("name");
      if (!promptAllowed(s, name)) throw forbidden(`tool '${name}' is blocked by configuration`);
      const a = args.arguments;
      if (a !== undefined && (!isObj(a) || Object.values(a).some((v) => typeof v !== "string")))
        throw invalidParams("arguments must be an object of strings");
      return a === undefined ? { name } : { name, arguments: a };
    }
    default:
      return typeof args.cursor === "string" ? { cursor: args.cursor } : {};
  }
}

/** Utility results keep only what the filters let through (resources/list, prompts/list). */
function filterListing(s: EffectiveServer, tool: PublishedTool, result: unknown): unknown {
  if (!isObj(result)) return result;
  if (tool.utility === "resources/list" && Array.isArray(result.resources))
    return {
      ...result,
      resources: result.resources.filter(
        (r) =>
          isObj(r) &&
          typeof r.uri === "string" &&
          resourceAllowed(s, r.uri, typeof r.name === "string" ? r.name : undefined),
      ),
    };
  if (tool.utility === "prompts/list" && Array.isArray(result.prompts))
    return {
      ...result,
      prompts: result.prompts.filter((p) => isObj(p) && typeof p.name === "string" && promptAllowed(s, p.name)),
    };
  return result;
}

/** Runs one call on a connected link. */
export async function runCall(
  link: Link,
  tool: PublishedTool,
  args: unknown,
  ctx: ToolCallContext,
  policy: CallPolicy,
  timeoutOverride?: number,
): Promise<ToolResult<McpCallDetails>> {
  const s = link.server;
  if (tool.utility === null && !toolAllowed(s, tool.raw))
    throw forbidden(`tool '${tool.raw}' is blocked by configuration`);
  if (args !== undefined && !isObj(args)) throw invalidParams("arguments must be a JSON object");
  const a = (args ?? {}) as Record<string, unknown>;
  const params = tool.utility === null ? { name: tool.raw, arguments: a } : utilityParams(s, tool, a);
  const info: ToolCallInfo = {
    name: tool.name,
    server: s.name,
    tool: tool.raw,
    source: "mcp",
    requiresApproval: tool.requiresApproval,
  };
  const decision = policy.toolPolicy ? await policy.toolPolicy(info) : "allow";
  if (decision === "deny") throw forbidden(`tool '${tool.raw}' is denied by policy`);
  if (tool.requiresApproval || decision === "require_approval") {
    const request: McpToolApprovalRequest = {
      kind: "mcp_tool",
      server: s.name,
      tool: tool.raw,
      name: tool.name,
      transport: s.type,
      argumentsPreview: argumentsPreview(a),
    };
    if (!policy.approve || (await policy.approve(request)) !== true) throw forbidden("approval denied");
  }
  const conn = link.conn;
  if (conn === null) throw notConnected(s.name);
  const e = link.entry;
  const timeoutMs = Math.min(
    timeoutOverride ?? e.tool_timeout_ms ?? e.timeout_ms ?? DEFAULT_REQUEST_TIMEOUT_MS,
    MAX_TOTAL_TIMEOUT_MS,
  );
  let result: unknown;
  try {
    result = await conn.request(tool.utility ?? "tools/call", params, {
      timeoutMs,
      onProgress: () => {},
      ...(ctx.signal !== undefined ? { signal: ctx.signal } : {}),
    });
  } catch (err) {
    if (LemonError.is(err) && err.code === "TIMEOUT")
      throw new LemonError("TIMEOUT", `MCP tool call timed out after ${timeoutMs} ms`);
    throw err;
  }
  const details: McpCallDetails = { server: s.name, tool: tool.raw };
  if (tool.utility !== null) {
    const text = JSON.stringify(filterListing(s, tool, result) ?? null);
    return { content: truncateText([{ type: "text", text }], policy.maxResultChars), isError: false, details };
  }
  const r = isObj(result) ? result : {};
  if (r.structuredContent !== undefined) details.structuredContent = r.structuredContent;
  const isError = r.isError === true;
  if (isError) details.error = "tool_error";
  return { content: truncateText(blocks(r.content), policy.maxResultChars), isError, details };
}
