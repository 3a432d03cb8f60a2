/**
 * @module mcp/client/sampling
 * The sampling policy of mcp.md §10: whether a server is offered `sampling/createMessage`, and
 * how one request is answered. A server's request is untrusted input that spends the user's
 * model: lemon validates it itself (the SDK's schema errors would echo the policy's shape back),
 * enforces the entry's limits before anything else, shows a `reviewed_model` approver only the
 * redacted summary, and answers every refusal — malformed, over a limit, cancelled, not approved —
 * with the same JSON-RPC error −1. No SDK import: the transport session maps the thrown errors
 * (their `code` becomes the JSON-RPC error code).
 */
import { sha256Hex } from "../../hash.ts";
import type { ApprovalRequest, McpSamplingSummary } from "../../skills/install/approval.ts";
import type { McpServerConfig } from "../types.ts";
import { canonicalJson } from "./naming.ts";

/** One content block of a sampling message (text, image, audio, tool_use, tool_result; MCP 2025-11-25). */
export interface SamplingContent {
  type: string;
  text?: string;
  data?: string;
  mimeType?: string;
  [key: string]: unknown;
}

export interface SamplingMessage {
  role: "user" | "assistant";
  content: SamplingContent | SamplingContent[];
}

/** What the delegate receives: the server's `sampling/createMessage` params plus lemon's choices. */
export interface SamplingRequest {
  /** The configured server that asked. */
  server: string;
  /** The model lemon chose from `allowed_models` (§10), or null when the entry leaves it to the host. */
  model: string | null;
  messages: SamplingMessage[];
  maxTokens: number;
  systemPrompt?: string;
  temperature?: number;
  stopSequences?: string[];
  modelPreferences?: {
    hints?: { name?: string }[];
    costPriority?: number;
    speedPriority?: number;
    intelligencePriority?: number;
  };
  includeContext?: "none" | "thisServer" | "allServers";
  metadata?: Record<string, unknown>;
  _meta?: Record<string, unknown>;
}

/** The redacted summary of mcp.md §10: the only thing an approver sees. */
export type SamplingSummary = McpSamplingSummary;

/** The delegate's answer, returned to the server as the `sampling/createMessage` result. */
export interface SamplingResult {
  role?: "assistant";
  content: SamplingContent | SamplingContent[];
  /** The model that answered; default the chosen model. */
  model?: string;
  stopReason?: string;
}

/** Per-request context: `signal` aborts when the server cancels, disconnects or lemon closes. */
export interface SamplingCallOptions {
  signal: AbortSignal;
}

/** The third argument is optional, so a cli.md §7 `(params, summary)` delegate still fits. */
export type SamplingDelegate = (
  params: SamplingRequest,
  summary: SamplingSummary,
  options?: SamplingCallOptions,
) => Promise<SamplingResult>;

/** What a connection needs to offer sampling: the embedder's delegate and its approver. */
export interface SamplingHost {
  delegate: SamplingDelegate;
  approve?: (request: ApprovalRequest) => Promise<boolean>;
}

export type SamplingMode = "deny" | "model" | "reviewed_model";

export const SAMPLING_DENIED = "sampling request denied";
export const NO_DELEGATE_WARNING = "sampling configured but no delegate";
/** Requests of one connection in flight at once; more are refused, so neither the model nor an approver UI is flooded. */
export const MAX_SAMPLING_IN_FLIGHT = 4;
/** Nesting deeper than any real request; bounds the validator and canonicalJson's recursion. */
export const MAX_SAMPLING_DEPTH = 32;

/** A JSON-RPC error answer; the SDK copies `code`, `message` and `data` into the response. */
export class SamplingError extends Error {
  readonly code: number;
  constructor(code: number, message: string) {
    super(message);
    this.code = code;
  }
}

const denied = () => new SamplingError(-1, SAMPLING_DENIED);

/**
 * The entry's effective mode, or null when it has no `sampling` object. `require_approval: true`
 * makes `model` reviewed; a missing `mode` is reviewed unless `require_approval` is false (the
 * spec is silent; asking is the safe reading of "configured without a mode").
 *
 * `source` is the entry's source label. A project-scope entry (`…:project`, a cloned repository's
 * file) never gets `model`: §4.4's trust hash covers what the entry runs, not its `sampling`
 * object, so a `git pull` could switch a trusted server to unattended spending of the user's model.
 * For those sources `model` is `reviewed_model` — every request goes through approve. The user's
 * own files, lemon config and `LEMON_MCP_SERVERS` keep `model`.
 */
export function samplingMode(entry: Pick<McpServerConfig, "sampling">, source?: string): SamplingMode | null {
  const s = entry.sampling;
  if (s === undefined) return null;
  if (s.mode === "deny") return "deny";
  let mode: SamplingMode;
  if (s.require_approval === true) mode = "reviewed_model";
  else if (s.mode === undefined) mode = s.require_approval === false ? "model" : "reviewed_model";
  else mode = s.mode;
  return mode === "model" && source?.endsWith(":project") === true ? "reviewed_model" : mode;
}

/** §10: the capability is advertised only for model/reviewed_model with a delegate. */
export function offersSampling(entry: Pick<McpServerConfig, "sampling">, host: SamplingHost | undefined): boolean {
  const mode = samplingMode(entry);
  return host !== undefined && (mode === "model" || mode === "reviewed_model");
}

/** The status warning of a server whose sampling cannot be offered for want of a delegate. */
export function samplingWarning(entry: Pick<McpServerConfig, "sampling">, hasDelegate: boolean): string | null {
  const mode = samplingMode(entry);
  return !hasDelegate && (mode === "model" || mode === "reviewed_model") ? NO_DELEGATE_WARNING : null;
}

/** With `allowed_models`: the first hint named in the list, else the first allowed model. */
export function chooseModel(params: Pick<SamplingRequest, "modelPreferences">, allowed?: string[]): string | null {
  if (allowed === undefined || allowed.length === 0) return null;
  const hints = Array.isArray(params.modelPreferences?.hints) ? params.modelPreferences.hints : [];
  for (const h of hints) if (typeof h?.name === "string" && allowed.includes(h.name)) return h.name;
  return allowed[0] ?? null;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const isStr = (v: unknown): v is string => typeof v === "string";
const optional = (v: unknown, ok: (x: unknown) => boolean) => v === undefined || ok(v);
const isNum = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v);
const isUnit = (v: unknown) => isNum(v) && v >= 0 && v <= 1;

/** True when `v` nests no deeper than `left` levels; stops early, so it cannot overflow the stack. */
function shallow(v: unknown, left: number): boolean {
  if (typeof v !== "object" || v === null) return true;
  if (left <= 0) return false;
  for (const x of Array.isArray(v) ? v : Object.values(v)) if (!shallow(x, left - 1)) return false;
  return true;
}

const MEDIA = new Set(["image", "audio"]);
const RESULT_KINDS = new Set(["text", "image", "audio", "resource_link", "resource"]);

/** A block a tool_result may carry (the CallToolResult content shapes). */
function resultBlockOk(b: unknown): boolean {
  if (!isObj(b) || !isStr(b.type) || !RESULT_KINDS.has(b.type)) return false;
  if (b.type === "text") return isStr(b.text);
  if (MEDIA.has(b.type)) return isStr(b.data) && isStr(b.mimeType);
  if (b.type === "resource_link") return isStr(b.uri) && isStr(b.name);
  return isObj(b.resource) && isStr(b.resource.uri);
}

function blockOk(b: unknown): boolean {
  if (!isObj(b) || !isStr(b.type)) return false;
  switch (b.type) {
    case "text":
      return isStr(b.text);
    case "image":
    case "audio":
      return isStr(b.data) && isStr(b.mimeType);
    case "tool_use":
      return isStr(b.id) && isStr(b.name) && isObj(b.input);
    case "tool_result":
      return isStr(b.toolUseId) && Array.isArray(b.content) && b.content.every(resultBlockOk);
    default:
      return false;
  }
}

const blocks = (c: unknown): unknown[] => (Array.isArray(c) ? c : [c]);

function messageOk(m: unknown): boolean {
  if (!isObj(m) || (m.role !== "user" && m.role !== "assistant")) return false;
  const list = blocks(m.content);
  return list.length > 0 && list.every(blockOk);
}

const KEYS = [
  "messages",
  "maxTokens",
  "systemPrompt",
  "temperature",
  "stopSequences",
  "modelPreferences",
  "includeContext",
  "metadata",
  "_meta",
] as const;

/**
 * The request as the delegate will get it, or null when it is malformed. Only the known fields
 * are kept, so the hash and the summary describe exactly what the delegate sees. `tools` /
 * `toolChoice` are refused rather than stripped: lemon advertises `sampling: {}` without the
 * `tools` sub-capability, and a conversation built around tools the model cannot call means
 * something else once they are gone.
 */
export function parseSamplingParams(params: unknown): Omit<SamplingRequest, "server" | "model"> | null {
  if (!isObj(params) || !shallow(params, MAX_SAMPLING_DEPTH)) return null;
  if (params.tools !== undefined || params.toolChoice !== undefined) return null;
  const p = params;
  const max = p.maxTokens;
  if (typeof max !== "number" || !Number.isSafeInteger(max) || max <= 0) return null;
  if (!Array.isArray(p.messages) || !p.messages.every(messageOk)) return null;
  const prefs = p.modelPreferences;
  const prefsOk =
    prefs === undefined ||
    (isObj(prefs) &&
      optional(prefs.hints, (h) => Array.isArray(h) && h.every((x) => isObj(x) && optional(x.name, isStr))) &&
      optional(prefs.costPriority, isUnit) &&
      optional(prefs.speedPriority, isUnit) &&
      optional(prefs.intelligencePriority, isUnit));
  const ok =
    prefsOk &&
    optional(p.systemPrompt, isStr) &&
    optional(p.temperature, isNum) &&
    optional(p.stopSequences, (s) => Array.isArray(s) && s.every(isStr)) &&
    optional(p.includeContext, (v) => v === "none" || v === "thisServer" || v === "allServers") &&
    optional(p.metadata, isObj) &&
    optional(p._meta, isObj);
  if (!ok) return null;
  const out: Obj = {};
  for (const k of KEYS) if (p[k] !== undefined) out[k] = p[k];
  return out as unknown as Omit<SamplingRequest, "server" | "model">;
}

const jsonChars = (v: unknown) => (v === undefined ? 0 : (JSON.stringify(v)?.length ?? 0));

/** Counts one block and what it nests: tool_result content, tool_use input, embedded resources. */
function countBlock(b: unknown, kinds: Record<string, number>): number {
  if (!isObj(b)) return 0;
  const kind = isStr(b.type) ? b.type : "unknown";
  kinds[kind] = (kinds[kind] ?? 0) + 1;
  let chars = isStr(b.text) ? b.text.length : 0;
  if (kind === "tool_use") chars += (isStr(b.name) ? b.name.length : 0) + jsonChars(b.input);
  if (kind === "tool_result") {
    for (const c of blocks(b.content ?? [])) chars += countBlock(c, kinds);
    chars += jsonChars(b.structuredContent);
  }
  if (kind === "resource" && isObj(b.resource) && isStr(b.resource.text)) chars += b.resource.text.length;
  return chars;
}

/**
 * The redacted summary: a hash of the canonical params, counts and sizes, never text.
 * `text_chars` counts every text the delegate gets — system prompt, nested tool results,
 * tool_use input (as JSON), stop sequences, hint names, metadata and `_meta` (as JSON) — so an
 * approver cannot be shown 0 for a request that carries a book. Image/audio payloads are not text:
 * the spec's summary has no byte field, so they appear as `content_kinds` counts only.
 */
export function summarize(params: Record<string, unknown>, model: string | null): SamplingSummary {
  const safe = shallow(params, MAX_SAMPLING_DEPTH);
  const messages = Array.isArray(params.messages) ? params.messages : [];
  const roles: string[] = [];
  const kinds: Record<string, number> = {};
  let chars = isStr(params.systemPrompt) ? params.systemPrompt.length : 0;
  for (const m of messages) {
    const role = isObj(m) && isStr(m.role) ? m.role : "unknown";
    if (!roles.includes(role)) roles.push(role);
    for (const b of blocks(isObj(m) ? (m.content ?? []) : [])) chars += safe ? countBlock(b, kinds) : 0;
  }
  if (Array.isArray(params.stopSequences)) for (const s of params.stopSequences) chars += isStr(s) ? s.length : 0;
  const prefs = params.modelPreferences;
  const hints = isObj(prefs) && Array.isArray(prefs.hints) ? prefs.hints : [];
  for (const h of hints) chars += isObj(h) && isStr(h.name) ? h.name.length : 0;
  if (safe) chars += jsonChars(params.metadata) + jsonChars(params._meta);
  const max = params.maxTokens;
  return {
    request_hash: sha256Hex(safe ? canonicalJson(params) : "deep"),
    message_count: messages.length,
    roles,
    content_kinds: kinds,
    text_chars: chars,
    max_tokens: typeof max === "number" ? max : null,
    model,
  };
}

/** The delegate's content must be a message the server's SDK will accept, else it is a failure. */
const resultContentOk = (v: unknown): boolean =>
  isObj(v) &&
  isStr(v.type) &&
  (v.type === "text" ? isStr(v.text) : MEDIA.has(v.type) ? isStr(v.data) && isStr(v.mimeType) : false);

export interface AnswerOptions {
  /** The entry's source label (project scope never gets `model`, see samplingMode). */
  source?: string;
  /** Aborted when the server cancels the request, the connection closes or lemon is closing. */
  signal?: AbortSignal;
}

/**
 * Answers one `sampling/createMessage` of `server` under its entry's policy. Throws a
 * SamplingError: −1 `sampling request denied` for every refusal (mode deny, no delegate, a
 * malformed request, maxTokens not a positive integer or over max_tokens, no allowed model,
 * approval not given, the request cancelled or its connection gone), −32603 `sampling failed`
 * when the delegate fails or answers something that is not a message (its error text is the
 * host's, never shown to the server).
 */
export async function answerSampling(
  server: string,
  entry: Pick<McpServerConfig, "sampling">,
  host: SamplingHost | undefined,
  params: unknown,
  o: AnswerOptions = {},
): Promise<Record<string, unknown>> {
  const signal = o.signal ?? new AbortController().signal;
  const mode = samplingMode(entry, o.source);
  if (host === undefined || mode === null || mode === "deny" || signal.aborted) throw denied();
  const cfg = entry.sampling ?? {};
  const request = parseSamplingParams(params);
  if (request === null) throw denied();
  if (cfg.max_tokens !== undefined && request.maxTokens > cfg.max_tokens) throw denied();
  // An allow list with nothing on it allows nothing: a spend control, unlike §3.1's filters.
  if (cfg.allowed_models !== undefined && cfg.allowed_models.length === 0) throw denied();
  const model = chooseModel(request, cfg.allowed_models);
  const summary = summarize(request as unknown as Record<string, unknown>, model);
  if (mode === "reviewed_model") {
    let ok = false;
    try {
      ok = host.approve !== undefined && (await host.approve({ kind: "mcp_sampling", server, summary })) === true;
    } catch {}
    if (!ok || signal.aborted) throw denied();
  }
  let result: SamplingResult;
  try {
    result = await host.delegate({ ...request, server, model }, summary, { signal });
  } catch {
    if (signal.aborted) throw denied();
    throw new SamplingError(-32603, "sampling failed");
  }
  if (signal.aborted) throw denied();
  const content = (result as { content?: unknown } | null)?.content;
  const okContent = Array.isArray(content)
    ? content.length > 0 && content.every(resultContentOk)
    : resultContentOk(content);
  if (!okContent) throw new SamplingError(-32603, "sampling failed");
  const answered = typeof result.model === "string" && result.model !== "" ? result.model : (model ?? "unknown");
  return {
    role: "assistant",
    content,
    model: answered,
    ...(typeof result.stopReason === "string" ? { stopReason: result.stopReason } : {}),
  };
}

/**
 * One connection's sampling answerer: `answerSampling` under the in-flight cap. The count is taken
 * before the first await, so a burst is refused at once instead of queueing approvals.
 */
export function createSampler(
  server: string,
  entry: Pick<McpServerConfig, "sampling">,
  host: SamplingHost | undefined,
  source?: string,
): (params: unknown, signal: AbortSignal) => Promise<Record<string, unknown>> {
  let inFlight = 0;
  return async (params, signal) => {
    if (inFlight >= MAX_SAMPLING_IN_FLIGHT) throw denied();
    inFlight++;
    try {
      return await answerSampling(server, entry, host, params, { ...(source !== undefined ? { source } : {}), signal });
    } finally {
      inFlight--;
    }
  };
}
