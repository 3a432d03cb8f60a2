/**
 * @module lemon-skills
 * The embeddable lemon core: `createLemon(options)` returns an instance whose caches hang off
 * the object itself, so two instances share nothing. No CLI or terminal code is reachable here.
 * This module stays light (the skills engine and the MCP configuration load on first use), so
 * the CLI takes its errors, text hygiene and build facts from here at no start-up cost.
 */
import { createContext, withCwd, type ContextOptions, type LemonContext } from "./context.ts";
import type { SkillEntry } from "./skills/entry.ts";
import type { SkillRegistry } from "./skills/registry.ts";
import { renderListing, renderRelevantBlock } from "./skills/prompt.ts";
import { byKey, isDisplayable } from "./skills/entry.ts";
import { charCount } from "./text.ts";
import { eventTs, type LemonEvents } from "./skills/usage/events.ts";
import { instanceEvents } from "./skills/usage/recorder.ts";
import type { UsageRow } from "./skills/usage/report.ts";
import type { Scope } from "./paths.ts";
import type { AuditReport } from "./skills/audit/engine.ts";
import type { SearchResult } from "./skills/search/search.ts";
import type { CatalogChange } from "./skills/search/catalog-watch.ts";
import type { HermesCatalog } from "./skills/online/hermes.ts";
import type { DiscoveryResponse } from "./skills/online/discover.ts";
import { type ApprovalRequest, oauthApproval } from "./skills/install/approval.ts";
import { lifecycleChecks } from "./skills/install/checks.ts";
import type { InstallOptions, InstallResult, UpdateOptions } from "./skills/install/api.ts";
import type { UpdateItem, UpdateResult } from "./skills/install/update.ts";
import type { McpAppConfig, McpConfigApi, ValidateResult } from "./mcp/index.ts";
import type { TrustMode, TrustResult } from "./mcp/index.ts";
import type {
  McpCallDetails,
  McpClient,
  McpServerConfig,
  McpSession,
  McpStatus,
  McpTestReport,
  ToolCallInfo,
  ToolPolicyDecision,
  ToolRegistry,
  ToolSources,
} from "./mcp/index.ts";
import { createToolRegistry } from "./mcp/client/registry.ts";
import type { AgentsConfig, DeepPartialSkills } from "./skills/skills-config.ts";
import {
  checkCuratorOption,
  curatorWiring,
  type CuratorManagerOptions,
  type SkillsCuratorApi,
} from "./skills/curator/wire.ts";
import { validateEntries } from "./mcp/validate.ts";
import { checkArg, checkOptions, toLemonError, type ArgKind } from "./errors.ts";
import { internals } from "./internals.ts";
import { toolApi } from "./skills/tools/api.ts";
import { skillManageMethod, type SkillManageDetails } from "./skills/tools/manage-api.ts";
import type { ReadSkillDetails } from "./skills/tools/read-skill.ts";
import type { ResolvedSkillUri } from "./skills/tools/skill-uri.ts";
import { errorResult, type ToolCallContext, type ToolDefinition, type ToolResult } from "./skills/tools/result.ts";
import type { ToolExecutor } from "./skills/tools/agent-tools.ts";
import type { SamplingDelegate } from "./mcp/client/sampling.ts";

/** What `createLemon` takes (cli.md §7): the context options plus configuration and the curator. */
export interface LemonOptions extends ContextOptions {
  /** The `config.toml` settings as options; a key given here wins over the file. */
  config?: { mcp?: McpAppConfig; skills?: DeepPartialSkills; agents?: AgentsConfig };
  /** Read `<agentDir>/config.toml` (default true). */
  readConfigFile?: boolean;
  /**
   * Background curator (skills.md §13.6): on unless `false` or `enabled: false`; unset fields take
   * `[skills.curator]`. Its timer is unref'd and `close()` stops it. The CLI passes `false`.
   */
  curator?: CuratorManagerOptions | false;
  /** Answers install, update and uninstall approvals (install.md §1); default: every request is denied. */
  approve?: (request: ApprovalRequest) => Promise<boolean>;
  /**
   * The MCP client (mcp.md §4.4): `trust` of project servers — `"ask"` (default) the `approve`
   * callback before one starts, `"trusted"` the embedder vouches for the project, `"none"` never.
   */
  mcp?: { trust?: TrustMode };
  /** The embedder's runtime policy for tool calls (mcp.md §9); default: allow. */
  toolPolicy?: (call: ToolCallInfo) => ToolPolicyDecision | Promise<ToolPolicyDecision>;
  /**
   * The sampling delegate (mcp.md §10): servers whose entry allows sampling are offered it only
   * with this; `reviewed_model` asks `approve` (kind `mcp_sampling`) before the delegate runs.
   */
  sampling?: SamplingDelegate;
  /**
   * Shows or opens an approved OAuth authorization URL (mcp.md §11.4); without it the URL is
   * emitted as the `mcp.oauth_url` event. Flows start only with an `approve` callback.
   */
  openUrl?: (url: string) => Promise<void>;
}

/** `lemon.skills`: what the `lemon skill …` commands use. `cwd` defaults to the instance's. */
export interface SkillsApi {
  /** The curator of agent-written skills (skills.md §13); scope default global. */
  readonly curator: SkillsCuratorApi;
  /** Effective skills of both scopes (or `scope`); `all` adds shadowed and invalid ones (default false). */
  list: SkillRegistry["list"];
  /** One effective skill by key, or null. */
  get: SkillRegistry["get"];
  /** Live readiness of one key (skills.md §5.2), or null when no such skill. */
  status: SkillRegistry["status"];
  /** Drops cached listings; the next `findRelevant` rebuilds its snapshot. */
  refresh: SkillRegistry["refresh"];
  /**
   * Enables a key in `skills.json` (global scope unless `global: false`); the result says the
   * key's effective state.
   */
  enable: SkillRegistry["enable"];
  /** Disables a key in `skills.json` (global scope unless `global: false`). */
  disable: SkillRegistry["disable"];
  /** Lints PATHs or every discovered skill (skills.md §15.1); `strict` default false, `audit` default true. */
  lint: SkillRegistry["lint"];
  /** Readiness and validity of one key or every skill (skills.md §15.2). */
  check: SkillRegistry["check"];
  /** One effective skill with manifest and current bundle hash (cli.md §2.3). */
  inspect: SkillRegistry["inspect"];
  /** The security audit of a key or a skill directory (install.md §7); `force` skips the cache (default false). */
  audit(target: string, opts?: { cwd?: string; force?: boolean }): Promise<AuditReport>;
  /**
   * The skills most relevant to a request (skills.md §7.1); `maxResults` default 3, at most 50.
   * `cutoff: false` skips the "nothing fits" cut-off. A request longer than 8,192 characters is
   * read as its first and last 4,096, and at most 256 of its distinct words count.
   */
  findRelevant(
    query: string,
    opts?: { cwd?: string; maxResults?: number; refresh?: boolean; cutoff?: boolean },
  ): Promise<SkillEntry[]>;
  /**
   * Calls `listener` after a skill, root, lockfile or skills.json of `cwd`'s two scopes changed
   * (coalesced, at most once per 100 ms, within 1 s); file-system notifications while they work,
   * else a check every 250 ms. Returns the unsubscribe; the last one, or close(), releases the
   * watchers. Never keeps the process alive.
   */
  watch(listener: (change: CatalogChange) => void, opts?: { cwd?: string }): () => void;
  /**
   * Local results of `findRelevant` (`maxLocal` default 5) plus online discovery (`maxOnline`
   * default 5) unless `online: false`; a failing online source is a warning.
   */
  search(
    query: string,
    opts?: { cwd?: string; maxLocal?: number; maxOnline?: number; online?: boolean },
  ): Promise<SearchResult>;
  /**
   * Online discovery (install.md §11): GitHub topic search, the registry and the
   * `[skills.discovery] well_known` indexes at once; `max` default 10. Fails only on bad arguments.
   */
  discover(query: string, opts?: { max?: number }): Promise<DiscoveryResponse>;
  /**
   * Installs a skill from a source (install.md §5): global scope unless `global: false`, root of
   * `agent` (default `lemon`). Approvals go to createLemon's `approve` unless `approve: true`.
   */
  install(source: string, opts?: InstallOptions): Promise<InstallResult>;
  /** The skills a source holds (`install --list`); installs nothing. */
  listSource: SkillRegistry["listSource"];
  /** Updates one installed skill from its recorded source (install.md §9); `check` only queries upstream. */
  update(key: string, opts?: UpdateOptions): Promise<UpdateResult>;
  /** Updates several keys, or every record of the scope with `"all"`; a failed key's item carries its error. */
  updateMany(keys: string[] | "all", opts?: UpdateOptions): Promise<UpdateItem[]>;
  /** Removes a skill lemon installed (install.md §10). */
  uninstall: SkillRegistry["uninstall"];
  /**
   * The Hermes catalog (install.md §4.5): remote through the GitHub API (ETags cached in the agent
   * dir) or the checkout `LEMON_HERMES_REPO` names; `collection` default `all`, `details` fetches
   * each SKILL.md's name and description. `onProgress` gets a line per ten details fetched.
   */
  hermesCatalog(opts?: {
    query?: string;
    category?: string;
    collection?: "bundled" | "optional" | "all";
    details?: boolean;
    onProgress?: (line: string) => void;
  }): Promise<HermesCatalog>;
  /**
   * The usage report rows of a scope (skills.md §12.3; default global); the day limits default
   * to `[skills.curator]`. An invalid sidecar reads as no rows and is reported as a diagnostic.
   */
  usageReport(opts?: {
    cwd?: string;
    scope?: Scope;
    staleAfterDays?: number;
    archiveAfterDays?: number;
  }): Promise<UsageRow[]>;
}

/** `lemon.mcp`: MCP configuration (the client is not built yet). */
export interface McpApi {
  /** lemon's own `mcp.json` files plus the imports from other tools (mcp.md §1–§4). */
  readonly config: McpConfigApi;
  /** Every entry's first mcp.md §3.4 problem, or the normalised entries. */
  validate(entries: unknown[]): ValidateResult;
  /**
   * Records trust in project servers of `cwd` as they are now (mcp.md §4.4): the named ones, and
   * with `all` every enabled one. No approval is asked: the call is the embedder's consent.
   */
  trust(names: string[], opts?: { cwd?: string; all?: boolean }): Promise<{ trusted: string[]; already: string[] }>;
  /** Removes this project's trust records of `names` (or all with `all`); returns the names removed. */
  untrust(names: string[], opts?: { cwd?: string; all?: boolean }): Promise<{ untrusted: string[] }>;
  /** The project's published MCP tools (mcp.md §6.2); `[]` when MCP is disabled. Execute never rejects. */
  getTools(opts?: { cwd?: string; refresh?: boolean }): Promise<ToolDefinition[]>;
  /** One call by published name (mcp.md §9); approvals go to `approve`, the policy to `toolPolicy`. */
  callTool(name: string, args: unknown, ctx?: ToolCallContext & { cwd?: string }): Promise<ToolResult<McpCallDetails>>;
  /** `status()` of mcp.md §13 (connects to every enabled, trusted server of the project). */
  status(opts?: { cwd?: string }): Promise<McpStatus>;
  /** Re-reads configuration, resets breakers and re-lists every (or the named) server. */
  refresh(serverName?: string, opts?: { cwd?: string }): Promise<void>;
  /**
   * `mcp test` (cli.md §3.5): an isolated connection, handshake and listings; never a tool call.
   * An OAuth server's flow may run after `approve` (`headlessAuth`: lemon follows the redirect itself).
   */
  test(
    name: string,
    opts?: { cwd?: string; global?: boolean; listTools?: boolean; headlessAuth?: boolean },
  ): Promise<McpTestReport>;
  /** `mcp login` (cli.md §3.6): the OAuth flow of one entry of the selected lemon file; tokens stored. */
  login(
    name: string,
    opts?: { cwd?: string; global?: boolean; headlessAuth?: boolean },
  ): Promise<{ expiresAt: string | null; scopes: string[] }>;
  /** `mcp logout` (cli.md §3.6): deletes the stored tokens (`registration`: the client registration too). */
  logout(name: string, opts?: { cwd?: string; global?: boolean; registration?: boolean }): Promise<void>;
  /** Servers owned by one session (cli.md §7): in memory only, `approval: always` unless they say otherwise. */
  openSession(servers: McpServerConfig[], opts?: { cwd?: string }): Promise<McpSession>;
}

/** One lemon instance: its caches and workers hang off it; `close()` (or `await using`) ends them. */
export interface Lemon extends AsyncDisposable {
  readonly mcp: McpApi;
  /** The resolved options: cwd, env, lemon home, agent dir, skill roots (frozen). */
  readonly context: LemonContext;
  /** The skill catalog, relevance, lint, check and audit. */
  readonly skills: SkillsApi;
  /** Telemetry events (skills.md §11, cli.md §9): `on`/`once` return the unsubscribe function. */
  readonly events: LemonEvents;
  /** The stable skill listing for a system prompt (skills.md §6); `cwd` default: the instance's. */
  renderPrompt(opts?: { cwd?: string }): Promise<string>;
  /** The per-turn `<relevant-skills>` block for entries `findRelevant` returned. */
  renderRelevant(entries: SkillEntry[]): string;
  /**
   * The `read_skill` agent tool (skills.md §8); `ctx.cwd` picks the project (default: the
   * instance's). Never rejects: every failure is a result with `isError: true`.
   */
  readSkill(params: unknown, ctx?: ToolCallContext & { cwd?: string }): Promise<ToolResult<ReadSkillDetails>>;
  /**
   * The `skill_manage` agent tool (skills.md §9); `ctx.cwd` picks the project (default: the
   * instance's). Never rejects: every failure is a result with `isError: true`.
   */
  skillManage(params: unknown, ctx?: ToolCallContext & { cwd?: string }): Promise<ToolResult<SkillManageDetails>>;
  /** A `skill://<key>[/<path>]` URI's file (skills.md §10), for a host's `read` tool; LemonError on failure. */
  resolveSkillUri(uri: string, opts?: { cwd?: string }): Promise<ResolvedSkillUri>;
  /** `read_skill` and `skill_manage` as tool definitions with JSON Schema parameters, bound to `cwd`. */
  agentTools(opts?: { cwd?: string }): ToolDefinition[];
  /** Tool sources merged with MCP's tools, precedence builtin > wasm > extension > mcp (mcp.md §12). */
  createToolRegistry(sources?: ToolSources): ToolRegistry;
  /** Stops workers and drops caches; the instance may not be used afterwards. */
  close(): Promise<void>;
}

/**
 * A public async method: its arguments are checked first (INVALID_PARAMS naming the argument), and
 * whatever it throws reaches the caller as a LemonError (cli.md §7: every failure is one).
 */
function method<A extends unknown[], R>(check: (...args: NoInfer<A>) => void, run: (...args: A) => Promise<R>) {
  return async (...args: A): Promise<R> => {
    try {
      check(...args);
      return await run(...args);
    } catch (err) {
      throw toLemonError(err);
    }
  };
}

const CWD = { cwd: "string" } as const satisfies Record<string, ArgKind>;
const SCOPE = ["global", "project"] as const;
const LEMON_FIELDS: Record<string, ArgKind> = {
  readConfigFile: "boolean",
  config: "object",
  approve: "function",
  mcp: "object",
  toolPolicy: "function",
  sampling: "function",
  openUrl: "function",
};

/**
 * A lemon instance over `options` (every default in cli.md §7: `cwd` the process cwd, `env` see
 * `processEnv`, config read from `<agentDir>/config.toml`). INVALID_PARAMS for an option of the
 * wrong type or a `cwd` that is not an existing directory.
 */
export function createLemon(options: LemonOptions = {}): Lemon {
  const context = createContext(options, "createLemon");
  checkOptions(options, LEMON_FIELDS, "createLemon");
  checkCuratorOption(options.curator);
  checkOptions(options.mcp, { trust: ["ask", "trusted", "none"] }, "createLemon: mcp");
  // The effective [skills] settings, read once on first use.
  let settingsP: Promise<import("./skills/skills-config.ts").SkillsSettings> | null = null;
  const skillsSettings = () =>
    (settingsP ??= import("./skills/skills-config.ts").then((m) =>
      m.loadSkillsSettings(context, {
        readConfigFile: options.readConfigFile !== false,
        ...(options.config?.skills !== undefined ? { config: options.config.skills } : {}),
      }),
    ));
  // Discovery's sources come from the env and [skills]; its code loads on first use.
  const discoverOnline = async (q: string, max: number | undefined) => {
    const [m, settings] = await Promise.all([import("./skills/online/discover.ts"), skillsSettings()]);
    return m.discover(q, max, m.discoverConfig(context.env, settings, options.config?.skills?.registry_url));
  };
  const hub = instanceEvents(context, { eventLog: async () => (await skillsSettings()).eventLog });
  const curator = curatorWiring(
    context,
    {
      ...(options.curator !== undefined ? { curator: options.curator } : {}),
      ...(options.readConfigFile !== undefined ? { readConfigFile: options.readConfigFile } : {}),
      ...(options.config !== undefined ? { config: options.config } : {}),
    },
    { run: (e) => hub.emit("curator.run", e), diagnostic: (d) => hub.emit("diagnostic", d) },
  );
  // The skills engine loads on first use: `lemon mcp …` and embedders that only validate never pay for it.
  let registryP: Promise<SkillRegistry> | null = null;
  let closed = false;
  const reg = () =>
    (registryP ??= import("./skills/registry.ts").then(
      (m) =>
        new m.SkillRegistry(context, {
          ...(options.readConfigFile !== undefined ? { readConfigFile: options.readConfigFile } : {}),
          ...(options.approve !== undefined ? { approve: options.approve } : {}),
          ...(options.config?.skills !== undefined ? { skillsConfig: options.config.skills } : {}),
          events: { wants: (t) => hub.wants(t), emit: (t, e) => hub.emit(t, e) },
        }),
    ));
  const key = (what: string) => (k: unknown, o?: unknown) => {
    checkArg(k, "string", `${what}: key`);
    checkOptions(o, { ...CWD, refresh: "boolean", global: "boolean" }, what);
  };
  const toggle = (what: string) => (k: unknown, o?: unknown) => {
    checkArg(k, "string", `${what}: key`);
    checkOptions(o, { ...CWD, global: "boolean", requireDiscovered: "boolean" }, what);
  };
  const query = (what: string, fields: Record<string, ArgKind>) => (q: unknown, o?: unknown) => {
    checkArg(q, "string", `${what}: query`);
    checkOptions(o, { ...CWD, ...fields }, what);
  };
  // skills.watch subscriptions, ended by close() even before their registry has loaded.
  const watchStops = new Set<() => void>();
  const skills: SkillsApi = {
    curator: curator.api,
    list: method(
      (o?: unknown) => checkOptions(o, { ...CWD, refresh: "boolean", all: "boolean", scope: SCOPE }, "skills.list"),
      async (o) => (await reg()).list(o),
    ),
    get: method(key("skills.get"), async (k, o) => (await reg()).get(k, o)),
    status: method(key("skills.status"), async (k, o) => (await reg()).status(k, o)),
    refresh: method(
      (o?: unknown) => checkOptions(o, CWD, "skills.refresh"),
      async (o) => {
        const started = performance.now();
        const r = await reg();
        await r.refresh(o);
        await hub.ready();
        if (!hub.wants("skills.refresh")) return;
        // The count is what the refreshed catalog holds, so the listing is rebuilt only when someone listens.
        const { skills: entries } = await r.list(o);
        const duration_ms = Math.round(performance.now() - started);
        const ts = eventTs(context);
        for (const scope of ["global", "project"] as const) {
          const count = entries.filter((e) => e.scope === scope).length;
          hub.emit("skills.refresh", { ts, scope, count, duration_ms });
        }
      },
    ),
    enable: method(toggle("skills.enable"), async (k, o) => (await reg()).enable(k, o)),
    disable: method(toggle("skills.disable"), async (k, o) => (await reg()).disable(k, o)),
    lint: method(
      (p?: unknown, o?: unknown) => {
        if (p !== undefined) checkArg(p, "string[]", "skills.lint: paths");
        checkOptions(o, { ...CWD, strict: "boolean", audit: "boolean" }, "skills.lint");
      },
      async (p, o) => (await reg()).lint(p, o),
    ),
    check: method(
      (k?: unknown, o?: unknown) => {
        if (k !== undefined) checkArg(k, "string", "skills.check: key");
        checkOptions(o, CWD, "skills.check");
      },
      async (k, o) => (await reg()).check(k, o),
    ),
    inspect: method(key("skills.inspect"), async (k, o) => (await reg()).inspect(k, o)),
    audit: method(
      (t: unknown, o?: unknown) => {
        checkArg(t, "string", "skills.audit: target");
        checkOptions(o, { ...CWD, force: "boolean" }, "skills.audit");
      },
      async (t, o) => (await reg()).audit(t, o),
    ),
    findRelevant: method(
      query("skills.findRelevant", { refresh: "boolean", maxResults: "number", cutoff: "boolean" }),
      async (q, o) => (await reg()).findRelevant(q, o),
    ),
    watch: (listener, o) => {
      try {
        checkArg(listener, "function", "skills.watch: listener");
        checkOptions(o, CWD, "skills.watch");
      } catch (err) {
        throw toLemonError(err);
      }
      // After close() a subscription would arm watchers nothing releases: a no-op (no error code
      // in the contract for a closed instance; its other methods keep working).
      if (closed) return () => {};
      const ctx = withCwd(context, o?.cwd);
      let stop: (() => void) | null = null;
      let done = false;
      const unsubscribe = () => {
        done = true;
        watchStops.delete(unsubscribe);
        stop?.();
        stop = null;
      };
      watchStops.add(unsubscribe);
      void (async () => {
        const [r, { subscribe }] = await Promise.all([reg(), import("./skills/search/catalog-watch.ts")]);
        if (!done) stop = subscribe(r.relevance().store, ctx, listener);
      })().catch((err: unknown) =>
        context.log({ level: "warn", message: `skills.watch failed: ${(err as Error).message}` }),
      );
      return unsubscribe;
    },
    search: method(
      query("skills.search", { maxLocal: "number", maxOnline: "number", online: "boolean" }),
      async (q, o) => {
        const { combinedSearch } = await import("./skills/search/search.ts");
        return combinedSearch(q, o ?? {}, {
          local: async (maxLocal) => (await (await reg()).search(q, { ...o, maxLocal })).local,
          online: (maxOnline) => discoverOnline(q, maxOnline),
        });
      },
    ),
    discover: method(query("skills.discover", { max: "number" }), (q, o) => discoverOnline(q, o?.max)),
    install: method(lifecycleChecks.install, async (src, o) => (await reg()).install(src, o)),
    listSource: method(lifecycleChecks.listSource, async (src, o) => (await reg()).listSource(src, o)),
    update: method(lifecycleChecks.update, async (k, o) => (await reg()).update(k, o)),
    updateMany: method(lifecycleChecks.updateMany, async (keys, o) => (await reg()).updateMany(keys, o)),
    uninstall: method(lifecycleChecks.uninstall, async (k, o) => (await reg()).uninstall(k, o)),
    hermesCatalog: method(
      (o?: unknown) =>
        checkOptions(
          o,
          {
            query: "string",
            category: "string",
            collection: ["bundled", "optional", "all"],
            details: "boolean",
            onProgress: "function",
          },
          "skills.hermesCatalog",
        ),
      async (o) => {
        const [{ hermesCatalog }, settings] = await Promise.all([
          import("./skills/online/hermes.ts"),
          skillsSettings(),
        ]);
        const { onProgress, ...query } = o ?? {};
        return hermesCatalog(query, {
          env: context.env,
          agentDir: context.agentDir,
          timeoutMs: settings.httpTimeoutMs,
          ...(onProgress ? { onProgress } : {}),
        });
      },
    ),
    usageReport: method(
      (o?: unknown) =>
        checkOptions(
          o,
          { ...CWD, scope: SCOPE, staleAfterDays: "number", archiveAfterDays: "number" },
          "skills.usageReport",
        ),
      async (o) => {
        const ctx = withCwd(context, o?.cwd);
        const [{ usageReport }, settings] = await Promise.all([import("./skills/usage/report.ts"), skillsSettings()]);
        const diagnostics: import("./diagnostics.ts").Diagnostic[] = [];
        const rows = await usageReport(ctx, o?.scope ?? "global", {
          staleAfterDays: o?.staleAfterDays ?? settings.curator.staleAfterDays,
          archiveAfterDays: o?.archiveAfterDays ?? settings.curator.archiveAfterDays,
          now: context.now(),
          diagnostics,
        });
        for (const d of diagnostics) hub.emit("diagnostic", d);
        return rows;
      },
    ),
  };
  // The MCP configuration code loads on first use, so skill commands never pay for it.
  let mcpConfig: Promise<McpConfigApi> | null = null;
  const cfg = () =>
    (mcpConfig ??= import("./mcp/index.ts").then((m) =>
      m.createMcpConfig(context, {
        ...(options.config?.mcp !== undefined ? { config: options.config.mcp } : {}),
        ...(options.readConfigFile !== undefined ? { readConfigFile: options.readConfigFile } : {}),
      }),
    ));
  const scoped =
    (what: string, fields: Record<string, ArgKind> = {}) =>
    (o?: unknown) =>
      checkOptions(o, { ...CWD, global: "boolean", ...fields }, what);
  const named =
    (what: string, fields: Record<string, ArgKind> = {}) =>
    (n: unknown, o?: unknown) => {
      checkArg(n, "string", `${what}: name`);
      scoped(what, fields)(o);
    };
  const validate = (entries: unknown[]) => {
    try {
      checkArg(entries, "array", "mcp.validate: entries");
      return validateEntries(entries);
    } catch (err) {
      throw toLemonError(err);
    }
  };
  const config: McpConfigApi = {
    list: method(scoped("mcp.config.list", { all: "boolean" }), async (o?: Parameters<McpConfigApi["list"]>[0]) =>
      (await cfg()).list(o),
    ) as McpConfigApi["list"],
    add: method(
      (e: unknown, o?: unknown) => {
        checkArg(e, "object", "mcp.config.add: entry");
        scoped("mcp.config.add", { replace: "boolean" })(o);
      },
      async (e, o?: Parameters<McpConfigApi["add"]>[1]) => (await cfg()).add(e, o),
    ),
    addDetailed: method(
      (e: unknown, o?: unknown) => {
        checkArg(e, "object", "mcp.config.add: entry");
        scoped("mcp.config.add", { replace: "boolean" })(o);
      },
      async (e, o?: Parameters<McpConfigApi["add"]>[1]) => (await cfg()).addDetailed(e, o),
    ),
    remove: method(named("mcp.config.remove"), async (n: string, o?: Parameters<McpConfigApi["remove"]>[1]) =>
      (await cfg()).remove(n, o),
    ),
    enable: method(
      named("mcp.config.enable", { force: "boolean" }),
      async (n: string, o?: Parameters<McpConfigApi["enable"]>[1]) => (await cfg()).enable(n, o),
    ),
    disable: method(
      named("mcp.config.disable", { force: "boolean" }),
      async (n: string, o?: Parameters<McpConfigApi["disable"]>[1]) => (await cfg()).disable(n, o),
    ),
  };
  const trustNames = (what: string) => (names: unknown, o?: unknown) => {
    checkArg(names, "array", `${what}: names`);
    checkOptions(o, { ...CWD, all: "boolean" }, what);
  };
  const trustOps = () => import("./mcp/trust-ops.ts");
  const samplingHost =
    options.sampling !== undefined
      ? {
          sampling: {
            delegate: options.sampling,
            ...(options.approve !== undefined ? { approve: options.approve } : {}),
          },
        }
      : {};
  // OAuth (mcp.md §11.4): approvals through `approve` (none: no interactive flow), the URL to
  // `openUrl` or the `mcp.oauth_url` event.
  const oauthFor = (headless: boolean): import("./mcp/index.ts").OAuthCallbacks => ({
    approve: async (r) => options.approve !== undefined && (await options.approve(oauthApproval(r))) === true,
    openUrl: async (url, server) => {
      if (options.openUrl !== undefined) await options.openUrl(url);
      else hub.emit("mcp.oauth_url", { ts: eventTs(context), server, url });
    },
    headless,
    interactive: options.approve !== undefined,
  });
  // An untrusted project server's trust question (mode "ask") goes to the same `approve`.
  const approveTrust =
    options.approve !== undefined
      ? {
          approveTrust: options.approve as unknown as (r: import("./mcp/index.ts").McpTrustRequest) => Promise<boolean>,
        }
      : {};
  // What login and test add about trust: the configured mode and who approves.
  const trustOpts = {
    ...(options.mcp?.trust !== undefined ? { trustMode: options.mcp.trust } : {}),
    ...approveTrust,
  };
  // The MCP host loads on first use; the SDK only when a server is first contacted.
  let mcpClientP: Promise<McpClient> | null = null;
  const client = () =>
    (mcpClientP ??= import("./mcp/index.ts").then((m) =>
      m.openMcpClient(context, {
        ...(options.config?.mcp !== undefined ? { config: options.config.mcp } : {}),
        ...(options.readConfigFile !== undefined ? { readConfigFile: options.readConfigFile } : {}),
        ...(options.approve !== undefined ? { approve: options.approve } : {}),
        ...approveTrust,
        ...(options.toolPolicy !== undefined ? { toolPolicy: options.toolPolicy } : {}),
        ...(options.mcp?.trust !== undefined ? { trust: options.mcp.trust } : {}),
        ...samplingHost,
        oauth: oauthFor(false),
        events: {
          serverState: (e) => hub.emit("mcp.server_state", e),
          toolCall: (e) => hub.emit("mcp.tool_call", e),
        },
      }),
    ));
  const mcpOpts = {
    ...(options.config?.mcp !== undefined ? { config: options.config.mcp } : {}),
    ...(options.readConfigFile !== undefined ? { readConfigFile: options.readConfigFile } : {}),
  };
  const login = method(
    (n: unknown, o?: unknown) => {
      checkArg(n, "string", "mcp.login: name");
      checkOptions(o, { ...CWD, global: "boolean", headlessAuth: "boolean" }, "mcp.login");
    },
    async (n: string, o?: { cwd?: string; global?: boolean; headlessAuth?: boolean }) => {
      const r = await (await import("./mcp/index.ts")).loginMcpServer(withCwd(context, o?.cwd), n, {
        ...mcpOpts,
        ...(o?.global !== undefined ? { global: o.global } : {}),
        oauth: oauthFor(o?.headlessAuth === true),
        ...trustOpts,
      });
      return { expiresAt: r.expires_at, scopes: r.scopes };
    },
  );
  const logout = method(
    (n: unknown, o?: unknown) => {
      checkArg(n, "string", "mcp.logout: name");
      checkOptions(o, { ...CWD, global: "boolean", registration: "boolean" }, "mcp.logout");
    },
    async (n: string, o?: { cwd?: string; global?: boolean; registration?: boolean }) => {
      await (await import("./mcp/index.ts")).logoutMcpServer(withCwd(context, o?.cwd), n, {
        ...mcpOpts,
        ...(o?.global !== undefined ? { global: o.global } : {}),
        ...(o?.registration !== undefined ? { registration: o.registration } : {}),
      });
    },
  );
  const sessions = new Set<McpSession>();
  const mcp: McpApi = {
    config,
    validate,
    login,
    logout,
    trust: method(trustNames("mcp.trust"), async (names: string[], o?: { cwd?: string; all?: boolean }) => {
      const r: TrustResult = await (await trustOps()).trustServers(withCwd(context, o?.cwd), mcpOpts, names, {
        all: o?.all === true,
      });
      return { trusted: r.trusted, already: r.already };
    }),
    untrust: method(trustNames("mcp.untrust"), async (names: string[], o?: { cwd?: string; all?: boolean }) =>
      (await trustOps()).untrustServers(withCwd(context, o?.cwd), names, { all: o?.all === true }),
    ),
    getTools: method(
      (o?: unknown) => checkOptions(o, { ...CWD, refresh: "boolean" }, "mcp.getTools"),
      async (o?: { cwd?: string; refresh?: boolean }) => (await client()).getTools(o),
    ),
    callTool: method(
      (n: unknown, _a?: unknown, c?: unknown) => {
        checkArg(n, "string", "mcp.callTool: name");
        if (c !== undefined) checkArg(c, "object", "mcp.callTool: ctx");
      },
      async (n: string, a: unknown, c?: ToolCallContext & { cwd?: string }) => (await client()).callTool(n, a, c),
    ),
    status: method(
      (o?: unknown) => checkOptions(o, CWD, "mcp.status"),
      async (o?: { cwd?: string }) => (await client()).status(o),
    ),
    refresh: method(
      (n?: unknown, o?: unknown) => {
        if (n !== undefined) checkArg(n, "string", "mcp.refresh: serverName");
        checkOptions(o, CWD, "mcp.refresh");
      },
      async (n?: string, o?: { cwd?: string }) => (await client()).refresh(n, o),
    ),
    openSession: method(
      (list: unknown, o?: unknown) => {
        checkArg(list, "array", "mcp.openSession: servers");
        checkOptions(o, CWD, "mcp.openSession");
      },
      async (list: McpServerConfig[], o?: { cwd?: string }) => {
        const m = await import("./mcp/index.ts");
        const session = await m.openMcpSession(withCwd(context, o?.cwd), list, {
          ...mcpOpts,
          ...(options.approve !== undefined ? { approve: options.approve } : {}),
          ...(options.toolPolicy !== undefined ? { toolPolicy: options.toolPolicy } : {}),
          ...samplingHost,
          oauth: oauthFor(false),
          events: {
            serverState: (e) => hub.emit("mcp.server_state", e),
            toolCall: (e) => hub.emit("mcp.tool_call", e),
          },
        });
        sessions.add(session);
        return {
          getTools: () => session.getTools(),
          callTool: (n, a, c) => session.callTool(n, a, c),
          close: async () => {
            sessions.delete(session);
            await session.close();
          },
        };
      },
    ),
    test: method(
      (n: unknown, o?: unknown) => {
        checkArg(n, "string", "mcp.test: name");
        checkOptions(o, { ...CWD, global: "boolean", listTools: "boolean", headlessAuth: "boolean" }, "mcp.test");
      },
      async (n: string, o?: { cwd?: string; global?: boolean; listTools?: boolean; headlessAuth?: boolean }) =>
        (await import("./mcp/index.ts")).testMcpServer(withCwd(context, o?.cwd), n, {
          ...mcpOpts,
          oauth: oauthFor(o?.headlessAuth === true),
          ...(o?.global !== undefined ? { global: o.global } : {}),
          ...(o?.listTools !== undefined ? { listTools: o.listTools } : {}),
          ...trustOpts,
        }),
    ),
  };
  const close = async () => {
    closed = true;
    for (const stop of [...watchStops]) stop();
    await Promise.all([...sessions].map((s) => s.close()));
    if (mcpClientP !== null) await (await mcpClientP).close();
    await curator.close();
    await hub.drain();
    if (registryP !== null) await (await registryP).close();
  };
  const tools = toolApi({
    context,
    registry: reg,
    // The project a load belongs to is the call's cwd, not necessarily the instance's.
    emitLoad: (e, cwd?: string) => hub.publish("skill.load", e, withCwd(context, cwd)),
    // skill_manage is the instance's own method once it exists (skills.md §9).
    skillManage: async (args, ctx) => {
      const manage = (lemon as { skillManage?: ToolExecutor }).skillManage;
      if (manage) return manage(args, ctx);
      return errorResult("skill_manage is not available in this version", { error: "unavailable" });
    },
  });
  const lemon: Lemon = {
    context,
    mcp,
    skills,
    events: { on: (t, l) => hub.on(t, l), once: (t, l) => hub.once(t, l) },
    readSkill: tools.readSkill,
    skillManage: skillManageMethod({
      context,
      hub,
      writeApproval: async () => (await skillsSettings()).writeApproval,
      ...(options.approve !== undefined ? { approve: options.approve } : {}),
      registry: reg,
    }),
    resolveSkillUri: (uri, opts) => tools.resolveSkillUri(uri, opts),
    agentTools: tools.agentTools,
    createToolRegistry: (sources = {}) => createToolRegistry(sources, (o) => mcp.getTools(o)),
    renderPrompt: method(
      (o?: unknown) => checkOptions(o, CWD, "renderPrompt"),
      async (o) => {
        // The listing renderPrompt would build, rendered here so the event can name its keys.
        const { skills: entries } = await (await reg()).list(o);
        const text = renderListing(entries);
        if (hub.wants("skill.prompt_render")) {
          const shown = text === "" ? [] : entries.filter(isDisplayable).sort(byKey);
          const keys = shown.map((e) => e.key);
          hub.emit("skill.prompt_render", {
            ts: eventTs(context),
            kind: "listing",
            keys,
            count: keys.length,
            chars: charCount(text),
          });
        }
        return text;
      },
    ),
    renderRelevant: (entries) => {
      try {
        checkArg(entries, "array", "renderRelevant: entries");
        for (const [i, e] of entries.entries()) checkArg(e, "object", `renderRelevant: entries[${i}]`);
        const text = renderRelevantBlock(entries);
        if (hub.wants("skill.prompt_render")) {
          const keys = entries.map((e) => e.key);
          const ts = eventTs(context);
          hub.emit("skill.prompt_render", { ts, kind: "relevant", keys, count: keys.length, chars: charCount(text) });
        }
        return text;
      } catch (err) {
        throw toLemonError(err);
      }
    },
    close,
    [Symbol.asyncDispose]: close,
  };
  internals.set(lemon, reg);
  return lemon;
}

/** The error every API rejects with, its code union, and the conversion of anything thrown into one. */
export { LemonError, toLemonError, type ErrorCode } from "./errors.ts";
/** lemon's version, and the target it was built for (`linux-x64` …; the host when run from source). */
export { VERSION, TARGET } from "./build-info.ts";
/** `createLemon`'s default env, and the SIGINT/SIGTERM/SIGHUP release of held locks and temp files. */
export { processEnv, installSignalCleanup } from "./context.ts";
/** Text hygiene for showing lemon's (untrusted) data on a terminal (cli.md §1.2). */
export { cell, charCount, clampChars, sanitizeMessage, stripAnsi, terminalText } from "./text.ts";
/** A skill key with its invisible and control characters written as `\uXXXX`, to show an invalid key. */
export { escapeKey } from "./skills/skill-key.ts";
/** Whether an entry belongs in a prompt listing (active or not ready, neither hidden nor superseded). */
export { isDisplayable } from "./skills/entry.ts";
/** The result limit `findRelevant` applies to a `maxResults` value. */
export { normaliseMaxResults } from "./skills/search/limits.ts";
/** An audit report as the CLI's JSON document, and one finding as its contract string. */
export { auditJson, formatFinding } from "./skills/audit/json.ts";
export type { Diagnostic } from "./diagnostics.ts";
export type { SkillEntry, SkillStatus, ActivationState } from "./skills/entry.ts";
export type { SkillList, ShadowedSkill, InvalidSkill, ToggleOptions, ToggleResult } from "./skills/registry.ts";
export type { CheckReport, SkillCheck, SkillInspection, InspectManifest } from "./skills/reports.ts";
export type { LintReport, LintResult, LintIssue } from "./skills/lint.ts";
export type { Scope } from "./paths.ts";
export type {
  CuratorManagerOptions,
  CuratorRunResult,
  CuratorStatus,
  SkillsCuratorApi,
} from "./skills/curator/wire.ts";
export type {
  LemonEvents,
  LemonEventMap,
  SkillLoadEvent,
  SkillWriteEvent,
  PromptRenderEvent,
  SkillLifecycleEvent,
  RefreshEvent,
  CuratorRunEvent,
} from "./skills/usage/events.ts";
export type { UsageRow } from "./skills/usage/report.ts";
export type { HermesCatalog, HermesEntry } from "./skills/online/hermes.ts";
export type {
  ContentBlock,
  JsonSchemaObject,
  ToolCallContext,
  ToolDefinition,
  ToolResult,
  ToolSource,
} from "./skills/tools/result.ts";
export type { ReadSkillDetails, ReadSkillParams, ReadSkillView } from "./skills/tools/read-skill.ts";
export type { ResolvedSkillUri } from "./skills/tools/skill-uri.ts";
export type { AuditReport } from "./skills/audit/engine.ts";
export type { Finding, Verdict } from "./schema/finding.ts";
export type { McpServerConfig, ServerView, McpConfigApi, McpAppConfig } from "./mcp/index.ts";
export type { McpTrustRequest, TrustMode } from "./mcp/index.ts";
export type {
  McpCallDetails,
  McpStatus,
  McpServerStatus,
  McpTestReport,
  McpToolApprovalRequest,
  ToolCallInfo,
  ToolPolicyDecision,
  ToolRegistry,
  ToolSources,
  Shadowed,
} from "./mcp/index.ts";
export type { SearchResult, SearchWarning } from "./skills/search/search.ts";
export type { CatalogChange } from "./skills/search/catalog-watch.ts";
export type { DiscoveryResponse, DiscoveryResult, DiscoveryWarning } from "./skills/online/discover.ts";
export type { ApprovalRequest, Approver } from "./skills/install/approval.ts";
export type {
  SamplingCallOptions,
  SamplingContent,
  SamplingDelegate,
  SamplingMessage,
  SamplingRequest,
  SamplingResult,
  SamplingSummary,
} from "./mcp/client/sampling.ts";
export type {
  InstallOptions,
  InstallResult,
  ListSourceOptions,
  UninstallOptions,
  UpdateOptions,
} from "./skills/install/api.ts";
export type { UpdateItem, UpdateResult } from "./skills/install/update.ts";
export type { LockRecord, LockAgent } from "./skills/lockfile.ts";
