/**
 * @module mcp/client/api
 * The MCP client surface of one lemon instance (cli.md §7 McpApi: getTools, callTool, status,
 * refresh, test): a host of links per project plus the call path, approvals, the §9 events and
 * the master switch. Loaded on first use only (it reaches the SDK through connect.ts).
 */
import type { LemonContext } from "../../context.ts";
import { withCwd } from "../../context.ts";
import { LemonError, notFound } from "../../errors.ts";
import type { ToolCallContext, ToolDefinition, ToolResult } from "../../skills/tools/result.ts";
import { errorResult } from "../../skills/tools/result.ts";
import { resolveSettings, type McpConfigOptions } from "../settings.ts";
import type { EffectiveServer } from "../effective.ts";
import {
  MCP_DISABLED,
  noLongerAvailable,
  notConnected,
  runCall,
  toolNotFound,
  type CallPolicy,
  type McpCallDetails,
} from "./call.ts";
import { McpHost, type HostOptions } from "./host.ts";
import type { Inventory, PublishedTool } from "./inventory.ts";
import type { McpServerStateEvent, McpToolCallEvent } from "../../skills/usage/events.ts";
import type { Link } from "./link.ts";
import { buildStatus, emptyStatus, type McpStatus } from "./status.ts";

export interface McpClientEvents {
  serverState(e: McpServerStateEvent): void;
  toolCall(e: McpToolCallEvent): void;
}

export interface McpClientOptions
  extends Omit<HostOptions, "onServerState" | "ctx" | "config">,
    Omit<CallPolicy, "maxResultChars"> {
  ctx: LemonContext;
  config: McpConfigOptions;
  maxResultChars?: number;
  events?: Partial<McpClientEvents>;
}

export interface McpClient {
  getTools(opts?: { cwd?: string; refresh?: boolean }): Promise<ToolDefinition[]>;
  callTool(name: string, args: unknown, ctx?: ToolCallContext & { cwd?: string }): Promise<ToolResult<McpCallDetails>>;
  /** `mcp call NAME TOOL`: one server by name, the raw tool name or utility method. */
  callServerTool(
    server: string,
    tool: string,
    args: unknown,
    opts?: ToolCallContext & { cwd?: string; global?: boolean; timeoutMs?: number; approve?: CallPolicy["approve"] },
  ): Promise<ToolResult<McpCallDetails>>;
  status(opts?: { cwd?: string }): Promise<McpStatus>;
  refresh(serverName?: string, opts?: { cwd?: string }): Promise<void>;
  /**
   * Published tools with their server (for `mcp tools`). With `server`, only that server is
   * started and a server that cannot list says why (NOT_FOUND, FORBIDDEN untrusted, …).
   */
  published(opts?: { cwd?: string; server?: string }): Promise<PublishedTool[]>;
  close(): Promise<void>;
}

const ts = (ctx: LemonContext) =>
  ctx
    .now()
    .toISOString()
    .replace(/\.\d{3}Z$/, "Z");

export function createMcpClient(o: McpClientOptions): McpClient {
  const ctx = o.ctx;
  const host = new McpHost({
    ...o,
    onServerState: (server, state, lastError) => o.events?.serverState?.({ ts: ts(ctx), server, state, lastError }),
  });
  const cwdOf = (c?: { cwd?: string }) => withCwd(ctx, c?.cwd).cwd;
  const policy: CallPolicy = {
    ...(o.approve ? { approve: o.approve } : {}),
    ...(o.toolPolicy ? { toolPolicy: o.toolPolicy } : {}),
    maxResultChars: o.maxResultChars ?? 100_000,
  };
  // The master switch is read per call: it wins over every file (mcp.md §1).
  const disabled = async () => (await resolveSettings(ctx, o.config)).disabled;

  async function timed(
    s: EffectiveServer,
    tool: PublishedTool,
    c: ToolCallContext,
    run: () => Promise<ToolResult<McpCallDetails>>,
  ): Promise<ToolResult<McpCallDetails>> {
    const started = performance.now();
    const emit = (result: "ok" | "error", errorCode?: string) =>
      o.events?.toolCall?.({
        ts: ts(ctx),
        server: s.name,
        tool: tool.raw,
        name: tool.name,
        result,
        ...(errorCode !== undefined ? { errorCode } : {}),
        durationMs: Math.round(performance.now() - started),
        ...(c.toolCallId !== undefined ? { toolCallId: c.toolCallId } : {}),
      });
    try {
      const r = await run();
      emit(r.isError ? "error" : "ok", r.isError ? "tool_error" : undefined);
      return r;
    } catch (err) {
      emit("error", LemonError.is(err) ? err.code : "OPERATION_FAILED");
      throw err;
    }
  }

  const client: McpClient = {
    async getTools(opts = {}) {
      if (await disabled()) return [];
      const cwd = cwdOf(opts);
      const view = await host.view(cwd, opts.refresh === true);
      return [...view.names.values()].map(({ tool }) => definition(tool, cwd));
    },
    async published(opts = {}) {
      if (opts.server !== undefined) return [...(await connectedOne(opts.server, opts)).inventory.tools];
      if (await disabled()) return [];
      const view = await host.view(cwdOf(opts));
      return [...view.names.values()].map((n) => n.tool);
    },
    async callTool(name, args, c = {}) {
      if (await disabled()) throw new LemonError("UNAVAILABLE", MCP_DISABLED);
      const view = await host.view(cwdOf(c));
      const hit = view.names.get(name);
      if (hit === undefined) {
        const down = view.down.get(name);
        if (down !== undefined) throw notConnected(down.server.name);
        throw view.retired.has(name) ? noLongerAvailable(name) : toolNotFound(name);
      }
      const { link, tool } = hit;
      return timed(link.server, tool, c, async () => {
        if (link.retired || link.conn === null || link.state !== "connected") throw notConnected(link.server.name);
        return runCall(link, tool, args, c, policy);
      });
    },
    async callServerTool(server, raw, args, c = {}) {
      const { link, inventory } = await connectedOne(server, c);
      const tool = inventory.byRaw.get(raw) ?? inventory.tools.find((t) => t.utility === raw);
      if (tool === undefined) {
        // A remote tool the filters hide is blocked, not missing: say why.
        const { toolAllowed } = await import("./inventory.ts");
        if (!raw.includes("/") && !toolAllowed(link.server, raw))
          throw new LemonError("FORBIDDEN", `tool '${raw}' is blocked by configuration`);
        throw notFound(`MCP tool '${raw}' not found`);
      }
      const p: CallPolicy = c.approve ? { ...policy, approve: c.approve } : policy;
      return timed(link.server, tool, c, () => runCall(link, tool, args, c, p, c.timeoutMs));
    },
    async status(opts = {}) {
      if (await disabled()) return emptyStatus(true, host.cacheTtlMs);
      const view = await host.view(cwdOf(opts));
      return buildStatus(view, host.cacheTtlMs, o.sampling !== undefined, await host.authStates(view));
    },
    async refresh(serverName, opts = {}) {
      if (await disabled()) return;
      await host.refresh(cwdOf(opts), serverName);
    },
    close: () => host.close(),
  };

  /**
   * One server by name, connected with only it started (cli.md §3.6b, §3.7 `tools NAME`): the
   * project's other servers stay as they are. Says why when it cannot be used.
   */
  async function connectedOne(
    server: string,
    c: { cwd?: string; global?: boolean },
  ): Promise<{ link: Link; inventory: Inventory }> {
    if (await disabled()) throw new LemonError("UNAVAILABLE", MCP_DISABLED);
    const view = await host.view(cwdOf(c), false, c.global === true ? "global" : "project", server);
    const slot = host.slot(view, server);
    if (slot === undefined) throw notFound(`MCP server '${server}' not found`);
    if (slot.gate === "untrusted") {
      const { untrustedMessage } = await import("../trust.ts");
      throw new LemonError("FORBIDDEN", untrustedMessage(server));
    }
    if (slot.gate === "needs_auth") throw new LemonError("UNAUTHORIZED", "authorization required");
    const link = slot.link;
    // A server whose OAuth flow could not run (or failed) says so, not just "not connected".
    if (link !== null && link.conn === null && link.lastError?.startsWith("authorization "))
      throw new LemonError("UNAUTHORIZED", link.lastError, { hint: `run 'lemon mcp login ${server}'` });
    const inventory = link?.inventory ?? null;
    if (slot.gate === "disabled" || link === null || link.conn === null || inventory === null)
      throw notConnected(server);
    return { link, inventory };
  }

  function definition(tool: PublishedTool, cwd: string): ToolDefinition {
    return {
      name: tool.name,
      label: tool.label,
      description: tool.description,
      parameters: tool.parameters,
      source: "mcp",
      requiresApproval: tool.requiresApproval,
      // A tool never rejects (mcp.md §12): failures come back as results with isError.
      execute: async (args, c) => {
        try {
          return await client.callTool(tool.name, args, { ...c, cwd });
        } catch (err) {
          const e = LemonError.is(err) ? err : new LemonError("OPERATION_FAILED", "MCP tool call failed");
          return errorResult(e.message, { server: tool.server, tool: tool.raw, error: e.code });
        }
      },
    };
  }
  return client;
}
