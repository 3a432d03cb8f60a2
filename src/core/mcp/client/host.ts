/**
 * @module mcp/client/host
 * The MCP host of one lemon instance (mcp.md §6, §8, §13): per project it reads the effective
 * servers, gates project servers on trust *before* anything runs, keeps one link per distinct
 * resolved configuration (project dir, identity, resolved cwd, env and headers), publishes their
 * tools and keeps the names of retired ones so a call can say "no longer available" instead of
 * being routed to a replacement. Connections start in parallel; one bad server affects only itself.
 */
import type { LemonContext } from "../../context.ts";
import { withCwd } from "../../context.ts";
import { sha256Hex } from "../../hash.ts";
import { effectiveServers, type EffectiveServer, type EffectiveSet } from "../effective.ts";
import { expandEntry } from "../expand.ts";
import type { Scope } from "../../paths.ts";
import type { McpConfigOptions } from "../settings.ts";
import type { ConnectableServer, ConnectOptions, OAuthCallbacks, ServerConnection } from "./connect.ts";
import type { PublishedTool } from "./inventory.ts";
import { Link, type LinkEnv } from "./link.ts";
import { canonicalJson, serverIdentity } from "./naming.ts";

/** The `auth` object of an OAuth server in status (mcp.md §13). */
export interface AuthStatus {
  type: "oauth";
  state: "valid" | "expired" | "needs_auth";
  expires_at: string | null;
}

/** No approver: approvals are denied and no PKCE flow starts (stored tokens, refresh, client credentials still work). */
const NON_INTERACTIVE: OAuthCallbacks = {
  approve: async () => false,
  openUrl: async () => {},
  headless: false,
  interactive: false,
};

/** Why a configured server has no link. */
export type Gate = "disabled" | "untrusted" | "needs_auth";

/** One server of a project view: its link, or why it has none. */
export interface ServerSlot {
  server: EffectiveServer;
  link: Link | null;
  gate: Gate | null;
}

export interface ProjectView {
  cwd: string;
  set: EffectiveSet;
  slots: ServerSlot[];
  /** Published name → (link, tool). */
  names: Map<string, { link: Link; tool: PublishedTool }>;
  /** Names published earlier whose server was removed, changed or lost the tool. */
  retired: Set<string>;
  /** Names of servers that are down right now (reconnecting, unavailable): calls say UNAVAILABLE. */
  down: Map<string, Link>;
  readAt: number;
}

export interface HostOptions {
  ctx: LemonContext;
  config: McpConfigOptions;
  /** The trust gate of mcp.md §4.4, called before any connection; false = state `untrusted`. */
  trusted(ctx: LemonContext, s: EffectiveServer): Promise<boolean>;
  connect?: LinkEnv["connect"];
  /** Reconnect ladder (default 500/1000/2000/4000 ms). */
  delays?: readonly number[];
  crashLimit?: number;
  crashWindowMs?: number;
  debounceMs?: number;
  cacheTtlMs?: number;
  /** Periodic refresh of stale inventories; 0 = none (the CLI). */
  refreshIntervalMs?: number;
  nowMs?: () => number;
  /** The server set (default: the effective set read from configuration; a session passes its own). */
  servers?: (ctx: LemonContext, scope: Scope) => Promise<EffectiveSet>;
  onServerState?(server: string, state: string, lastError: string | null): void;
  /** OAuth approvals and the URL opener (mcp.md §11.4); absent: no interactive flow starts. */
  oauth?: OAuthCallbacks;
  /** The embedder's sampling delegate and approver (mcp.md §10), handed to every connection. */
  sampling?: ConnectOptions["sampling"];
}

export const DEFAULT_DELAYS = [500, 1000, 2000, 4000] as const;
export const CACHE_TTL_MS = 300_000;

async function defaultConnect(...args: Parameters<LinkEnv["connect"]>): Promise<ServerConnection> {
  const { connectServer } = await import("./connect.ts");
  return connectServer(...args);
}

export class McpHost {
  readonly #opts: HostOptions;
  readonly #views = new Map<string, ProjectView>();
  readonly #links = new Map<string, Link>();
  readonly #loading = new Map<string, Promise<ProjectView>>();
  #timer: ReturnType<typeof setInterval> | null = null;
  #closed = false;
  /** `<cwd>\0<name>` of entries without `oauth` that answered with an OAuth challenge. */
  readonly #detected = new Set<string>();
  /** OAuth sessions by configuration, shared by every link's reconnects. */
  readonly #authSessions: NonNullable<ConnectOptions["authSessions"]> = new Map();

  constructor(opts: HostOptions) {
    this.#opts = opts;
    const every = opts.refreshIntervalMs ?? 0;
    if (every > 0) {
      this.#timer = setInterval(() => void this.#refreshStale(), every);
      this.#timer.unref?.();
    }
  }

  get cacheTtlMs(): number {
    return this.#opts.cacheTtlMs ?? CACHE_TTL_MS;
  }

  #now(): number {
    return (this.#opts.nowMs ?? Date.now)();
  }

  #env(cwd: string, source: string): LinkEnv {
    const o = this.#opts;
    const connect = o.connect ?? defaultConnect;
    const onDetected = (name: string) => this.#detected.add(`${cwd}\0${name}`);
    return {
      // The source decides which OAuth settings are honoured (mcp.md §11.1).
      connect: (server, opts) => {
        const sourced: ConnectableServer = { ...server, source };
        return connect(sourced, opts);
      },
      connectOptions: {
        ctx: withCwd(o.ctx, cwd),
        cwd,
        oauth: { ...(o.oauth ?? NON_INTERACTIVE), onDetected },
        authSessions: this.#authSessions,
        ...(o.sampling !== undefined ? { sampling: o.sampling } : {}),
      } satisfies Omit<ConnectOptions, "timeoutMs">,
      delays: o.delays ?? DEFAULT_DELAYS,
      crashLimit: o.crashLimit ?? 5,
      crashWindowMs: o.crashWindowMs ?? 30_000,
      debounceMs: o.debounceMs ?? 300,
      nowMs: () => this.#now(),
      onState: (l) => o.onServerState?.(l.server.name, l.state, l.lastError),
      onInventory: () => {
        for (const v of this.#views.values()) this.#index(v);
      },
    };
  }

  /**
   * The project's view, discovered now when missing, stale (cache TTL) or `refresh` is asked.
   * Every server of it is connected, or only the one named `only` (`mcp call NAME`, cli.md §3.6b).
   */
  async view(cwd: string, refresh = false, scope: Scope = "project", only?: string): Promise<ProjectView> {
    // The global scope (`mcp call --global`) is a view of its own: the user's servers only.
    const key = `${scope}\0${cwd}`;
    const cur = this.#views.get(key);
    let view: ProjectView;
    if (!refresh && cur && this.#now() - cur.readAt < this.cacheTtlMs) view = cur;
    else {
      let p = this.#loading.get(key);
      if (p === undefined) {
        p = this.#discover(cwd, scope, key).finally(() => this.#loading.delete(key));
        this.#loading.set(key, p);
      }
      view = await p;
    }
    await this.#connectAll(view, only);
    return view;
  }

  /** Slot of one server by name in the project (for `mcp call` / `refresh(name)`). */
  slot(view: ProjectView, name: string): ServerSlot | undefined {
    return view.slots.find((s) => s.server.name === name);
  }

  async #discover(cwd: string, scope: Scope, viewKey: string): Promise<ProjectView> {
    const o = this.#opts;
    const ctx = withCwd(o.ctx, cwd);
    const set = await (o.servers ? o.servers(ctx, scope) : effectiveServers(ctx, o.config, scope));
    const off = set.disabled || !set.enabled;
    const vars = { env: ctx.env, cwd: ctx.cwd, homeDir: ctx.homeDir };
    const prev = this.#views.get(viewKey);
    const keep = new Set<string>();
    const slots: ServerSlot[] = await Promise.all(
      set.servers.map(async (server): Promise<ServerSlot> => {
        if (off || !server.enabled) return { server, link: null, gate: "disabled" };
        // The gate comes first: an untrusted project server is never spawned nor contacted.
        if (!(await o.trusted(ctx, server))) return { server, link: null, gate: "untrusted" };
        const entry = expandEntry(server.server.entry, server.server.vars, vars).entry;
        const key = sha256Hex(
          canonicalJson({
            project: cwd,
            scope,
            identity: serverIdentity(server.name, server.type, server.server.entry),
            cwd: entry.cwd ?? null,
            command: entry.command ?? null,
            args: entry.args ?? null,
            url: entry.url ?? null,
            env: entry.env ?? null,
            env_vars: (entry.env_vars ?? []).map((n) => [n, ctx.env[n] ?? null]),
            headers: entry.headers ?? null,
            timeouts: [entry.timeout_ms ?? null, entry.ready_timeout_ms ?? null],
          }),
        );
        keep.add(key);
        let link = this.#links.get(key);
        if (link === undefined || link.retired) {
          link = new Link(key, server, entry, this.#env(cwd, server.source));
          this.#links.set(key, link);
        } else if (link.server !== server) link.update(server);
        return { server, link, gate: null };
      }),
    );
    // Links of this project that the new configuration no longer names are retired now.
    for (const s of prev?.slots ?? [])
      if (s.link && !keep.has(s.link.key)) {
        this.#links.delete(s.link.key);
        void s.link.close();
      }
    const view: ProjectView = {
      cwd,
      set,
      slots,
      names: new Map(),
      down: new Map(),
      retired: new Set([...(prev?.retired ?? []), ...(prev?.names.keys() ?? [])]),
      readAt: this.#now(),
    };
    this.#views.set(viewKey, view);
    return view;
  }

  async #connectAll(view: ProjectView, only?: string): Promise<void> {
    await Promise.all(
      view.slots.map(async (s) => {
        const l = s.link;
        if (l === null || (only !== undefined && s.server.name !== only)) return;
        await l.ensure();
        if (l.conn !== null && this.#now() - l.listedAt >= this.cacheTtlMs) await l.relist().catch(() => {});
      }),
    );
    this.#index(view);
  }

  /** Rebuilds the name table; a name that disappears becomes retired. */
  #index(view: ProjectView): void {
    const names = new Map<string, { link: Link; tool: PublishedTool }>();
    const down = new Map<string, Link>();
    for (const s of view.slots) {
      const l = s.link;
      if (l === null || l.retired) continue;
      if (l.inventory === null) {
        for (const tool of l.known?.tools ?? []) down.set(tool.name, l);
        continue;
      }
      for (const tool of l.inventory.tools) if (!names.has(tool.name)) names.set(tool.name, { link: l, tool });
    }
    for (const n of view.names.keys()) if (!names.has(n) && !down.has(n)) view.retired.add(n);
    for (const n of names.keys()) view.retired.delete(n);
    for (const n of down.keys()) view.retired.delete(n);
    view.names = names;
    view.down = down;
  }

  /** `refresh(name?)`: configuration re-read, breakers reset, every (or the one) server re-listed. */
  async refresh(cwd: string, name?: string): Promise<void> {
    const cur = this.#views.get(`project\0${cwd}`);
    for (const s of cur?.slots ?? []) if (s.link && (name === undefined || s.server.name === name)) s.link.reset();
    const view = await this.view(cwd, true);
    await Promise.all(
      view.slots.map(async (s) => {
        if (s.link === null || (name !== undefined && s.server.name !== name)) return;
        s.link.reset();
        await s.link.ensure();
        await s.link.relist().catch(() => {});
      }),
    );
    this.#index(view);
  }

  async #refreshStale(): Promise<void> {
    if (this.#closed) return;
    for (const v of this.#views.values())
      for (const s of v.slots)
        if (s.link?.conn && this.#now() - s.link.listedAt >= this.cacheTtlMs) await s.link.relist().catch(() => {});
  }

  /**
   * The OAuth state of each HTTP/SSE server of the view that uses OAuth (an `oauth` entry, or one
   * that challenged with resource metadata), for status (mcp.md §13 `auth`): read from the token
   * store, never a flow, never a token.
   */
  async authStates(view: ProjectView): Promise<Map<string, AuthStatus & { warnings: string[] }>> {
    const out = new Map<string, AuthStatus & { warnings: string[] }>();
    await Promise.all(
      view.slots.map(async ({ server, link }) => {
        if (server.type === "stdio") return;
        if (server.server.entry.oauth === undefined && !this.#detected.has(`${view.cwd}\0${server.name}`)) return;
        try {
          const { openAuthSession, sessionKey } = await import("./auth-fetch.ts");
          const ctx = withCwd(this.#opts.ctx, view.cwd);
          const vars = { env: ctx.env, cwd: ctx.cwd, homeDir: ctx.homeDir };
          const entry = link?.entry ?? expandEntry(server.server.entry, server.server.vars, vars).entry;
          const target: ConnectableServer = {
            name: server.name,
            type: server.type,
            source: server.source,
            server: { entry },
          };
          // The live session knows in-memory tokens (persist_oauth_tokens: false); else the store.
          const live = this.#authSessions.get(sessionKey(target));
          const s = await (live ?? openAuthSession(ctx, target, undefined));
          const st = await s.state();
          out.set(server.name, { type: "oauth", state: st.state, expires_at: st.expires_at, warnings: st.warnings });
        } catch {
          out.set(server.name, { type: "oauth", state: "needs_auth", expires_at: null, warnings: [] });
        }
      }),
    );
    return out;
  }

  /** Closes every link; the host may not be used afterwards. */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer !== null) clearInterval(this.#timer);
    const links = [...this.#links.values()];
    this.#links.clear();
    this.#views.clear();
    await Promise.all(links.map((l) => l.close()));
  }
}
