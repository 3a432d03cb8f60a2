/**
 * @module mcp/serve/server
 * One MCP server session of `lemon mcp serve` (cli.md §3.8) on the SDK's low-level `Server`: the
 * JSON Schemas are lemon's own (tool-schemas.gen.ts, generated from the TypeBox definitions, and
 * the instance's `agentTools`), so no second schema language describes the same parameters. Three tools at most — never one per
 * skill —, one resource per served skill plus a template for its files, and two prompts. Every
 * skill a handler touches is first checked against the served catalog.
 */
import { sep } from "node:path";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  type CallToolResult,
} from "@modelcontextprotocol/sdk/types.js";
import type { Lemon } from "../../index.ts";
import type { SkillEntry } from "../../skills/entry.ts";
import { VERSION } from "../../build-info.ts";
import { LemonError } from "../../errors.ts";
import { renderListing } from "../../skills/prompt.ts";
import type { ToolCallContext, ToolResult } from "../../skills/tools/result.ts";
import { FIND_SKILLS_SCHEMA } from "../../skills/tools/tool-schemas.gen.ts";
import type { ServedCatalog } from "./catalog.ts";
import {
  bodyOf,
  echoed,
  field,
  FIND_SKILLS_DESCRIPTION,
  GUIDANCE,
  mimeOf,
  notFoundText,
  servedText,
  servedValue,
  shownTrust,
  skillUri,
  untrusted,
  UNTRUSTED_NOTE,
} from "./text.ts";

/** JSON-RPC code of an unknown resource (MCP specification, resources). */
const RESOURCE_NOT_FOUND = -32002;
/** Resources per `resources/list` page: 11,000 skills never become one multi-megabyte answer. */
const PAGE = 500;
const DEFAULT_MAX = 5;
/** findRelevant's cap (skills.md §7.1 rule 3). */
const MAX_RESULTS = 50;

export interface SessionDeps {
  lemon: Lemon;
  catalog: ServedCatalog;
  cwd?: string;
  allowWrites: boolean;
  globalOnly: boolean;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** A lemon tool result as an MCP one: its text blocks (the only kind lemon's tools make) and `details` sanitised. */
function toCallResult(r: ToolResult<unknown>): CallToolResult {
  const content: CallToolResult["content"] = [];
  for (const b of r.content) if (b.type === "text") content.push({ type: "text", text: servedText(b.text) });
  const structured = servedValue(r.details);
  return { content, isError: r.isError, ...(isRecord(structured) ? { structuredContent: structured } : {}) };
}

const toolError = (text: string, details: Record<string, unknown>): CallToolResult => ({
  content: [{ type: "text", text }],
  isError: true,
  structuredContent: details,
});

/**
 * The tools of a session: find_skills, then the instance's own `read_skill` and (with writes)
 * `skill_manage` definitions, so their schemas and descriptions are the agent tools' very ones.
 */
function tools(d: SessionDeps) {
  const own = d.lemon.agentTools(d.cwd !== undefined ? { cwd: d.cwd } : {});
  const list = [
    {
      name: "find_skills",
      title: "Find skills",
      description: FIND_SKILLS_DESCRIPTION,
      inputSchema: FIND_SKILLS_SCHEMA,
    },
  ];
  for (const t of own) {
    if (t.name === "skill_manage" && !d.allowWrites) continue;
    const hint = t.name === "read_skill" ? " Call find_skills first when you do not know the key." : "";
    list.push({ name: t.name, title: t.label, description: `${t.description}${hint}`, inputSchema: t.parameters });
  }
  return list;
}

/** find_skills' parameters: its schema has `additionalProperties: false`, and the server holds to it. */
const FIND_PARAMS = new Set(["query", "max_results"]);

async function findSkills(d: SessionDeps, args: Record<string, unknown>): Promise<CallToolResult> {
  const { query, max_results } = args;
  const unknown = Object.keys(args).find((k) => !FIND_PARAMS.has(k));
  if (unknown !== undefined)
    return toolError(`Unknown parameter '${echoed(unknown)}'; find_skills takes 'query' and 'max_results'.`, {
      error: "invalid_params",
    });
  if (typeof query !== "string" || query.trim() === "")
    return toolError("Parameter 'query' must be a non-empty string.", { error: "invalid_params" });
  let max = DEFAULT_MAX;
  if (max_results !== undefined) {
    if (typeof max_results !== "number" || !Number.isInteger(max_results) || max_results < 1)
      return toolError("Parameter 'max_results' must be a positive integer.", { error: "invalid_params" });
    // As findRelevant itself (skills.md §7.1 rule 3): more than the cap is the cap, not an error.
    max = Math.min(max_results, MAX_RESULTS);
  }
  // findRelevant bounds the request itself (its first and last 4,096 characters, 256 distinct words).
  // Global only: ask for the most there are, since project results rank first and would crowd them out.
  const found = await d.lemon.skills.findRelevant(query, {
    maxResults: d.globalOnly ? MAX_RESULTS : max,
    ...(d.cwd !== undefined ? { cwd: d.cwd } : {}),
  });
  // Each result shows the trust read_skill would show for it, in the text and the structured list alike.
  const results = await Promise.all(
    found
      .filter(d.catalog.serves)
      .slice(0, max)
      .map(async (e) => ({ ...e, trust_level: await shownTrust(e) })),
  );
  const skills = await Promise.all(
    results.map(async (e) => ({
      key: e.key,
      name: field(e.name, 128),
      description: field(e.description, 1024),
      state: e.activation_state,
      ...((await untrusted(e)) ? { untrusted: true } : {}),
    })),
  );
  const text = results.length === 0 ? "No skill fits this request; load none." : d.lemon.renderRelevant(results);
  return { content: [{ type: "text", text: servedText(text) }], structuredContent: { skills } };
}

async function notServed(d: SessionDeps, key: string): Promise<CallToolResult> {
  const { text, keys } = notFoundText(key, await d.catalog.entries());
  return toolError(
    servedText(text),
    servedValue({ error: "not_found", key, suggestions: keys }) as Record<string, unknown>,
  );
}

/**
 * The key still names the same served skill after its content was read: one more one-key lookup
 * (cheap, it re-reads only a changed SKILL.md), so an edit between the lookup that admitted the key
 * and the read (`hide: true`, a disable, a new shadow) is never served under the earlier verdict.
 */
async function stillServed(d: SessionDeps, entry: SkillEntry): Promise<boolean> {
  const again = await d.catalog.entry(entry.key);
  return again !== null && again.real_path === entry.real_path;
}

/** A call context the tool refuses before it looks anything up (its `read_skill` result is an error). */
const REFUSED_CALL = null as unknown as ToolCallContext;

/**
 * The `skill.load` a refusal owes the operator (skills.md §8: every call emits one; a model
 * probing for hidden or disabled keys is what an audit log is for). The agent tool emits it: as
 * `not_found` for a key nothing has, and, for a key the server will not serve, from a call it
 * refuses before reading anything (`error`). Its answers are dropped: their suggestions list
 * keys this server does not serve.
 */
async function recordRefusal(d: SessionDeps, args: Record<string, unknown>, key: string): Promise<void> {
  const cwd = d.cwd !== undefined ? { cwd: d.cwd } : {};
  const exists = (await d.lemon.skills.get(key, cwd)) !== null;
  await (exists ? d.lemon.readSkill(args, REFUSED_CALL) : d.lemon.readSkill(args, cwd));
}

async function readSkill(d: SessionDeps, args: Record<string, unknown>): Promise<CallToolResult> {
  const key = args.key;
  // A blank key is the tool's own parameter error; any other key must be served to be read.
  if (typeof key !== "string" || key.trim() === "")
    return toCallResult(await d.lemon.readSkill(args, d.cwd !== undefined ? { cwd: d.cwd } : {}));
  const entry = await d.catalog.entry(key);
  if (entry === null) {
    await recordRefusal(d, args, key);
    return notServed(d, key);
  }
  const r = await d.lemon.readSkill(args, d.cwd !== undefined ? { cwd: d.cwd } : {});
  // The tool decides note and content from its own lookup; one that found another skill than the
  // served one (a shadow created in between) answers as for a key not served.
  if (r.details.path !== undefined && r.details.path !== entry.path) return notServed(d, key);
  if (!r.isError && !(await stillServed(d, entry))) return notServed(d, key);
  return toCallResult(r);
}

/** A LemonError of resolveSkillUri as the JSON-RPC error a client expects of `resources/read`. */
function resourceError(err: unknown): McpError {
  if (err instanceof McpError) return err;
  if (err instanceof LemonError)
    return new McpError(err.code === "NOT_FOUND" ? RESOURCE_NOT_FOUND : ErrorCode.InvalidParams, err.message);
  return new McpError(ErrorCode.InternalError, "could not read the resource");
}

/** The served skill a `skill://` URI names, or a resource error; the URI itself goes to resolveSkillUri. */
async function uriEntry(d: SessionDeps, uri: string) {
  if (!uri.startsWith("skill://")) throw new McpError(ErrorCode.InvalidParams, `unknown resource '${echoed(uri)}'`);
  const rest = uri.slice("skill://".length);
  if (rest.includes("?") || rest.includes("#"))
    throw new McpError(
      ErrorCode.InvalidParams,
      `invalid skill URI '${echoed(uri)}': query strings and fragments are not allowed`,
    );
  const raw = rest.split("/", 1)[0] ?? "";
  let key: string;
  try {
    key = decodeURIComponent(raw);
  } catch {
    throw new McpError(ErrorCode.InvalidParams, `invalid skill URI '${echoed(uri)}': bad percent-encoding`);
  }
  const entry = await d.catalog.entry(key);
  if (entry === null) throw new McpError(RESOURCE_NOT_FOUND, `Skill not found: ${echoed(key)}`);
  return entry;
}

/**
 * A served skill's file: the entry of one fresh lookup, the file resolveSkillUri read, and the
 * note decided from that entry. A file outside the entry's directory means the URI resolved to
 * another skill (a shadow created in between): not served, so not found.
 */
async function servedRead(d: SessionDeps, uri: string) {
  try {
    const entry = await uriEntry(d, uri);
    const r = await d.lemon.resolveSkillUri(uri, d.cwd !== undefined ? { cwd: d.cwd } : {});
    if (r.path !== entry.real_path && !r.path.startsWith(`${entry.real_path}${sep}`))
      throw new McpError(RESOURCE_NOT_FOUND, `Skill not found: ${echoed(entry.key)}`);
    if (!(await stillServed(d, entry))) throw new McpError(RESOURCE_NOT_FOUND, `Skill not found: ${echoed(entry.key)}`);
    return { entry, r, note: await untrusted(entry) };
  } catch (err) {
    throw resourceError(err);
  }
}

async function readResource(d: SessionDeps, uri: string) {
  const { r, note } = await servedRead(d, uri);
  const text = servedText(r.text);
  return { contents: [{ uri, mimeType: mimeOf(r.path), text: note ? `${UNTRUSTED_NOTE}\n\n${text}` : text }] };
}

async function useSkill(d: SessionDeps, key: unknown) {
  if (typeof key !== "string" || key === "")
    throw new McpError(ErrorCode.InvalidParams, "Argument 'key' must be a non-empty string.");
  const { entry, r, note } = await servedRead(d, skillUri(key));
  const text = r.text;
  const head = [`Use the skill '${field(entry.key, 128)}' (${field(entry.name, 128)}) for this task.`];
  if (note) head.push(UNTRUSTED_NOTE);
  return {
    description: field(entry.description, 1024),
    messages: [
      {
        role: "user" as const,
        content: { type: "text" as const, text: servedText(`${head.join("\n")}\n\n${bodyOf(text)}`) },
      },
    ],
  };
}

/** A server for one client session; `notify` is wired by the transport owner. */
export function sessionServer(d: SessionDeps): Server {
  const server = new Server(
    { name: "lemon", title: "lemon skills", version: VERSION },
    {
      capabilities: { tools: {}, resources: { listChanged: true }, prompts: {} },
      instructions: GUIDANCE,
    },
  );
  const cwd = d.cwd !== undefined ? { cwd: d.cwd } : {};
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: tools(d) }));
  server.setRequestHandler(CallToolRequestSchema, async (req) => {
    const args = isRecord(req.params.arguments) ? req.params.arguments : {};
    switch (req.params.name) {
      case "find_skills":
        return findSkills(d, args);
      case "read_skill":
        return readSkill(d, args);
      case "skill_manage":
        if (d.allowWrites) {
          const r = await d.lemon.skillManage(args, cwd);
          // The writer reads its own write at once, before the watcher has said anything.
          d.catalog.invalidate();
          return toCallResult(r);
        }
        break;
    }
    throw new McpError(ErrorCode.InvalidParams, `unknown tool '${echoed(req.params.name)}'`);
  });
  server.setRequestHandler(ListResourcesRequestSchema, async (req) => {
    const all = await d.catalog.entries();
    const start = req.params?.cursor !== undefined ? Number.parseInt(req.params.cursor, 10) : 0;
    if (!Number.isInteger(start) || start < 0) throw new McpError(ErrorCode.InvalidParams, "invalid cursor");
    const page = all.slice(start, start + PAGE);
    return {
      resources: page.map((e) => ({
        uri: skillUri(e.key),
        name: e.key,
        title: field(e.name, 128),
        description: field(e.description, 1024) || "(no description)",
        mimeType: "text/markdown",
      })),
      ...(start + PAGE < all.length ? { nextCursor: String(start + PAGE) } : {}),
    };
  });
  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
    resourceTemplates: [
      {
        uriTemplate: "skill://{key}/{path}",
        name: "skill-file",
        title: "A skill's supporting file",
        description: "A file inside a skill's directory, e.g. skill://<key>/references/api.md (relative, no '..').",
      },
    ],
  }));
  server.setRequestHandler(ReadResourceRequestSchema, async (req) => readResource(d, req.params.uri));
  server.setRequestHandler(ListPromptsRequestSchema, async () => ({
    prompts: [
      { name: "skills_listing", title: "Skills listing", description: "The catalog of skills for a system prompt." },
      {
        name: "use_skill",
        title: "Use a skill",
        description: "A skill's instructions as a user message.",
        arguments: [{ name: "key", description: "The skill key (see find_skills or the listing).", required: true }],
      },
    ],
  }));
  server.setRequestHandler(GetPromptRequestSchema, async (req) => {
    if (req.params.name === "use_skill") return useSkill(d, req.params.arguments?.key);
    if (req.params.name !== "skills_listing")
      throw new McpError(ErrorCode.InvalidParams, `unknown prompt '${echoed(req.params.name)}'`);
    const listing = renderListing(await d.catalog.entries());
    return {
      description: "The catalog of skills",
      messages: [
        {
          role: "user" as const,
          content: { type: "text" as const, text: listing === "" ? "No skills are currently available." : listing },
        },
      ],
    };
  });
  return server;
}
