/**
 * @module mcp/client/inventory
 * Discovery of one server (mcp.md §6.1–§6.2): list each advertised capability, apply the filters
 * before anything is published (exact lists of §3.1, omp/mcp-json picomatch-style globs, deny
 * wins), and publish remote tools plus the resource/prompt utilities under their §7 names.
 * Everything a server sends is untrusted: names, descriptions and schemas are checked and cut.
 */
import picomatch from "picomatch";
import { clampChars, flattenLine, stripAnsi } from "../../text.ts";
import type { EffectiveServer } from "../effective.ts";
import type { JsonSchemaObject } from "../../skills/tools/result.ts";
import { serverIdentity, serverSlug, toolName, UTILITIES, utilityName, type UtilityMethod } from "./naming.ts";

/** What discovery needs of a connection (a subset of connect.ts `ServerConnection`). */
export interface ListingConnection {
  readonly capabilities: { tools: boolean; resources: boolean; prompts: boolean };
  list(kind: "tools" | "resources" | "prompts"): Promise<{ items: unknown[]; truncated: boolean }>;
}

export type ListKind = "tools" | "resources" | "prompts";

/** One published tool: a remote tool or a utility, with what a call needs. */
export interface PublishedTool {
  name: string;
  label: string;
  description: string;
  parameters: JsonSchemaObject;
  server: string;
  /** The raw remote name, or the utility method. */
  raw: string;
  utility: UtilityMethod | null;
  /** The server-side requirement of §9 (`tool_approvals`, else `approval`, else never). */
  requiresApproval: boolean;
}

export interface Inventory {
  tools: PublishedTool[];
  /** Raw remote tool names that passed the filters (`raw → published`). */
  byRaw: Map<string, PublishedTool>;
  resources: number;
  prompts: number;
  /** Kinds cut at the listing bound (§6.1 `truncated` diagnostic). */
  truncated: ListKind[];
}

const EMPTY_SCHEMA: JsonSchemaObject = { type: "object", properties: {} };
const DESCRIPTION_MAX = 4096;

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** Whether the §3.1 filters (exact allow/block plus globs) let a name through. */
export function passes(
  name: string,
  allow: readonly string[] | undefined,
  block: readonly string[] | undefined,
  globs?: { enabled: string[]; disabled: string[] },
): boolean {
  if (block?.includes(name)) return false;
  if (allow && allow.length > 0 && !allow.includes(name)) return false;
  if (globs) {
    if (globs.disabled.some((g) => globMatcher(g)(name))) return false;
    if (globs.enabled.length > 0 && !globs.enabled.some((g) => globMatcher(g)(name))) return false;
  }
  return true;
}

// omp's and mcp-json's enabledTools/disabledTools are picomatch globs (mcp.md §4.3): matching with
// the same library keeps brace, extglob and negation semantics identical to the tool that wrote them.
// Compiled once per pattern: discovery re-checks every tool name against every glob.
const matchers = new Map<string, (name: string) => boolean>();
function globMatcher(glob: string): (name: string) => boolean {
  let m = matchers.get(glob);
  if (m === undefined) {
    m = picomatch(glob, { dot: true });
    if (matchers.size >= 1024) matchers.clear();
    matchers.set(glob, m);
  }
  return m;
}

/** The filter check of one raw tool name of a server (also re-run at call time, §9). */
export function toolAllowed(s: EffectiveServer, raw: string): boolean {
  const e = s.server.entry;
  return passes(raw, e.allow_tools, e.block_tools, s.server.toolGlobs);
}

/** Resource reads re-check the filters (§3.1): exact URIs or names. */
export function resourceAllowed(s: EffectiveServer, uri: string, name?: string): boolean {
  const { allow_resources: allow, block_resources: block } = s.server.entry;
  const keys = name === undefined ? [uri] : [uri, name];
  if (block && keys.some((k) => block.includes(k))) return false;
  return !allow || allow.length === 0 || keys.some((k) => allow.includes(k));
}

export function promptAllowed(s: EffectiveServer, name: string): boolean {
  const e = s.server.entry;
  return passes(name, e.allow_prompts, e.block_prompts);
}

/** `tool_approvals[raw or method]`, else `approval`, else never (§9). */
export function requirement(s: EffectiveServer, raw: string): boolean {
  return (s.server.entry.tool_approvals?.[raw] ?? s.approval) === "always";
}

// §6.2 "sanitised of control characters": CR/LF/TAB too (folded to one space), and terminal
// sequences whole, so no remains of one reach a model or a table.
const cleanText = (s: unknown) =>
  typeof s === "string" ? clampChars(flattenLine(stripAnsi(s.slice(0, 4 * DESCRIPTION_MAX))), DESCRIPTION_MAX) : "";

const UTILITY_PARAMS: Record<UtilityMethod, JsonSchemaObject> = {
  "resources/list": { type: "object", properties: { cursor: { type: "string" } } },
  "resources/read": { type: "object", properties: { uri: { type: "string" } }, required: ["uri"] },
  "prompts/list": { type: "object", properties: { cursor: { type: "string" } } },
  "prompts/get": {
    type: "object",
    properties: { name: { type: "string" }, arguments: { type: "object", additionalProperties: { type: "string" } } },
    required: ["name"],
  },
};

const UTILITY_TEXT: Record<UtilityMethod, string> = {
  "resources/list": "List the resources this MCP server offers (one page; pass the returned cursor for the next).",
  "resources/read": "Read one resource of this MCP server by its URI.",
  "prompts/list": "List the prompts this MCP server offers (one page; pass the returned cursor for the next).",
  "prompts/get": "Get one prompt of this MCP server by name, with its string arguments.",
};

function schemaOf(v: unknown): JsonSchemaObject {
  if (!isObj(v) || v.type !== "object") return EMPTY_SCHEMA;
  const properties = v.properties === undefined ? {} : v.properties;
  if (!isObj(properties)) return EMPTY_SCHEMA;
  return { ...(v as Record<string, unknown>), type: "object", properties } as JsonSchemaObject;
}

/** The listings of one connection, filtered and published under the server's names. */
export async function discover(conn: ListingConnection, s: EffectiveServer): Promise<Inventory> {
  const caps = conn.capabilities;
  const empty = { items: [] as unknown[], truncated: false };
  // Listings of a server run side by side: one slow kind does not delay the others.
  const [tools, resources, prompts] = await Promise.all([
    caps.tools ? conn.list("tools") : empty,
    caps.resources ? conn.list("resources") : empty,
    caps.prompts ? conn.list("prompts") : empty,
  ]);
  return publish(s, caps, tools, resources, prompts);
}

type Listing = { items: unknown[]; truncated: boolean };

/** Builds the inventory from listings already fetched (list_changed re-lists one kind). */
export function publish(
  s: EffectiveServer,
  caps: ListingConnection["capabilities"],
  tools: Listing,
  resources: Listing,
  prompts: Listing,
): Inventory {
  const identity = serverIdentity(s.name, s.type, s.server.entry);
  const part = serverSlug(s.named, s.name, s.server.entry);
  const out: PublishedTool[] = [];
  const byRaw = new Map<string, PublishedTool>();
  for (const item of tools.items) {
    if (!isObj(item) || typeof item.name !== "string" || item.name === "") continue;
    const raw = item.name;
    // A server listing the same raw name twice keeps the first (§7.3).
    if (byRaw.has(raw) || !toolAllowed(s, raw)) continue;
    const t: PublishedTool = {
      name: toolName(part, identity, raw),
      label: `MCP ${cleanText(raw)}`,
      description: cleanText(item.description),
      parameters: schemaOf(item.inputSchema),
      server: s.name,
      raw,
      utility: null,
      requiresApproval: requirement(s, raw),
    };
    byRaw.set(raw, t);
    out.push(t);
  }
  for (const u of UTILITIES) {
    if (!caps[u.kind]) continue;
    out.push({
      name: utilityName(part, identity, u.method),
      label: `MCP ${u.method}`,
      description: UTILITY_TEXT[u.method],
      parameters: UTILITY_PARAMS[u.method],
      server: s.name,
      raw: u.method,
      utility: u.method,
      requiresApproval: requirement(s, u.method),
    });
  }
  const countResources = resources.items.filter(
    (r) =>
      isObj(r) &&
      typeof r.uri === "string" &&
      resourceAllowed(s, r.uri, typeof r.name === "string" ? r.name : undefined),
  ).length;
  const countPrompts = prompts.items.filter(
    (p) => isObj(p) && typeof p.name === "string" && promptAllowed(s, p.name),
  ).length;
  const truncated: ListKind[] = [];
  if (tools.truncated) truncated.push("tools");
  if (resources.truncated) truncated.push("resources");
  if (prompts.truncated) truncated.push("prompts");
  return { tools: out, byRaw, resources: countResources, prompts: countPrompts, truncated };
}
