/**
 * @module mcp/client/login
 * `mcp login NAME` / `mcp logout NAME` (cli.md §3.6): the OAuth flow of one entry of the selected
 * lemon file, run on request even when a token is stored, and the deletion of its stored tokens
 * (with `registration`, the dynamic client registration too). NAME is the entry of the project
 * file (or the global one with `global`), else an effective server of that scope from another
 * source (imports). An entry is OAuth when it has an `oauth` object or its server answers with an
 * OAuth challenge.
 */
import type { LemonContext } from "../../context.ts";
import { forbidden, invalidRequest, notFound } from "../../errors.ts";
import { effectiveServers, type EffectiveServer } from "../effective.ts";
import { expandEntry } from "../expand.ts";
import type { McpConfigOptions } from "../settings.ts";
import type { McpTrustRequest, TrustMode } from "../trust.ts";
import type { OAuthCallbacks } from "./connect.ts";

export interface LoginOptions {
  global?: boolean;
  oauth?: OAuthCallbacks;
  trustMode?: TrustMode;
  approveTrust?: (r: McpTrustRequest) => Promise<boolean>;
}

export interface LoginResult {
  name: string;
  expires_at: string | null;
  scopes: string[];
}

async function entryOf(ctx: LemonContext, config: McpConfigOptions, name: string, global: boolean) {
  const set = await effectiveServers(ctx, config, global ? "global" : "project");
  const file = global ? set.global.file : (set.project?.file ?? `${ctx.cwd}/.lemon/mcp.json`);
  const label = global ? "lemon:global" : "lemon:project";
  // lemon's own entry first; else a server of another source (an import from Claude Code, …) by name.
  const s = set.servers.find((x) => x.name === name && x.source === label) ?? set.servers.find((x) => x.name === name);
  if (s === undefined) throw notFound(`MCP server '${name}' not found in ${file}`);
  if (s.type === "stdio")
    throw invalidRequest(`MCP server '${name}' is a stdio server; OAuth applies to http and sse servers`);
  return s;
}

/** The entry with its `${…}` placeholders resolved, as a connection would use it. */
function expanded(ctx: LemonContext, s: EffectiveServer) {
  const vars = { env: ctx.env, cwd: ctx.cwd, homeDir: ctx.homeDir };
  return {
    name: s.name,
    type: s.type,
    source: s.source,
    server: { entry: expandEntry(s.server.entry, s.server.vars, vars).entry },
  };
}

/**
 * A project entry's URL is the repository's choice: it is contacted only once trusted (mcp.md §4.4).
 * Logout too: an untrusted repository must not delete stored tokens (issue #14 F2).
 */
async function requireTrust(
  ctx: LemonContext,
  s: EffectiveServer,
  name: string,
  o: Pick<LoginOptions, "trustMode" | "approveTrust">,
): Promise<void> {
  const { ensureTrusted, untrustedMessage } = await import("../trust.ts");
  const trusted = await ensureTrusted(ctx, s, {
    ...(o.trustMode !== undefined ? { mode: o.trustMode } : {}),
    ...(o.approveTrust !== undefined ? { approve: o.approveTrust } : {}),
  });
  if (!trusted) throw forbidden(untrustedMessage(name));
}

export async function loginServer(
  ctx: LemonContext,
  config: McpConfigOptions,
  name: string,
  o: LoginOptions = {},
): Promise<LoginResult> {
  const s = await entryOf(ctx, config, name, o.global === true);
  await requireTrust(ctx, s, name, o);
  const { openAuthSession } = await import("./auth-fetch.ts");
  const session = await openAuthSession(ctx, expanded(ctx, s), o.oauth);
  const r = await session.login();
  return { name, expires_at: r.expires_at, scopes: r.scopes };
}

export async function logoutServer(
  ctx: LemonContext,
  config: McpConfigOptions,
  name: string,
  o: { global?: boolean; registration?: boolean } & Pick<LoginOptions, "trustMode" | "approveTrust"> = {},
): Promise<LogoutResult> {
  const s = await entryOf(ctx, config, name, o.global === true);
  await requireTrust(ctx, s, name, o);
  const { openAuthSession } = await import("./auth-fetch.ts");
  const session = await openAuthSession(ctx, expanded(ctx, s), undefined);
  const r = await session.logout(o.registration === true);
  return { name, deleted: r.tokens || r.registration, tokens: r.tokens, registration: r.registration };
}

/** `deleted`: anything was; `tokens` / `registration`: which (the CLI confirms each). */
export interface LogoutResult {
  name: string;
  deleted: boolean;
  tokens: boolean;
  registration: boolean;
}
