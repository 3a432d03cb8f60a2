/**
 * @module mcp/client/link
 * One managed connection to one server configuration (mcp.md §6.4, §8): connect, discover, keep
 * the inventory fresh on `list_changed` (debounced), and after an unexpected disconnect walk the
 * reconnect ladder (500/1000/2000/4000 ms) under the breaker (more than five crashes in 30 s).
 * Only this server is affected by its crashes; a retired link ignores everything it still hears.
 */
import { LemonError } from "../../errors.ts";
import type { EffectiveServer } from "../effective.ts";
import type { McpServerConfig } from "../types.ts";
import type { ConnectOptions, ServerConnection } from "./connect.ts";
import { publish, type Inventory, type ListKind } from "./inventory.ts";

export type LinkState = "connecting" | "connected" | "disconnected" | "reconnecting" | "unavailable" | "error";

export const EXHAUSTED = "server unavailable: reconnect attempts exhausted";
export const TOO_MANY = "server unavailable: too many crashes";

/** What a link needs from its host: the connector, timers and the state event. */
export interface LinkEnv {
  connect(
    server: { name: string; type: EffectiveServer["type"]; server: { entry: McpServerConfig } },
    opts: ConnectOptions,
  ): Promise<ServerConnection>;
  connectOptions: Omit<ConnectOptions, "timeoutMs" | "requestTimeoutMs">;
  delays: readonly number[];
  crashLimit: number;
  crashWindowMs: number;
  debounceMs: number;
  nowMs(): number;
  onState(link: Link): void;
  /** The inventory changed (list_changed, reconnect): the host rebuilds its name tables. */
  onInventory(link: Link): void;
}

const LIST_CHANGED: Record<string, ListKind> = {
  "notifications/tools/list_changed": "tools",
  "notifications/resources/list_changed": "resources",
  "notifications/prompts/list_changed": "prompts",
};

type Listing = { items: unknown[]; truncated: boolean };
const EMPTY: Listing = { items: [], truncated: false };

/**
 * The §13 reason of a failed start. A listing that fails after a working handshake is the server
 * refusing its own startup (an error answer: `initialize failed`) or breaking the protocol (an
 * unparsable answer: `protocol error`); `connection failed` would send the user to the network.
 */
function reasonOf(err: unknown): string {
  if (LemonError.is(err)) {
    const r = err.details?.reason;
    if (typeof r === "string") return r;
    if (err.message === "protocol error") return "protocol error";
    if (err.message.startsWith("MCP server error ")) return "initialize failed";
  }
  return "connection failed";
}

export class Link {
  state: LinkState = "connecting";
  lastError: string | null = null;
  conn: ServerConnection | null = null;
  inventory: Inventory | null = null;
  /** The last inventory published, kept while the server is down so its calls say UNAVAILABLE. */
  known: Inventory | null = null;
  listedAt = 0;
  attempts = 0;
  retired = false;
  #crashes: number[] = [];
  #lists: Record<ListKind, Listing> = { tools: EMPTY, resources: EMPTY, prompts: EMPTY };
  #generation = 0;
  #pending: Promise<void> | null = null;
  #timers = new Set<ReturnType<typeof setTimeout>>();
  #debounce = new Map<ListKind, ReturnType<typeof setTimeout>>();

  constructor(
    readonly key: string,
    public server: EffectiveServer,
    /** The entry after `${…}` expansion: what connects. */
    readonly entry: McpServerConfig,
    readonly env: LinkEnv,
  ) {}

  get crashes30s(): number {
    const cut = this.env.nowMs() - this.env.crashWindowMs;
    this.#crashes = this.#crashes.filter((t) => t > cut);
    return this.#crashes.length;
  }

  #set(state: LinkState, lastError: string | null = this.lastError): void {
    const changed = state !== this.state || lastError !== this.lastError;
    this.state = state;
    this.lastError = lastError;
    if (changed && !this.retired) this.env.onState(this);
  }

  /** Connects (once at a time) unless connected or held by the breaker. */
  ensure(): Promise<void> {
    if (this.retired || this.state === "unavailable" || this.state === "reconnecting") return Promise.resolve();
    if (this.conn !== null) return Promise.resolve();
    this.#pending ??= this.#open().finally(() => {
      this.#pending = null;
    });
    return this.#pending;
  }

  async #connectOnce(): Promise<ServerConnection> {
    const e = this.entry;
    return this.env.connect(
      { name: this.server.name, type: this.server.type, server: { entry: e } },
      {
        ...this.env.connectOptions,
        ...(e.ready_timeout_ms !== undefined ? { timeoutMs: e.ready_timeout_ms } : {}),
        ...(e.timeout_ms !== undefined ? { requestTimeoutMs: e.timeout_ms } : {}),
      },
    );
  }

  /** First connection of a discovery: a failure is an `error` state, retried by the next discovery. */
  async #open(): Promise<void> {
    this.#set("connecting");
    try {
      await this.#adopt(await this.#connectOnce());
      this.#set("connected", null);
    } catch (err) {
      this.#crash();
      this.#set(this.crashes30s > this.env.crashLimit ? "unavailable" : "error", this.#breakerReason(reasonOf(err)));
    }
  }

  #breakerReason(reason: string): string {
    return this.crashes30s > this.env.crashLimit ? TOO_MANY : reason;
  }

  #crash(): void {
    this.#crashes.push(this.env.nowMs());
  }

  async #adopt(conn: ServerConnection): Promise<void> {
    if (this.retired) {
      await conn.close().catch(() => {});
      return;
    }
    const gen = ++this.#generation;
    this.conn = conn;
    conn.onNotification((method) => {
      const kind = LIST_CHANGED[method];
      if (kind !== undefined && gen === this.#generation && !this.retired) this.#scheduleRelist(kind);
    });
    conn.onClose((reason) => {
      if (gen !== this.#generation || this.retired) return;
      this.#lost(reason);
    });
    try {
      await this.relist();
    } catch (err) {
      // A listing that fails right after the handshake is a failed startup: close it.
      this.conn = null;
      this.#generation++;
      await conn.close().catch(() => {});
      throw err;
    }
  }

  /** Re-lists every advertised kind (discovery, TTL refresh). */
  async relist(): Promise<void> {
    const conn = this.conn;
    if (conn === null) return;
    const caps = conn.capabilities;
    const [tools, resources, prompts] = await Promise.all(
      (["tools", "resources", "prompts"] as const).map((k) => (caps[k] ? conn.list(k) : Promise.resolve(EMPTY))),
    );
    this.#lists = { tools: tools ?? EMPTY, resources: resources ?? EMPTY, prompts: prompts ?? EMPTY };
    this.#rebuild();
  }

  #rebuild(): void {
    const conn = this.conn;
    if (conn === null) return;
    this.inventory = publish(
      this.server,
      conn.capabilities,
      this.#lists.tools,
      this.#lists.resources,
      this.#lists.prompts,
    );
    this.known = this.inventory;
    this.listedAt = this.env.nowMs();
    this.env.onInventory(this);
  }

  /** Server config changed in a way that keeps the connection (approvals, filters): re-publish. */
  update(server: EffectiveServer): void {
    this.server = server;
    this.#rebuild();
  }

  #scheduleRelist(kind: ListKind): void {
    const prev = this.#debounce.get(kind);
    if (prev !== undefined) clearTimeout(prev);
    const gen = this.#generation;
    const t = setTimeout(() => {
      this.#debounce.delete(kind);
      const conn = this.conn;
      if (conn === null || gen !== this.#generation || this.retired) return;
      conn
        .list(kind)
        .then((l) => {
          if (gen !== this.#generation || this.retired) return;
          this.#lists[kind] = l;
          this.#rebuild();
        })
        .catch(() => {});
    }, this.env.debounceMs);
    this.#debounce.set(kind, t);
  }

  #lost(reason: string): void {
    const conn = this.conn;
    this.conn = null;
    this.inventory = null;
    this.#generation++;
    void conn?.close().catch(() => {});
    this.#crash();
    if (this.crashes30s > this.env.crashLimit) {
      this.#set("unavailable", TOO_MANY);
      this.env.onInventory(this);
      return;
    }
    this.attempts = 0;
    this.#set("reconnecting", reason);
    this.env.onInventory(this);
    this.#nextAttempt();
  }

  #nextAttempt(): void {
    if (this.retired) return;
    if (this.attempts >= this.env.delays.length) {
      this.#set("unavailable", EXHAUSTED);
      return;
    }
    const delay = this.env.delays[this.attempts] ?? 0;
    this.attempts++;
    const t = setTimeout(() => {
      this.#timers.delete(t);
      void this.#attempt();
    }, delay);
    this.#timers.add(t);
  }

  async #attempt(): Promise<void> {
    if (this.retired || this.state !== "reconnecting") return;
    try {
      await this.#adopt(await this.#connectOnce());
      if (this.retired) return;
      this.attempts = 0;
      this.#set("connected", null);
    } catch (err) {
      this.#crash();
      if (this.crashes30s > this.env.crashLimit) {
        this.#set("unavailable", TOO_MANY);
        return;
      }
      this.lastError = reasonOf(err);
      this.#nextAttempt();
    }
  }

  /** `refresh()`: the breaker and the ladder start over; the next `ensure` connects. */
  reset(): void {
    this.#crashes = [];
    this.attempts = 0;
    for (const t of this.#timers) clearTimeout(t);
    this.#timers.clear();
    if (this.conn === null) this.#set("connecting", null);
  }

  /** Retires the link: no further reconnects or notifications; the connection is closed. */
  async close(): Promise<void> {
    this.retired = true;
    this.#generation++;
    for (const t of this.#timers) clearTimeout(t);
    for (const t of this.#debounce.values()) clearTimeout(t);
    this.#timers.clear();
    this.#debounce.clear();
    const conn = this.conn;
    this.conn = null;
    this.inventory = null;
    await this.#pending?.catch(() => {});
    if (conn !== null) await conn.close().catch(() => {});
  }
}
