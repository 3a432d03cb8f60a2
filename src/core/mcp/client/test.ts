/**
 * @module mcp/client/test
 * `mcp test` (cli.md §3.5): one isolated connection, outside the host (it neither trips nor
 * resets any breaker), the handshake and the listings, then close. No remote tool is called.
 * NAME is an entry of the selected lemon file only; a project entry must be trusted first.
 */
import type { LemonContext } from "../../context.ts";
import { forbidden, invalidParams, LemonError, notFound } from "../../errors.ts";
import { effectiveServers, type EffectiveServer } from "../effective.ts";
import { expandEntry } from "../expand.ts";
import type { McpConfigOptions } from "../settings.ts";
import type { McpTrustRequest, TrustMode } from "../trust.ts";
import type { McpServerConfig, Transport } from "../types.ts";
import type { LinkEnv } from "./link.ts";
import { publish } from "./inventory.ts";
import type { ConnectableServer, OAuthCallbacks, ServerConnection } from "./connect.ts";
import { TextRing } from "./transport/ring.ts";

export interface McpTestReport {
  ok: boolean;
  name: string;
  source: string;
  transport: Transport;
  server_info: { name: string; version: string } | null;
  protocol_version: string | null;
  capabilities: { tools: boolean; resources: boolean; prompts: boolean } | null;
  counts: { tools: number; resources: number; prompts: number };
  /** With `listTools`: the published names of the `counts.tools` remote tools, in server order. */
  tools?: string[];
  /**
   * With `listTools`: the published utility names (mcp.md §6.2). Apart from `tools` because they
   * are lemon's, over the resources and prompts, so `tools` has exactly `counts.tools` names.
   */
  utilities?: string[];
  timing_ms: { connect: number; initialize: number; list: number; total: number };
  /** `hint`: what an OAuth refusal needs (the approval it could not ask for), when it has one. */
  error: { code: string; message: string; hint?: string } | null;
  /** Last bytes of server stderr, for `--verbose` human output only (never in JSON). */
  stderr?: string;
}

export interface TestOptions {
  global?: boolean;
  listTools?: boolean;
  /** `--url URL`: an endpoint tested directly, with `transport` (default http). */
  url?: string;
  transport?: "http" | "sse";
  verbose?: boolean;
  trustMode?: TrustMode;
  /** Asked (on a terminal) when the project entry is not trusted yet; a yes records the trust. */
  approveTrust?: (r: McpTrustRequest) => Promise<boolean>;
  connect?: LinkEnv["connect"];
  /** OAuth (cli.md §3.5: the flow may run after approval; `--no-browser`, `--headless-auth`). */
  oauth?: OAuthCallbacks;
}

/** The server NAME of the selected lemon file, or the `--url` endpoint as a server. */
async function target(ctx: LemonContext, config: McpConfigOptions, name: string, o: TestOptions) {
  if (o.url !== undefined) {
    let ok = false;
    try {
      const u = new URL(o.url);
      ok = (u.protocol === "http:" || u.protocol === "https:") && u.host !== "";
    } catch {}
    if (!ok) throw invalidParams("invalid HTTP URL");
    const type: Transport = o.transport ?? "http";
    const entry: McpServerConfig = { name: name || "url", type, url: o.url };
    return { server: null, name: name || "url", source: "url", type, entry };
  }
  const scope = o.global ? "global" : "project";
  const set = await effectiveServers(ctx, config, scope);
  const file = o.global ? set.global.file : (set.project?.file ?? `${ctx.cwd}/.lemon/mcp.json`);
  const label = o.global ? "lemon:global" : "lemon:project";
  const s = set.servers.find((x) => x.name === name && x.source === label);
  if (s === undefined) throw notFound(`MCP server '${name}' not found in ${file}`);
  return { server: s, name, source: s.source, type: s.type, entry: s.server.entry };
}

async function defaultConnect(...args: Parameters<LinkEnv["connect"]>): Promise<ServerConnection> {
  const { connectServer } = await import("./connect.ts");
  return connectServer(...args);
}

export async function testServer(
  ctx: LemonContext,
  config: McpConfigOptions,
  name: string,
  o: TestOptions = {},
): Promise<McpTestReport> {
  // The total covers lemon's own work too: reading the configuration and the trust check.
  const started = performance.now();
  const t = await target(ctx, config, name, o);
  if (t.server !== null) {
    const { ensureTrusted, untrustedMessage } = await import("../trust.ts");
    const trusted = await ensureTrusted(ctx, t.server, {
      ...(o.trustMode !== undefined ? { mode: o.trustMode } : {}),
      ...(o.approveTrust !== undefined ? { approve: o.approveTrust } : {}),
    });
    if (!trusted) throw forbidden(untrustedMessage(name));
  }
  const vars = { env: ctx.env, cwd: ctx.cwd, homeDir: ctx.homeDir };
  const entry = t.server ? expandEntry(t.entry, t.server.server.vars, vars).entry : t.entry;
  const report: McpTestReport = {
    ok: false,
    name: t.name,
    source: t.source,
    transport: t.type,
    server_info: null,
    protocol_version: null,
    capabilities: null,
    counts: { tools: 0, resources: 0, prompts: 0 },
    timing_ms: { connect: 0, initialize: 0, list: 0, total: 0 },
    error: null,
  };
  const ms = (from: number) => Math.round(performance.now() - from);
  const connectStart = performance.now();
  let conn: ServerConnection | null = null;
  // The test's own ring: a handshake that hangs or a server that exits leaves no connection, and
  // its stderr is then the only clue.
  const ring = o.verbose ? new TextRing() : undefined;
  // The source travels with the server: OAuth relaxes its rules only for the user's own files.
  const connectable: ConnectableServer = { name: t.name, type: t.type, server: { entry }, source: t.source };
  try {
    conn = await (o.connect ?? defaultConnect)(connectable, {
      ctx,
      cwd: ctx.cwd,
      ...(o.oauth !== undefined ? { oauth: o.oauth } : {}),
      ...(ring !== undefined ? { ring } : {}),
      ...(entry.ready_timeout_ms !== undefined ? { timeoutMs: entry.ready_timeout_ms } : {}),
      ...(entry.timeout_ms !== undefined ? { requestTimeoutMs: entry.timeout_ms } : {}),
    });
    // connectServer performs connect and initialize as one step; its time is reported as connect.
    report.timing_ms.connect = ms(connectStart);
    report.server_info = conn.serverInfo;
    report.protocol_version = conn.protocolVersion;
    report.capabilities = { ...conn.capabilities };
    const listStart = performance.now();
    const empty = { items: [] as unknown[], truncated: false };
    const c = conn;
    const [tools, resources, prompts] = await Promise.all(
      (["tools", "resources", "prompts"] as const).map((k) => (c.capabilities[k] ? c.list(k) : Promise.resolve(empty))),
    );
    report.timing_ms.list = ms(listStart);
    const fake: EffectiveServer = t.server ?? {
      name: t.name,
      named: true,
      source: t.source,
      type: t.type,
      enabled: true,
      disabled_by: null,
      approval: "never",
      shadowed: [],
      warnings: [],
      server: {
        name: t.name,
        source: "url",
        index: 0,
        entry: t.entry,
        transport: t.type,
        vars: "none",
        imported: false,
      },
    };
    const inv = publish(fake, conn.capabilities, tools ?? empty, resources ?? empty, prompts ?? empty);
    report.counts = { tools: inv.byRaw.size, resources: inv.resources, prompts: inv.prompts };
    if (o.listTools) {
      report.tools = inv.tools.filter((x) => x.utility === null).map((x) => x.name);
      report.utilities = inv.tools.filter((x) => x.utility !== null).map((x) => x.name);
    }
    report.ok = true;
  } catch (err) {
    const e = LemonError.is(err) ? err : new LemonError("OPERATION_FAILED", "connection failed");
    // OAuth's own messages (and a refused approval) say more than their §13 reason.
    const own = e.code === "UNAUTHORIZED" || e.code === "FORBIDDEN";
    const reason = !own && typeof e.details?.reason === "string" ? e.details.reason : e.message;
    report.error = { code: e.code, message: reason, ...(own && e.hint !== undefined ? { hint: e.hint } : {}) };
  } finally {
    report.timing_ms.total = ms(started);
    if (conn !== null) await conn.close().catch(() => {});
    // After the close: the worker posts stderr in batches and flushes the rest when the child
    // exits, so a tail read before it would miss what a fast server just wrote.
    if (ring !== undefined) report.stderr = conn !== null ? conn.stderrTail(4096) : ring.tail(4096);
  }
  return report;
}
