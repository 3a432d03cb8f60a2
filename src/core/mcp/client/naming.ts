/**
 * @module mcp/client/naming
 * Published MCP tool names (mcp.md §7): `mcp_<server>_<tool>_<16hex>`. The readable part is
 * slugged and clamped to 64 characters; the hash is over the identity of the tool and of the
 * server's configuration *before* `${…}` expansion and without any env/header value, so names are
 * stable across runs and projects, never shaped by a credential, and distinct whenever the
 * configurations (or raw names) differ even though their slugs are equal.
 */
import { sha256Hex } from "../../hash.ts";
import { slug, unnamedSlug } from "../names.ts";
import type { McpServerConfig, Transport } from "../types.ts";

/** The four utilities of §6.2: the method (hashed) and the readable tool part. */
export const UTILITIES = [
  { method: "resources/list", part: "resources_list", kind: "resources" },
  { method: "resources/read", part: "resource_read", kind: "resources" },
  { method: "prompts/list", part: "prompts_list", kind: "prompts" },
  { method: "prompts/get", part: "prompt_get", kind: "prompts" },
] as const;
export type UtilityMethod = (typeof UTILITIES)[number]["method"];

/**
 * Canonical JSON (RFC 8785 as install.md §12.4 pins it): what `JSON.stringify` prints once every
 * object's keys are sorted by UTF-16 code unit. lemon's identities hold strings, arrays, null and
 * integers only.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v === undefined ? null : v)).join(",")}]`;
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj)
    .filter((k) => obj[k] !== undefined)
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(obj[k])}`).join(",")}}`;
}

/** The server half of §7.3's identity. */
export interface ServerIdentity {
  name: string;
  transport: Transport;
  command: string | null;
  args: string[] | null;
  cwd: string | null;
  env_names: string[] | null;
  url: string | null;
  header_names: string[] | null;
}

const sortedUnique = (names: string[]): string[] | null => {
  const out = [...new Set(names)].sort();
  return out.length > 0 ? out : null;
};

/**
 * §7.3 from the normalised, unexpanded entry. `name` is the configured name or the display name
 * `<slug>#<n>` of an unnamed entry; fields the transport does not use are null.
 */
export function serverIdentity(name: string, transport: Transport, entry: McpServerConfig): ServerIdentity {
  if (transport === "stdio") {
    return {
      name,
      transport,
      command: typeof entry.command === "string" ? entry.command : null,
      args: Array.isArray(entry.args) ? [...entry.args] : [],
      cwd: typeof entry.cwd === "string" ? entry.cwd : null,
      env_names: sortedUnique([...Object.keys(entry.env ?? {}), ...(entry.env_vars ?? [])]),
      url: null,
      header_names: null,
    };
  }
  return {
    name,
    transport,
    command: null,
    args: null,
    cwd: null,
    env_names: null,
    url: typeof entry.url === "string" ? entry.url : null,
    header_names: sortedUnique(Object.keys(entry.headers ?? {}).map((h) => h.toLowerCase())),
  };
}

/** The 16 lowercase hex of §7.3 for one remote tool (`kind` tool) or utility method. */
export function identityHash(kind: "tool" | "utility", rawName: string, server: ServerIdentity): string {
  return sha256Hex(canonicalJson({ kind, name: rawName, server })).slice(0, 16);
}

/** §7.2: the slugs cut so that `mcp_<s>_<t>_<16hex>` fits 64 characters. */
export function clampParts(s: string, t: string): [string, string] {
  if (s.length + t.length <= 42) return [s, t];
  const tk = Math.min(t.length, Math.max(26, 42 - s.length));
  const sk = 42 - tk;
  const cut = (part: string, n: string) => (part.length > n.length ? n.replace(/_+$/, "") || "x" : n);
  return [cut(s, s.slice(0, sk)), cut(t, t.slice(0, tk))];
}

/** The server slug of §7.1: of the configured name, or of the command basename / URL host+path. */
export function serverSlug(named: boolean, name: string, entry: McpServerConfig): string {
  return named ? slug(name, "server") : unnamedSlug(entry);
}

/** A remote tool's published name. */
export function toolName(serverPart: string, server: ServerIdentity, rawTool: string): string {
  const [s, t] = clampParts(serverPart, slug(rawTool, "tool"));
  return `mcp_${s}_${t}_${identityHash("tool", rawTool, server)}`;
}

/** A utility's published name (`mcp_<server>_resource_read_<16hex>`, …). */
export function utilityName(serverPart: string, server: ServerIdentity, method: UtilityMethod): string {
  const part = UTILITIES.find((u) => u.method === method)?.part ?? "tool";
  const [s, t] = clampParts(serverPart, part);
  return `mcp_${s}_${t}_${identityHash("utility", method, server)}`;
}
