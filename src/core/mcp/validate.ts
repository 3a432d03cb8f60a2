/**
 * @module mcp/validate
 * Normalisation (kebab-case aliases, `disabled`, inferred transport) and the validation of
 * mcp.md §3.4. The messages are exact and shared by discovery, the CLI and `mcp.validate`; they
 * name keys, never configured values.
 */
import { isValidServerName, NAME_MESSAGE } from "./names.ts";
import type { McpServerConfig, Transport } from "./types.ts";

export const INVALID = "invalid MCP server config";
const MAX_TIMEOUT = 300_000;

const LIST_KEYS = [
  "args",
  "env_vars",
  "allow_tools",
  "block_tools",
  "allow_resources",
  "block_resources",
  "allow_prompts",
  "block_prompts",
] as const;
const INT_KEYS = ["timeout_ms", "tool_timeout_ms", "ready_timeout_ms"] as const;

export type Validation = { ok: true; entry: McpServerConfig; transport: Transport } | { ok: false; message: string };

type Obj = Record<string, unknown>;
/** A plain JSON object (not null, not an array). */
export const isObject = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/** Every field of mcp.md §3.1; anything else on an entry is an extension field, kept as written. */
export const KNOWN_FIELDS: ReadonlySet<string> = new Set([
  "name", "type", "enabled", "disabled", "command", "args", "env", "env_vars", "cwd", "url", "headers",
  "timeout_ms", "tool_timeout_ms", "ready_timeout_ms", "allow_tools", "block_tools", "allow_resources",
  "block_resources", "allow_prompts", "block_prompts", "approval", "tool_approvals", "sampling", "oauth",
  "persist_oauth_tokens", "oauth_token_secret",
]);

/**
 * `ready-timeout-ms` → `ready_timeout_ms` for known keys (`known` null: every key); a canonical
 * key present in the input wins over its alias.
 */
function snakeKeys(o: Obj, known: ReadonlySet<string> | null): Obj {
  const out: Obj = {};
  const alias = (k: string) => {
    const snake = k.replace(/-/g, "_");
    return k.includes("-") && (known === null || known.has(snake)) ? snake : null;
  };
  for (const [k, v] of Object.entries(o)) if (alias(k) === null) out[k] = v;
  for (const [k, v] of Object.entries(o)) {
    const snake = alias(k);
    if (snake !== null && !(snake in out)) out[snake] = v;
  }
  return out;
}

/** Resolves aliases without judging values; non-objects come back unchanged. */
export function normalizeEntry(raw: unknown): unknown {
  if (!isObject(raw)) return raw;
  const e = snakeKeys(raw, KNOWN_FIELDS);
  if (isObject(e.oauth)) e.oauth = snakeKeys(e.oauth, null);
  if (isObject(e.sampling)) e.sampling = snakeKeys(e.sampling, null);
  if (e.disabled === true && e.enabled === undefined) e.enabled = false;
  if (e.disabled !== undefined) delete e.disabled;
  return e;
}

export function inferTransport(e: { type?: unknown; command?: unknown; url?: unknown }): Transport | null {
  if (e.type === undefined) return e.url !== undefined && e.command === undefined ? "http" : "stdio";
  return e.type === "stdio" || e.type === "http" || e.type === "sse" ? e.type : null;
}

const isStringList = (v: unknown) => Array.isArray(v) && v.every((x) => typeof x === "string");
const isStringMap = (v: unknown) => isObject(v) && Object.values(v).every((x) => typeof x === "string");
const nonEmpty = (v: unknown) => typeof v === "string" && v.trim() !== "";
const TOKEN_SECRET_RE = /^[A-Za-z0-9._-]+$/;
/** RFC 9110 `token`: what a header name may be (anything else splits or smuggles a header). */
const HEADER_NAME_RE = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
export const ENV_NAME_RE = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** CR and LF end a header line; NUL ends a C string, so neither may reach a request or a child env. */
const UNSAFE_VALUE_RE = /[\r\n\0]/;

/** Names and values of `env`, `env_vars` and `headers` (cli.md §3.1); the shapes are checked before. */
function checkNamesAndValues(e: Obj): string | null {
  if (isObject(e.env)) {
    for (const [k, v] of Object.entries(e.env)) {
      if (!ENV_NAME_RE.test(k)) return "env names must match ^[A-Za-z_][A-Za-z0-9_]*$";
      if (UNSAFE_VALUE_RE.test(v as string)) return "env values must not contain CR, LF or NUL";
    }
  }
  if (Array.isArray(e.env_vars) && !e.env_vars.every((n) => ENV_NAME_RE.test(n as string)))
    return "env_vars names must match ^[A-Za-z_][A-Za-z0-9_]*$";
  if (isObject(e.headers)) {
    for (const [k, v] of Object.entries(e.headers)) {
      if (!HEADER_NAME_RE.test(k)) return "header names must be RFC 9110 tokens";
      if (UNSAFE_VALUE_RE.test(v as string)) return "header values must not contain CR, LF or NUL";
    }
  }
  return null;
}

/** http/https with a host; placeholders are checked at connect time, after expansion. */
export function isHttpUrl(v: unknown): boolean {
  if (typeof v !== "string" || v.trim() === "") return false;
  if (v.includes("${") || v.includes("{env:")) return /^(\$\{[^}]*\}|https?:\/\/)/i.test(v.trim());
  try {
    const u = new URL(v);
    return (u.protocol === "http:" || u.protocol === "https:") && u.hostname !== "";
  } catch {
    return false;
  }
}

function isLoopbackHttp(v: unknown): boolean {
  if (typeof v !== "string") return false;
  try {
    const u = new URL(v);
    return u.protocol === "http:" && ["127.0.0.1", "localhost", "[::1]"].includes(u.hostname);
  } catch {
    return false;
  }
}

function checkOauth(o: unknown): string | null {
  if (!isObject(o)) return INVALID;
  if (o.client_id !== undefined && !nonEmpty(o.client_id)) return "oauth.client_id must be a non-empty string";
  let flow = o.flow;
  if (flow !== undefined && flow !== "client_credentials" && flow !== "authorization_code_pkce" && flow !== "pkce")
    return "oauth.flow must be client_credentials or authorization_code_pkce";
  const hasSecret = o.client_secret !== undefined || o.client_secret_env !== undefined;
  if (o.client_secret !== undefined && !nonEmpty(o.client_secret)) return "oauth.client_secret must be a non-empty string";
  if (o.client_secret_env !== undefined && !nonEmpty(o.client_secret_env)) return "oauth.client_secret must be a non-empty string";
  flow ??= hasSecret ? "client_credentials" : "authorization_code_pkce";
  if (flow === "client_credentials") {
    if (!hasSecret) return "oauth.client_secret must be a non-empty string";
    if (!nonEmpty(o.client_id)) return "oauth.client_id must be a non-empty string";
  }
  if (
    o.token_auth_method !== undefined &&
    o.token_auth_method !== "client_secret_post" &&
    o.token_auth_method !== "client_secret_basic"
  )
    return "oauth.token_auth_method must be client_secret_post or client_secret_basic";
  if (o.redirect_uri !== undefined && !isLoopbackHttp(o.redirect_uri)) return "oauth.redirect_uri must be a loopback http URL";
  if (o.scope !== undefined && typeof o.scope !== "string") return INVALID;
  if (o.scopes !== undefined && !isStringList(o.scopes)) return "oauth.scopes must be a list of strings";
  return null;
}

function checkSampling(s: unknown): string | null {
  if (!isObject(s)) return INVALID;
  if (s.mode !== undefined && s.mode !== "model" && s.mode !== "reviewed_model" && s.mode !== "deny")
    return "sampling.mode must be model, reviewed_model, or deny";
  if (s.max_tokens !== undefined && !(Number.isInteger(s.max_tokens) && (s.max_tokens as number) > 0))
    return "sampling.max_tokens must be a positive integer";
  if (s.allowed_models !== undefined && !isStringList(s.allowed_models)) return "sampling.allowed_models must be a list of strings";
  if (s.require_approval !== undefined && typeof s.require_approval !== "boolean") return INVALID;
  return null;
}

/** The first problem of a normalised entry, or null. `requireName` for CLI-managed entries. */
function firstProblem(e: Obj, transport: Transport | null, requireName: boolean): string | null {
  if (e.name !== undefined || requireName) if (!isValidServerName(e.name)) return NAME_MESSAGE;
  if (transport === null) return "type must be stdio, http, or sse";
  if (e.command !== undefined && e.url !== undefined) return "command and url are mutually exclusive";
  if (e.cwd !== undefined && typeof e.cwd !== "string") return INVALID;
  if (transport === "stdio") {
    if (!nonEmpty(e.command)) return "stdio command cannot be empty";
  } else if (!isHttpUrl(e.url)) return "invalid HTTP URL";
  for (const k of LIST_KEYS) if (e[k] !== undefined && !isStringList(e[k])) return `${k} must be a list of strings`;
  for (const k of ["env", "headers"] as const) if (e[k] !== undefined && !isStringMap(e[k])) return `${k} must be an object of strings`;
  if (transport !== "stdio" && e.env !== undefined) return "env is only valid for stdio servers";
  if (transport === "stdio" && e.headers !== undefined) return "headers is only valid for http and sse servers";
  const unsafe = checkNamesAndValues(e);
  if (unsafe !== null) return unsafe;
  for (const k of INT_KEYS) {
    const v = e[k];
    if (v === undefined) continue;
    if (!(typeof v === "number" && Number.isInteger(v) && v > 0)) return `${k} must be a positive integer`;
    if (v > MAX_TIMEOUT) return `${k} must not exceed 300000`;
  }
  if (e.enabled !== undefined && typeof e.enabled !== "boolean") return INVALID;
  if (e.approval !== undefined && e.approval !== "always" && e.approval !== "never") return "approval must be always or never";
  if (e.tool_approvals !== undefined) {
    if (!isObject(e.tool_approvals)) return "tool_approvals values must be always or never";
    for (const v of Object.values(e.tool_approvals)) if (v !== "always" && v !== "never") return "tool_approvals values must be always or never";
  }
  if (e.sampling !== undefined) {
    const p = checkSampling(e.sampling);
    if (p) return p;
  }
  if (e.oauth !== undefined) {
    if (transport === "stdio") return "oauth is only valid for http and sse servers";
    const p = checkOauth(e.oauth);
    if (p) return p;
    if (isObject(e.headers) && Object.keys(e.headers).some((h) => h.toLowerCase() === "authorization"))
      return "headers.Authorization conflicts with oauth";
  }
  if (e.persist_oauth_tokens !== undefined && typeof e.persist_oauth_tokens !== "boolean") return "persist_oauth_tokens must be a boolean";
  if (e.oauth_token_secret !== undefined && !(typeof e.oauth_token_secret === "string" && TOKEN_SECRET_RE.test(e.oauth_token_secret)))
    return "oauth_token_secret must be a non-empty string of A-Z, a-z, 0-9, '.', '_', '-'";
  return null;
}

/** Normalises and validates one entry. */
export function validateEntry(raw: unknown, opts: { requireName?: boolean } = {}): Validation {
  const n = normalizeEntry(raw);
  if (!isObject(n)) return { ok: false, message: INVALID };
  const transport = inferTransport(n);
  const problem = firstProblem(n, transport, opts.requireName ?? false);
  if (problem !== null || transport === null) return { ok: false, message: problem ?? INVALID };
  return { ok: true, entry: n as McpServerConfig, transport };
}

/** `servers[<i>]` or `servers[<i>] '<name>'` (a name is shown only when it is itself valid). */
export function locator(index: number, raw: unknown, prefix = "servers"): string {
  const name = isObject(raw) ? raw.name : undefined;
  return isValidServerName(name) ? `${prefix}[${index}] '${name}'` : `${prefix}[${index}]`;
}

export type ValidateResult =
  | { ok: true; servers: McpServerConfig[] }
  | { ok: false; errors: { index: number; name?: string; message: string }[] };

/** `mcp.validate(entries)` (cli.md §7): every entry, every first problem. */
export function validateEntries(entries: unknown[]): ValidateResult {
  const servers: McpServerConfig[] = [];
  const errors: { index: number; name?: string; message: string }[] = [];
  const seen = new Set<string>();
  entries.forEach((raw, index) => {
    const v = validateEntry(raw);
    const name = isObject(raw) && isValidServerName(raw.name) ? raw.name : undefined;
    if (!v.ok) {
      errors.push({ index, ...(name !== undefined ? { name } : {}), message: v.message });
      return;
    }
    if (name !== undefined) {
      if (seen.has(name)) {
        errors.push({ index, name, message: `duplicate server name '${name}'` });
        return;
      }
      seen.add(name);
    }
    servers.push({ ...v.entry, type: v.transport });
  });
  return errors.length > 0 ? { ok: false, errors } : { ok: true, servers };
}
