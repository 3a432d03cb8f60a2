/**
 * @module mcp/client/session
 * `mcp.openSession(servers)` (cli.md §7, mcp.md §9): servers the embedder hands over for one
 * session. They are validated like configured entries, never written anywhere (credentials stay
 * in memory), need no project trust (the embedder supplied them) and default to
 * `approval: always`. Their tools are published and called exactly as configured servers' are.
 */
import type { LemonContext } from "../../context.ts";
import { invalidParams } from "../../errors.ts";
import type { ToolCallContext, ToolDefinition, ToolResult } from "../../skills/tools/result.ts";
import type { EffectiveServer, EffectiveSet } from "../effective.ts";
import { unnamedSlug } from "../names.ts";
import { validateEntry } from "../validate.ts";
import { createMcpClient, type McpClientOptions } from "./api.ts";

export interface McpSession {
  getTools(): Promise<ToolDefinition[]>;
  callTool(name: string, args: unknown, ctx?: ToolCallContext): Promise<ToolResult>;
  close(): Promise<void>;
}

/** The session's entries as an effective set; the first problem of any entry is INVALID_PARAMS. */
export function sessionSet(entries: unknown[]): EffectiveSet {
  if (!Array.isArray(entries)) throw invalidParams("openSession expects an array of server entries");
  const slugs = new Map<string, number>();
  const names = new Set<string>();
  const servers: EffectiveServer[] = entries.map((raw, index) => {
    const v = validateEntry(raw);
    if (!v.ok) throw invalidParams(`servers[${index}]: ${v.message}`);
    let name = v.entry.name;
    const named = name !== undefined;
    if (name === undefined) {
      const slug = unnamedSlug(v.entry);
      const n = (slugs.get(slug) ?? 0) + 1;
      slugs.set(slug, n);
      name = `${slug}#${n}`;
    }
    if (names.has(name)) throw invalidParams(`servers[${index}]: duplicate server name '${name}'`);
    names.add(name);
    // Session-owned servers ask before every call unless the entry says otherwise (mcp.md §9).
    const entry = { ...v.entry, approval: v.entry.approval ?? "always" };
    return {
      name,
      named,
      source: "session",
      type: v.transport,
      enabled: true,
      disabled_by: null,
      approval: entry.approval,
      shadowed: [],
      warnings: [],
      server: {
        name: v.entry.name,
        source: "session",
        index,
        entry,
        transport: v.transport,
        vars: "lemon",
        imported: false,
      },
    };
  });
  const none: EffectiveSet["global"] = {
    file: "",
    label: "lemon:global",
    exists: false,
    invalid: null,
    doc: null,
    servers: [],
    diagnostics: [],
  };
  return {
    scope: "project",
    disabled: false,
    enabled: true,
    servers,
    diagnostics: [],
    project: null,
    global: none,
  };
}

export function openSession(
  ctx: LemonContext,
  entries: unknown[],
  opts: Omit<McpClientOptions, "ctx" | "trusted" | "servers">,
): McpSession {
  const set = sessionSet(entries);
  const client = createMcpClient({ ...opts, ctx, trusted: async () => true, servers: async () => set });
  return {
    getTools: () => client.getTools(),
    callTool: (name, args, c) => client.callTool(name, args, c),
    close: () => client.close(),
  };
}
