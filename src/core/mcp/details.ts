/**
 * @module mcp/details
 * `lemon mcp get NAME` (cli.md §3.2): one effective server of any source, as `list --all` shows
 * it, plus what it would run — command and arguments or URL, env and header names — with values
 * that look like credentials masked. Fields are taken before `${…}` expansion, so a placeholder
 * shows as written and no environment value is printed.
 */
import type { LemonContext } from "../context.ts";
import type { Diagnostic } from "../diagnostics.ts";
import { notFound } from "../errors.ts";
import type { Scope } from "../paths.ts";
import { maskSecrets } from "../skills/audit/rules/secrets.ts";
import { redactUrl } from "../text.ts";
import { effectiveServers, serverSummary, type EffectiveServer } from "./effective.ts";
import type { EffectiveView } from "./index.ts";
import type { McpConfigOptions } from "./settings.ts";
import { projectTrust, trustValue, type TrustState } from "./trust.ts";

/** One effective server with its redacted fields (cli.md §3.2 `mcp get`). */
export interface McpServerDetails extends EffectiveView {
  /** The file the entry came from; null for `LEMON_MCP_SERVERS` and module options. */
  file: string | null;
  /** stdio: the program as written; null for http/sse. */
  command: string | null;
  /** stdio: the arguments, credential-looking values masked as `****`; null for http/sse. */
  args: string[] | null;
  /** stdio: the working directory as written (null when absent or not stdio). */
  cwd: string | null;
  /** http/sse: the URL without userinfo, query or fragment; null for stdio. */
  url: string | null;
  /** `env` keys and `env_vars` names, sorted; values are never shown. */
  env_names: string[];
  /** Header names as written, sorted; values are never shown. */
  header_names: string[];
  /**
   * mcp.md §4.4: `"trusted"` for the user's own sources and for a project server whose recorded
   * trust still matches, else `"untrusted"` (`trust_reason` says why and how to trust it).
   */
  trust: "trusted" | "untrusted";
  trust_reason: string | null;
  /** The discovery diagnostics about this server or its file as a whole (a refused `{file:…}`). */
  diagnostics: Diagnostic[];
}

/** Flags whose next argument is a credential (`--api-key VALUE`, `-token VALUE`). */
const SECRET_WORD = "secret|token|passw(?:or)?d|api[_-]?key|apikey|access[_-]?key|private[_-]?key|auth";
const SECRET_FLAG = new RegExp(`^--?[A-Za-z0-9_.-]*(?:${SECRET_WORD})[A-Za-z0-9_-]*$`, "i");

function maskArgs(args: readonly string[]): string[] {
  return args.map((a, i) => (i > 0 && SECRET_FLAG.test(args[i - 1]!) && !a.startsWith("-") ? "****" : maskSecrets(a)));
}

function safeUrl(url: string): string {
  const clean = redactUrl(url);
  if (clean !== "<invalid url>" || !url.includes("${")) return clean;
  // A placeholder keeps the URL from parsing; drop what redactUrl would have dropped.
  return url.replace(/[?#].*$/, "").replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/@]*@/i, "$1");
}

const WARNING_CODES = new Set(["unresolved_variable", "clamped"]);

const sorted = (names: Iterable<string>) => [...new Set(names)].sort();

export function serverDetails(s: EffectiveServer, state: TrustState, diagnostics: Diagnostic[] = []): McpServerDetails {
  const e = s.server.entry;
  const stdio = s.type === "stdio";
  const trust = state === "untrusted" ? "untrusted" : "trusted";
  return {
    ...serverSummary(s, trustValue(state)),
    file: s.server.file ?? null,
    command: stdio ? (e.command ?? null) : null,
    args: stdio ? maskArgs(e.args ?? []) : null,
    cwd: stdio ? (e.cwd ?? null) : null,
    url: !stdio && e.url !== undefined ? safeUrl(e.url) : null,
    env_names: sorted([...Object.keys(e.env ?? {}), ...(e.env_vars ?? [])]),
    header_names: sorted(Object.keys(e.headers ?? {})),
    trust,
    trust_reason: state === "untrusted" ? `not trusted; review it and run 'lemon mcp trust ${s.name}'` : null,
    diagnostics,
  };
}

/** The effective server named `name` (a configured name or an unnamed entry's `<slug>#<n>`). */
export async function getServer(
  ctx: LemonContext,
  opts: McpConfigOptions,
  name: string,
  scope: Scope,
): Promise<McpServerDetails> {
  const set = await effectiveServers(ctx, opts, scope);
  const s = set.servers.find((x) => x.name === name);
  if (!s) throw notFound(`MCP server '${name}' not found`);
  const file = s.server.file;
  // Unresolved variables and clamped timeouts are already the server's `warnings`.
  const own = set.diagnostics.filter(
    (d) =>
      !WARNING_CODES.has(d.code) && (d.key === name || (d.key === undefined && file !== undefined && d.path === file)),
  );
  return serverDetails(s, await projectTrust(ctx, s), own);
}
