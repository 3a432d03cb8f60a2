/**
 * @module mcp/serve/pending
 * The requests a session has received and not answered yet, read off its transport: stdio drains
 * them before it exits on end of input (issue #17 F1), HTTP never evicts a session that has any
 * (F3). Wrapped after `server.connect`, which installs the handler this one calls on.
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";

export interface Pending {
  /** Requests received and not yet answered. */
  size(): number;
  /** Resolves once nothing is pending, or after `ms` (whichever comes first). */
  settled(ms: number): Promise<void>;
}

type Id = string | number;

const requestId = (m: unknown): Id | null => {
  if (typeof m !== "object" || m === null) return null;
  const r = m as { id?: unknown; method?: unknown };
  return typeof r.method === "string" && (typeof r.id === "string" || typeof r.id === "number") ? r.id : null;
};

const answerId = (m: unknown): Id | null => {
  if (typeof m !== "object" || m === null) return null;
  const r = m as { id?: unknown; method?: unknown };
  if (typeof r.method === "string" || !("result" in r || "error" in r)) return null;
  return typeof r.id === "string" || typeof r.id === "number" ? r.id : null;
};

export function trackPending(transport: Transport): Pending {
  const open = new Set<Id>();
  let waiters: (() => void)[] = [];
  const wake = () => {
    if (open.size > 0) return;
    const w = waiters;
    waiters = [];
    for (const fn of w) fn();
  };
  const onmessage = transport.onmessage;
  transport.onmessage = (message, extra) => {
    const id = requestId(message);
    if (id !== null) open.add(id);
    onmessage?.(message, extra);
  };
  const send = transport.send.bind(transport);
  transport.send = async (message, options) => {
    try {
      return await send(message, options);
    } finally {
      const id = answerId(message);
      if (id !== null && open.delete(id)) wake();
    }
  };
  return {
    size: () => open.size,
    settled(ms) {
      if (open.size === 0) return Promise.resolve();
      return new Promise<void>((resolve) => {
        const t = setTimeout(resolve, ms);
        waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    },
  };
}
