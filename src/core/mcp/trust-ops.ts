/**
 * @module mcp/trust-ops
 * `lemon mcp trust` / `untrust` and `lemon.mcp.trust` / `untrust` (mcp.md §4.4) over the
 * effective set of `C`. What is recorded is exactly what was reviewed: the entries the review was
 * built from are the ones hashed, so a file edited during a prompt is not trusted unseen.
 */
import type { LemonContext } from "../context.ts";
import { invalidParams, notFound } from "../errors.ts";
import { effectiveServers, type EffectiveServer } from "./effective.ts";
import { isValidServerName, NAME_MESSAGE } from "./names.ts";
import type { McpConfigOptions } from "./settings.ts";
import { isProjectServer, recordTrust, removeTrust, trustRequest, trustStates, type McpTrustRequest } from "./trust.ts";

export interface TrustOptions {
  cwd?: string;
  /** Every enabled untrusted project server besides the named ones. */
  all?: boolean;
  /**
   * Shown the untrusted servers about to be trusted (never called when there are none); a
   * result other than `true` records nothing. Absent: the caller vouches (the module's API).
   */
  confirm?: (requests: McpTrustRequest[]) => Promise<boolean>;
}

export interface TrustResult {
  trusted: string[];
  already: string[];
  /** `confirm` said no: nothing was recorded. */
  declined: boolean;
}

/** Unnamed entries are addressed by their display name `<slug>#<n>` (mcp.md §2.1). */
const DISPLAY_NAME = /^[a-z0-9_]+#[1-9][0-9]*$/;

function checkNames(names: readonly string[]): void {
  for (const n of names)
    if (typeof n !== "string" || (!isValidServerName(n) && !DISPLAY_NAME.test(n))) throw invalidParams(NAME_MESSAGE);
}

function selection(servers: EffectiveServer[], names: readonly string[], all: boolean): EffectiveServer[] {
  const picked: EffectiveServer[] = [];
  const seen = new Set<string>();
  for (const n of names) {
    const s = servers.find((x) => x.name === n);
    if (!s) throw notFound(`MCP server '${n}' not found`);
    if (!seen.has(n)) picked.push(s);
    seen.add(n);
  }
  if (all) for (const s of servers) if (isProjectServer(s) && s.enabled && !seen.has(s.name)) picked.push(s);
  return picked;
}

export async function trustServers(
  ctx: LemonContext,
  opts: McpConfigOptions,
  names: readonly string[],
  o: TrustOptions = {},
): Promise<TrustResult> {
  checkNames(names);
  if (names.length === 0 && !o.all) throw invalidParams("name one or more MCP servers, or pass --all");
  const set = await effectiveServers(ctx, opts, "project");
  const picked = selection(set.servers, names, o.all === true);
  const states = await trustStates(ctx, picked);
  const pending = picked.filter((s) => states.get(s.name) === "untrusted");
  const already = picked.filter((s) => states.get(s.name) !== "untrusted").map((s) => s.name);
  if (pending.length === 0) return { trusted: [], already, declined: false };
  if (o.confirm && (await o.confirm(pending.map((s) => trustRequest(ctx, s)))) !== true)
    return { trusted: [], already, declined: true };
  const r = await recordTrust(ctx, pending);
  return { trusted: r.trusted, already: [...already, ...r.already], declined: false };
}

export async function untrustServers(
  ctx: LemonContext,
  names: readonly string[],
  o: { all?: boolean } = {},
): Promise<{ untrusted: string[] }> {
  checkNames(names);
  if (names.length === 0 && !o.all) throw invalidParams("name one or more MCP servers, or pass --all");
  return removeTrust(ctx, o.all ? "all" : names);
}
