/**
 * @module mcp/client/sampling
 * The sampling policy of mcp.md §10: whether a server is offered `sampling/createMessage`, and
 * how one request is answered. A server's request is untrusted input that spends the user's
 * model: the entry's limits are enforced before anything else, an approver of `reviewed_model`
 * sees only the redacted summary, and every refusal is the same JSON-RPC error −1, so a server
 * learns nothing about the policy from the answer. No SDK import: the transport session maps
 * the thrown errors (their `code` becomes the JSON-RPC error code).
 */
import { sha256Hex } from "../../hash.ts";
import type { ApprovalRequest, McpSamplingSummary } from "../../skills/install/approval.ts";
import type { McpServerConfig } from "../types.ts";
import { canonicalJson } from "./naming.ts";

/** One content block of a sampling message (text, image, audio, …; MCP 2025-11-25 shapes). */
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

export type SamplingDelegate = (params: SamplingRequest, summary: SamplingSummary) => Promise<SamplingResult>;

/** What a connection needs to offer sampling: the embedder's delegate and its approver. */
export interface SamplingHost {
  delegate: SamplingDelegate;
  approve?: (request: ApprovalRequest) => Promise<boolean>;
}

export type SamplingMode = "deny" | "model" | "reviewed_model";

export const SAMPLING_DENIED = "sampling request denied";
export const NO_DELEGATE_WARNING = "sampling configured but no delegate";

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
 */
export function samplingMode(entry: Pick<McpServerConfig, "sampling">): SamplingMode | null {
  const s = entry.sampling;
  if (s === undefined) return null;
  if (s.mode === "deny") return "deny";
  if (s.require_approval === true) return "reviewed_model";
  if (s.mode === undefined) return s.require_approval === false ? "model" : "reviewed_model";
  return s.mode;
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

const blocks = (c: SamplingMessage["content"]): SamplingContent[] => (Array.isArray(c) ? c : [c]);

/**
 * The redacted summary: a hash of the canonical params, counts and sizes, never text. Roles in
 * order of first appearance; `text_chars` counts the system prompt too, since it reaches the model.
 */
export function summarize(params: Record<string, unknown>, model: string | null): SamplingSummary {
  const messages = Array.isArray(params.messages) ? (params.messages as SamplingMessage[]) : [];
  const roles: string[] = [];
  const kinds: Record<string, number> = {};
  let chars = typeof params.systemPrompt === "string" ? params.systemPrompt.length : 0;
  for (const m of messages) {
    const role = typeof m?.role === "string" ? m.role : "unknown";
    if (!roles.includes(role)) roles.push(role);
    for (const b of blocks(m?.content ?? [])) {
      const kind = typeof b?.type === "string" ? b.type : "unknown";
      kinds[kind] = (kinds[kind] ?? 0) + 1;
      if (typeof b?.text === "string") chars += b.text.length;
    }
  }
  const max = params.maxTokens;
  return {
    request_hash: sha256Hex(canonicalJson(params)),
    message_count: messages.length,
    roles,
    content_kinds: kinds,
    text_chars: chars,
    max_tokens: typeof max === "number" ? max : null,
    model,
  };
}

const isContent = (v: unknown): v is SamplingContent =>
  typeof v === "object" && v !== null && typeof (v as { type?: unknown }).type === "string";

/**
 * Answers one `sampling/createMessage` of `server` under its entry's policy. Throws a
 * SamplingError: −1 `sampling request denied` for every refusal (mode deny, no delegate,
 * max_tokens exceeded, approval not given), −32603 `sampling failed` when the delegate fails or
 * answers something that is not a message (its error text is the host's, never shown to the server).
 */
export async function answerSampling(
  server: string,
  entry: Pick<McpServerConfig, "sampling">,
  host: SamplingHost | undefined,
  params: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const mode = samplingMode(entry);
  if (host === undefined || mode === null || mode === "deny") throw denied();
  const cfg = entry.sampling ?? {};
  const maxTokens = params.maxTokens;
  if (typeof maxTokens !== "number" || !Number.isFinite(maxTokens)) throw denied();
  if (cfg.max_tokens !== undefined && maxTokens > cfg.max_tokens) throw denied();
  const request = params as unknown as Omit<SamplingRequest, "server" | "model">;
  const model = chooseModel(request, cfg.allowed_models);
  const summary = summarize(params, model);
  if (mode === "reviewed_model") {
    let ok = false;
    try {
      ok = host.approve !== undefined && (await host.approve({ kind: "mcp_sampling", server, summary })) === true;
    } catch {}
    if (!ok) throw denied();
  }
  let result: SamplingResult;
  try {
    result = await host.delegate({ ...request, server, model }, summary);
  } catch {
    throw new SamplingError(-32603, "sampling failed");
  }
  const content = (result as { content?: unknown } | null)?.content;
  const okContent = Array.isArray(content) ? content.length > 0 && content.every(isContent) : isContent(content);
  if (!okContent) throw new SamplingError(-32603, "sampling failed");
  const answered = typeof result.model === "string" && result.model !== "" ? result.model : (model ?? "unknown");
  return {
    role: "assistant",
    content,
    model: answered,
    ...(typeof result.stopReason === "string" ? { stopReason: result.stopReason } : {}),
  };
}
