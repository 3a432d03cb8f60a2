/**
 * @module mcp/validate
 * Normalisation (kebab-case aliases, `disabled`, inferred transport) and the validation of
 * mcp.md §3.4, shared by discovery, the CLI and `mcp.validate`. What each field may hold, and its
 * message, is the entry schema (schema/mcp-json.ts, checked by the code generated from it in
 * schema/mcp-json.checks.js); this module adds only the rules between fields. Messages name
 * keys, never configured values.
 */
import { invalidParams } from "../errors.ts";
import { firstFailure } from "../schema/first-failure.ts";
import { isMcpServerEntry, McpServerEntryData as ENTRY } from "../schema/mcp-json.checks.js";
import { ENV_NAME_PATTERN, INVALID_ENTRY, isValidServerName, NAME_MESSAGE } from "./names.ts";
import type { McpServerConfig, Transport } from "./types.ts";

export const INVALID = INVALID_ENTRY;
export const ENV_NAME_RE = new RegExp(ENV_NAME_PATTERN);

/** The fields of §3.1 in the order lemon writes them; anything else is an extension field. */
export const ENTRY_FIELDS: readonly string[] = Object.keys(ENTRY.properties ?? {});
/** Every field of §3.1 plus the `disabled` alias; anything else on an entry is kept as written. */
export const KNOWN_FIELDS: ReadonlySet<string> = new Set([...ENTRY_FIELDS, "disabled"]);

export type Validation = { ok: true; entry: McpServerConfig; transport: Transport } | { ok: false; message: string };

type Obj = Record<string, unknown>;
/** A plain JSON object (not null, not an array). */
export const isObject = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

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
    // The listener binds 127.0.0.1 only (mcp.md §11.4): a browser sent to [::1] would never reach it.
    return u.protocol === "http:" && ["127.0.0.1", "localhost"].includes(u.hostname);
  } catch {
    return false;
  }
}

/** What a flow needs (§11.1: client credentials without a flow when a secret is configured). */
function oauthProblem(o: Obj): string | null {
  const hasSecret = o.client_secret !== undefined || o.client_secret_env !== undefined;
  const flow = o.flow ?? (hasSecret ? "client_credentials" : "authorization_code_pkce");
  if (flow === "client_credentials") {
    if (!hasSecret) return "oauth.client_secret must be a non-empty string";
    if (o.client_id === undefined) return "oauth.client_id must be a non-empty string";
  }
  if (o.redirect_uri !== undefined && !isLoopbackHttp(o.redirect_uri))
    return "oauth.redirect_uri must be a loopback http URL";
  return null;
}

/** The rules between fields of an entry whose fields are each valid. */
function crossFieldProblem(e: Obj, transport: Transport): string | null {
  if (e.command !== undefined && e.url !== undefined) return "command and url are mutually exclusive";
  if (transport === "stdio") {
    if (e.command === undefined) return "stdio command cannot be empty";
  } else if (!isHttpUrl(e.url)) return "invalid HTTP URL";
  if (transport !== "stdio" && e.env !== undefined) return "env is only valid for stdio servers";
  if (transport === "stdio" && e.headers !== undefined) return "headers is only valid for http and sse servers";
  if (e.oauth !== undefined) {
    if (transport === "stdio") return "oauth is only valid for http and sse servers";
    const p = oauthProblem(e.oauth as Obj);
    if (p !== null) return p;
    if (isObject(e.headers) && Object.keys(e.headers).some((h) => h.toLowerCase() === "authorization"))
      return "headers.Authorization conflicts with oauth";
  }
  return null;
}

/** Normalises and validates one entry. `requireName` for CLI-managed entries. */
export function validateEntry(raw: unknown, opts: { requireName?: boolean } = {}): Validation {
  const n = normalizeEntry(raw);
  if (!isObject(n)) return { ok: false, message: INVALID };
  if (opts.requireName && n.name === undefined) return { ok: false, message: NAME_MESSAGE };
  const problem = isMcpServerEntry(n) ? null : firstFailure(ENTRY, n, INVALID);
  if (problem !== null) return { ok: false, message: problem };
  // The schema admits only the three transports, so inference cannot fail here.
  const transport = inferTransport(n) ?? "stdio";
  const cross = crossFieldProblem(n, transport);
  if (cross !== null) return { ok: false, message: cross };
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

/** `mcp.validate(entries)` (cli.md §7): every entry, every first problem. Not an array: INVALID_PARAMS. */
export function validateEntries(entries: unknown[]): ValidateResult {
  if (!Array.isArray(entries)) throw invalidParams("mcp.validate expects an array of server entries");
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
