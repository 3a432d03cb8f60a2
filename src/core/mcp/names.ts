/**
 * @module mcp/names
 * Server names (mcp.md §3.3), the slug used for display names of unnamed entries (§7.1), and the
 * few constants the entry schema (schema/mcp-json.ts) shares with code that must not load it.
 */

/** §3.4 "anything else". */
export const INVALID_ENTRY = "invalid MCP server config";
/** The cap of every timeout field (§3.1); imports clamp to it (§4.2), lemon's own files reject more. */
export const MAX_TIMEOUT_MS = 300_000;
/** Environment variable names (cli.md §3.1). */
export const ENV_NAME_PATTERN = "^[A-Za-z_][A-Za-z0-9_]*$";

/** The pattern of §3.3, shared with the entry schema (schema/mcp-json.ts). */
export const NAME_PATTERN = "^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$";
const NAME_RE = new RegExp(NAME_PATTERN);

export const NAME_MESSAGE =
  "name must be 1-64 characters of A-Z, a-z, 0-9, '_', '.', '-' and start with a letter or digit";

export function isValidServerName(name: unknown): name is string {
  return typeof name === "string" && NAME_RE.test(name);
}

/** slug(s) of mcp.md §7.1; `fallback` is used when nothing survives. */
export function slug(s: string, fallback: string): string {
  const out = s
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/_+/g, "_")
    .replace(/^_+|_+$/g, "");
  return out === "" ? fallback : out;
}

/** The slug of an unnamed entry: the command's basename, or the URL's host + path. */
export function unnamedSlug(entry: { command?: unknown; url?: unknown }): string {
  if (typeof entry.command === "string") {
    const base = entry.command.split(/[\\/]/).pop() ?? "";
    return slug(base.replace(/\.(exe|cmd|bat)$/i, ""), "server");
  }
  if (typeof entry.url === "string") {
    try {
      const u = new URL(entry.url);
      return slug(u.host + u.pathname, "server");
    } catch {
      return slug(entry.url, "server");
    }
  }
  return "server";
}
