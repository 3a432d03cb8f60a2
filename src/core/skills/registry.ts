/**
 * @module skills/registry
 * The skills API of one lemon instance: list/get/status/refresh/enable/disable, lint, check,
 * inspect, audit, relevance and prompt rendering over discovery (enable/disable in toggle.ts,
 * install/update/uninstall in install/api.ts). It composes the layers below it (the catalog,
 * search, the audit), which never call each other back. The record cache and the relevance
 * engine live here, on the instance, never on a module.
 */
import { resolve } from "node:path";
import { withCwd, withTools, type LemonContext } from "../context.ts";
import type { Diagnostic } from "../diagnostics.ts";
import { stateDirProblem } from "../fsx/state-dir.ts";
import { resolvePaths, type LemonPaths, type Scope } from "../paths.ts";
import type { AuditReport } from "./audit/engine.ts";
import type { Discovery, RecordCache, ScopeLoad, View } from "./catalog.ts";
import { byKey, toEntry, toStatus, type BinLookup, type SkillEntry, type SkillStatus } from "./entry.ts";
import type { LintReport } from "./lint.ts";
import { renderListing, renderRelevantBlock } from "./prompt.ts";
import { checkReport, inspection, type CheckReport, type SkillInspection } from "./reports.ts";
import type { ScopeLock } from "./provenance.ts";
import type { SkillRoot } from "./roots.ts";
import type { ApprovalRequest } from "./install/approval.ts";
import type { DeepPartialSkills } from "./skills-config.ts";
import type {
  InstallOptions,
  LifecycleEvents,
  ListSourceOptions,
  UninstallOptions,
  UpdateOptions,
} from "./install/api.ts";
import { everyRecord, toggleSkill, type ToggleOptions, type ToggleResult } from "./toggle.ts";
import { RelevanceEngine, type FindRelevantOptions } from "./search/relevance.ts";
import type { SearchOptions, SearchResult } from "./search/search.ts";

// The catalog (scan, SKILL.md parsing, TypeBox), settings, lint and messages load on first use:
// `findRelevant` against a current snapshot needs none of them, and it runs on every agent turn.
const catalog = () => import("./catalog.ts");
const settingsModule = () => import("./settings.ts");
const lifecycle = () => import("./install/api.ts");

export type { ToggleOptions, ToggleResult } from "./toggle.ts";

/** A skill hidden by a higher-precedence one with the same key (`list --all`, cli.md §2.1). */
export interface ShadowedSkill {
  key: string;
  path: string;
  /** Path of the skill directory that wins. */
  shadowed_by: string;
  scope: Scope;
  root_label: string;
}

/** A SKILL.md that is not valid (`list --all`): its §2.3 code and message. */
export interface InvalidSkill {
  key: string;
  path: string;
  code: string;
  message: string;
  scope: Scope;
  root_label: string;
}

/** `skills.list` (cli.md §2.1 without `ok`/`cwd`); `shadowed` and `invalid` are empty unless `all`. */
export interface SkillList {
  skills: SkillEntry[];
  shadowed: ShadowedSkill[];
  invalid: InvalidSkill[];
  diagnostics: Diagnostic[];
}

/** Options of `skills.list`. */
export interface ListOptions {
  /** Project directory (default: the instance's cwd). */
  cwd?: string;
  /** Re-read every SKILL.md instead of trusting caches and snapshots (default false). */
  refresh?: boolean;
  /** Include shadowed and invalid skills (default false). */
  all?: boolean;
  /** One scope only (default: both, project first). */
  scope?: Scope;
}

/** Options shared by the read commands over one view. */
export interface ViewOptions {
  /** Project directory (default: the instance's cwd). */
  cwd?: string;
  /** Re-read every SKILL.md (default false). */
  refresh?: boolean;
  /** One scope only (default: both). */
  scope?: Scope;
  /** Agent tool names for `requires_tools` (default: the instance's `availableTools`). */
  tools?: readonly string[] | null;
}

/** Discovery plus live entries for one cwd and view: the base of every read command. */
export interface CatalogView {
  ctx: LemonContext;
  /** The context's paths, resolved once per view. */
  paths: LemonPaths;
  discovery: Discovery;
  /** Effective skills as Entries, sorted by key. */
  entries: SkillEntry[];
  diagnostics: Diagnostic[];
  /** The lockfiles of the view's scopes (install.md §6), project first. */
  locks: ScopeLock[];
}

/** Options of `lint`. */
export interface LintCallOptions {
  /** Project directory PATHs are resolved against (default: the instance's cwd). */
  cwd?: string;
  /** Warnings fail a skill too (default false). */
  strict?: boolean;
  /** Add the security audit's `audit_warn` / `audit_block` (default true). */
  audit?: boolean;
}

/** Options of a registry beyond its context. */
export interface RegistryOptions {
  /** Whether `check` reads `<agentDir>/config.toml` to report its problems (default true). */
  readConfigFile?: boolean;
  /** Answers install/update/uninstall approvals (cli.md §7 `approve`); default: deny. */
  approve?: (request: ApprovalRequest) => Promise<boolean>;
  /** Where `skill.install` / `skill.update` / `skill.uninstall` events go (the instance's hub). */
  events?: LifecycleEvents;
  /** createLemon's `config.skills`: a registry URL given there wins over the env (install.md §4.4). */
  skillsConfig?: DeepPartialSkills;
}

const shadowedOf = (d: Discovery): ShadowedSkill[] =>
  d.shadowed
    .map((s) => ({
      key: s.record.candidate.key,
      path: s.record.candidate.path,
      shadowed_by: s.by.candidate.path,
      scope: s.record.candidate.root.scope,
      root_label: s.record.candidate.root.label,
    }))
    .sort(byKey);

const invalidOf = (d: Discovery): InvalidSkill[] =>
  d.invalid
    .map((r) => ({
      key: r.candidate.key,
      path: r.candidate.path,
      code: r.code,
      message: r.message,
      scope: r.candidate.root.scope,
      root_label: r.candidate.root.label,
    }))
    .sort(byKey);

/** The skills of one lemon instance; every method takes `cwd` (default: the instance's). */
export class SkillRegistry {
  readonly #ctx: LemonContext;
  readonly #cache: RecordCache = new Map();
  readonly #readConfigFile: boolean;
  readonly #approve: RegistryOptions["approve"];
  readonly #events: RegistryOptions["events"];
  readonly #skillsConfig: RegistryOptions["skillsConfig"];

  constructor(ctx: LemonContext, opts: RegistryOptions = {}) {
    this.#ctx = ctx;
    this.#readConfigFile = opts.readConfigFile !== false;
    this.#approve = opts.approve;
    this.#events = opts.events;
    this.#skillsConfig = opts.skillsConfig;
  }

  // Install, update and uninstall (install.md §5, §9, §10) live in install/api.ts.
  #host = () => ({
    ctx: this.#ctx,
    approve: this.#approve,
    registry: this,
    events: this.#events,
    online: {
      readConfigFile: this.#readConfigFile,
      ...(this.#skillsConfig !== undefined ? { config: this.#skillsConfig } : {}),
    },
  });
  install = async (source: string, o?: InstallOptions) => (await lifecycle()).install(this.#host(), source, o);
  listSource = async (source: string, o?: ListSourceOptions) => (await lifecycle()).listSource(this.#host(), source, o);
  update = async (key: string, o?: UpdateOptions) => (await lifecycle()).update(this.#host(), key, o);
  updateMany = async (keys: string[] | "all", o?: UpdateOptions) =>
    (await lifecycle()).updateMany(this.#host(), keys, o);
  uninstall = async (key: string, o?: UninstallOptions) => (await lifecycle()).uninstall(this.#host(), key, o);

  /** Discovery plus live entries for a cwd and view (the shared base of every read command). */
  async view(opts: ViewOptions = {}): Promise<CatalogView> {
    const ctx = withTools(withCwd(this.#ctx, opts.cwd), opts.tools);
    if (opts.refresh) {
      this.#cache.clear();
      this.#lockReads?.clear();
    }
    const view: View = opts.scope === undefined ? "both" : opts.scope;
    const paths = resolvePaths(ctx);
    const [{ loadScope, resolvePrecedence, viewScopes }, settingsApi, prov] = await Promise.all([
      catalog(),
      settingsModule(),
      import("./provenance.ts"),
    ]);
    const settings = await settingsApi.readSettings(ctx, paths);
    const scopes = viewScopes(ctx, view, paths);
    // A current search snapshot spares parsing every SKILL.md; `refresh` always reads the files.
    // The relevance store proves it current, so a listing and a findRelevant call within one
    // check interval stat the tree once. The registry composes the two: the catalog never
    // calls into search.
    const load = async (roots: SkillRoot[]) =>
      (opts.refresh ? null : await this.#fromSnapshot(roots, paths)) ?? loadScope(roots, this.#cache);
    const loads = await Promise.all(scopes.map(load));
    const discovery = resolvePrecedence(view, scopes, loads);
    // Read live on every view: a snapshot proves SKILL.md files current, not what the lock says.
    const lockScopes: Scope[] = view === "both" ? ["project", "global"] : [view];
    const lockFiles = { project: paths.project.lockfile, global: paths.global.lockfile };
    this.#lockReads ??= new prov.LockReads();
    const locks = await prov.viewLocks(ctx, lockFiles, lockScopes, discovery.effective, this.#lockReads);
    const disabled = settingsApi.effectiveDisabled(settings, view);
    const bins: BinLookup = new Map();
    const entries = [...discovery.effective.values()]
      .map((r) => toEntry(r, ctx, disabled, prov.provenanceIn(locks, r.candidate), bins))
      .sort(byKey);
    const stateDir = view !== "global" ? stateDirProblem(paths.project.stateDir) : null;
    const lockProblems = locks.flatMap((l) => (l.diagnostic ? [l.diagnostic] : []));
    const diagnostics = [
      ...(stateDir ? [stateDir] : []),
      ...discovery.diagnostics,
      ...settings.diagnostics,
      ...lockProblems,
    ];
    return { ctx, paths, discovery, entries, diagnostics, locks };
  }

  /** A scope's load from its search snapshot when the relevance store proves it current; else null. */
  async #fromSnapshot(roots: SkillRoot[], paths: LemonPaths): Promise<ScopeLoad | null> {
    if (roots.length === 0) return null;
    const lockfile = roots[0]!.scope === "global" ? paths.global.lockfile : paths.project.lockfile;
    const current = await this.relevance().store.peek({ roots, lockfile });
    if (!current) return null;
    const { scopeFromSnapshot } = await import("./search/listing.ts");
    return scopeFromSnapshot(current.snap, current.identity, this.#cache);
  }

  /** Effective skills of the cwd (skills.md §2.1), plus shadowed and invalid ones with `all`. */
  async list(opts: ListOptions = {}): Promise<SkillList> {
    const v = await this.view(opts);
    const all = opts.all === true;
    return {
      skills: v.entries,
      shadowed: all ? shadowedOf(v.discovery) : [],
      invalid: all ? invalidOf(v.discovery) : [],
      diagnostics: v.diagnostics,
    };
  }

  /**
   * One effective skill's Entry, or null. Without `refresh`, the one-key lookup the agent tools use
   * (tools/lookup.ts: the key's candidates only, resolved with the listing's precedence, settings
   * and lockfiles) instead of building every Entry of a listing: a long-lived server asking for one
   * key per request would otherwise pay a whole listing each time.
   */
  async get(key: string, opts: { cwd?: string; refresh?: boolean } = {}): Promise<SkillEntry | null> {
    if (opts.refresh !== true) {
      const { lookupKey } = await import("./tools/lookup.ts");
      const found = await lookupKey(this, withCwd(this.#ctx, opts.cwd), key, this.#cache);
      return found?.entry ?? null;
    }
    const v = await this.view(opts);
    return v.entries.find((e) => e.key === key) ?? null;
  }

  /** Live readiness of one effective skill (cli.md §7 `SkillStatus`), or null. */
  async status(key: string, opts: { cwd?: string } = {}): Promise<SkillStatus | null> {
    const e = await this.get(key, opts);
    return e ? toStatus(e, this.#ctx.platform) : null;
  }

  /** Forgets parsed files and makes the next relevance call rebuild its snapshots (skills.md §7.3). */
  async refresh(_opts: { cwd?: string } = {}): Promise<void> {
    this.#cache.clear();
    this.#lockReads?.clear();
    this.#refreshRelevance = true;
    // Listings and lookups peek at the snapshot without the flag above: they must check too.
    this.#relevance?.store.forgetChecks();
  }

  /** Removes the key from the scope's disabled list (skills.md §3); see {@link ToggleOptions}. */
  async enable(key: string, opts: ToggleOptions = {}): Promise<ToggleResult> {
    return toggleSkill(this.#ctx, key, true, opts, this.#discover(opts.cwd));
  }

  /** Adds the key to the scope's disabled list (skills.md §3); see {@link ToggleOptions}. */
  async disable(key: string, opts: ToggleOptions = {}): Promise<ToggleResult> {
    return toggleSkill(this.#ctx, key, false, opts, this.#discover(opts.cwd));
  }

  #discover = (cwd: string | undefined) => async () => (await this.view({ cwd })).discovery;

  /** The stable skill listing for the system prompt (skills.md §6.2); "" when nothing is displayable. */
  async renderPrompt(opts: { cwd?: string } = {}): Promise<string> {
    const v = await this.view(opts);
    return renderListing(v.entries);
  }

  /**
   * Lints PATH arguments (relative to the cwd), or every discovered skill of the cwd (valid,
   * shadowed and invalid) when there are none (skills.md §15.1).
   */
  async lint(paths: readonly string[] = [], opts: LintCallOptions = {}): Promise<LintReport> {
    const { lintRun } = await import("./lint.ts");
    // The audit depends on lint (its lint rule), never the other way: lint gets the verdict here.
    const audit = opts.audit === false ? undefined : (await import("./audit/engine.ts")).auditForLint;
    const lintOpts = { strict: opts.strict === true, ...(audit ? { audit } : {}) };
    if (paths.length > 0) return lintRun({ cwd: resolve(withCwd(this.#ctx, opts.cwd).cwd), paths }, lintOpts);
    const d = (await this.view({ cwd: opts.cwd })).discovery;
    return lintRun({ dirs: everyRecord(d).map((r) => r.candidate.path) }, lintOpts);
  }

  /** check-style readiness and validity of one key (NOT_FOUND if unknown) or of every skill (skills.md §15.2). */
  async check(key?: string, opts: ViewOptions = {}): Promise<CheckReport> {
    const v = await this.view(opts);
    // config.toml problems are reported (skills.md §1.1) but never fail the check: the file is ignored.
    const config = this.#readConfigFile
      ? await (await import("./config-check.ts")).checkConfigFile(v.paths.configToml)
      : [];
    const prov = await import("./provenance.ts");
    return checkReport(v.discovery, v.entries, [...v.diagnostics, ...config], key, {
      record: (e) => this.#recordOf(v, e, prov.recordIn),
      bundleHash: prov.currentBundleHash,
    });
  }

  /** Parsed lockfiles by stat fingerprint; created with the first view (provenance.ts loads lazily). */
  #lockReads: import("./provenance.ts").LockReads | null = null;

  /** The lock record of an effective entry, matched by key and location in its own scope. */
  #recordOf(v: CatalogView, e: SkillEntry, recordIn: typeof import("./provenance.ts").recordIn) {
    const rec = v.discovery.effective.get(e.key);
    return rec ? recordIn(v.locks, rec.candidate) : null;
  }

  /** Everything about one effective skill, with its current bundle hash (cli.md §2.3). */
  async inspect(key: string, opts: ViewOptions = {}): Promise<SkillInspection> {
    const v = await this.view(opts);
    const [{ computeBundleHash }, prov] = await Promise.all([import("./bundle.ts"), import("./provenance.ts")]);
    return inspection(
      v.discovery,
      v.entries,
      key,
      (dir) => computeBundleHash(dir),
      (e) => this.#recordOf(v, e, prov.recordIn),
    );
  }

  /** The security audit of a skill key or directory (install.md §7); `force` (default false) skips the cache. */
  async audit(target: string, opts: { cwd?: string; force?: boolean } = {}): Promise<AuditReport> {
    const ctx = withCwd(this.#ctx, opts.cwd);
    const { auditTarget } = await import("./audit/target.ts");
    return auditTarget(ctx, target, async () => (await this.view({ cwd: opts.cwd })).entries, {
      ...(opts.force !== undefined ? { force: opts.force } : {}),
    });
  }

  /** The per-turn relevant block for entries (skills.md §6.3); "" for none. */
  renderRelevant(entries: readonly SkillEntry[]): string {
    return renderRelevantBlock(entries);
  }

  // Relevance (skills.md §7): snapshots and the worker hang off this instance.
  #relevance: RelevanceEngine | null = null;
  #closed = false;
  /** Set by refresh(): the next findRelevant bypasses the check interval and rebuilds. */
  #refreshRelevance = false;

  /** The relevance engine of this instance, created on first use. */
  relevance(): RelevanceEngine {
    // After close() the engine comes back for calls, never with watches (nothing would release them).
    return (this.#relevance ??= new RelevanceEngine(this.#ctx, this.#closed ? { watch: "never" } : {}));
  }

  /** The skills most relevant to a request (skills.md §7.1). */
  async findRelevant(
    query: string,
    opts: FindRelevantOptions & { cwd?: string; tools?: readonly string[] | null } = {},
  ): Promise<SkillEntry[]> {
    const ctx = withTools(withCwd(this.#ctx, opts.cwd), opts.tools);
    const refresh = opts.refresh === true || this.#refreshRelevance;
    this.#refreshRelevance = false;
    return this.relevance().findRelevant(ctx, query, { ...opts, refresh });
  }

  /** The local half of search (skills.md §7.4); createLemon's `skills.search` adds discovery. */
  async search(query: string, opts: SearchOptions = {}): Promise<SearchResult> {
    const local = await this.findRelevant(query, { maxResults: opts.maxLocal ?? 5, cwd: opts.cwd, tools: opts.tools });
    return { local, online: [], warnings: [] };
  }

  /** Stops the snapshot worker, waits for snapshot writes in flight and drops mapped snapshots. */
  async close(): Promise<void> {
    const engine = this.#relevance;
    this.#closed = true;
    this.#relevance = null;
    await engine?.close();
  }
}
