/**
 * A scripted ServerConnection for the host's own layers (ladder, breaker, debounce, retirement);
 * the transports themselves are tested against real servers.
 */
import type { CloseReason, ServerConnection } from "../../../../src/core/mcp/client/connect.ts";
import { LemonError } from "../../../../src/core/errors.ts";

export interface FakeServer {
  tools: { name: string; description?: string; inputSchema?: unknown }[];
  resources?: { uri: string; name?: string }[];
  prompts?: { name: string }[];
  /** Connect attempts so far; `failConnect(n)` makes attempt n fail. */
  connects: number;
  failConnect: (attempt: number) => boolean;
  calls: { method: string; params: unknown }[];
  answer?: (method: string, params: Record<string, unknown> | undefined) => unknown;
  live: FakeConnection[];
}

export function fakeServer(tools: string[], more: Partial<FakeServer> = {}): FakeServer {
  return {
    tools: tools.map((name) => ({
      name,
      description: `does ${name}`,
      inputSchema: { type: "object", properties: {} },
    })),
    connects: 0,
    failConnect: () => false,
    calls: [],
    live: [],
    ...more,
  };
}

export class FakeConnection implements ServerConnection {
  readonly serverInfo = { name: "fake", version: "1.0.0" };
  readonly protocolVersion = "2025-11-25";
  readonly capabilities;
  #notify = new Set<(m: string, p: unknown) => void>();
  #close = new Set<(r: CloseReason) => void>();
  closed = false;
  constructor(readonly srv: FakeServer) {
    this.capabilities = { tools: true, resources: srv.resources !== undefined, prompts: srv.prompts !== undefined };
  }
  async request(method: string, params: Record<string, unknown> | undefined): Promise<unknown> {
    if (this.closed) throw new LemonError("OPERATION_FAILED", "MCP server disconnected during the call");
    this.srv.calls.push({ method, params });
    return this.srv.answer?.(method, params) ?? { content: [{ type: "text", text: `ok ${String(params?.name)}` }] };
  }
  async list(kind: "tools" | "resources" | "prompts") {
    const items =
      kind === "tools" ? this.srv.tools : kind === "resources" ? (this.srv.resources ?? []) : (this.srv.prompts ?? []);
    return { items: [...items], truncated: false };
  }
  onNotification(l: (m: string, p: unknown) => void) {
    this.#notify.add(l);
    return () => this.#notify.delete(l);
  }
  onClose(l: (r: CloseReason) => void) {
    this.#close.add(l);
    return () => this.#close.delete(l);
  }
  stderrTail() {
    return "";
  }
  async close() {
    this.closed = true;
  }
  notify(method: string) {
    for (const l of this.#notify) l(method, {});
  }
  crash(reason: CloseReason = "connection closed") {
    this.closed = true;
    for (const l of this.#close) l(reason);
  }
}

/** A connector over named fake servers. */
export function fakeConnector(servers: Record<string, FakeServer>) {
  return async (s: { name: string }) => {
    const srv = servers[s.name];
    if (!srv) throw new LemonError("UNAVAILABLE", "connection failed", { details: { reason: "connection failed" } });
    srv.connects++;
    if (srv.failConnect(srv.connects))
      throw new LemonError("UNAVAILABLE", "connection closed", { details: { reason: "connection closed" } });
    const c = new FakeConnection(srv);
    srv.live.push(c);
    return c;
  };
}

export const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits until `cond` holds (bounded), for timers the host runs itself. */
export async function until(cond: () => boolean, ms = 2000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error("condition not reached");
    await tick(2);
  }
}
