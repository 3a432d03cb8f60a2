/**
 * @module skills/registry
 * The skills API of one lemon instance: list/get/status/refresh/enable/disable and prompt
 * rendering over discovery. The record cache lives here, on the instance, never on the module.
 */
import { withCwd, withTools, type LemonContext } from "../context.ts";
import { ONLINE_SEARCH_UNAVAILABLE, type SearchOptions, type SearchResult } from "./search/search.ts";
import { RelevanceEngine, type FindRelevantOptions } from "./search/relevance.ts";
import type { Diagnostic } from "../diagnostics.ts";
import { invalidParams } from "../errors.ts";
import { resolvePaths, type LemonPaths, type Scope } from "../paths.ts";
import type { Discovery, RecordCache, ScopeLoad, View } from "./catalog.ts";
import type { SkillRoot } from "./roots.ts";
import { byKey, toEntry, toStatus, type BinLookup, type SkillEntry, type SkillStatus } from "./entry.ts";
import { renderListing, renderRelevantBlock } from "./prompt.ts";
import type { LintAuditHook, LintReport, LintResult } from "./lint.ts";
import { notFound } from "../errors.ts";
import { checkReport, inspection, type CheckReport, type SkillInspection } from "./reports.ts";
import { resolve } from "node:path";
import type { AuditReport } from "./audit/engine.ts";

// The catalog (scan, SKILL.md parsing, TypeBox), settings, lint and messages load on first use:
// `findRelevant` against a current snapshot needs none of them, and it runs on every agent turn.
const catalog = () => import("./catalog.ts");
const settingsModule = () => import("./settings.ts");

export interface ShadowedSkill {
  key: string;
  path: string;
  shadowed_by: string;
  scope: Scope;
  root_label: string;
}

export interface InvalidSkill {
  key: string;
  path: string;
  code: string;
  message: string;
  scope: Scope;
  root_label: string;
}

export interface SkillList {
  skills: SkillEntry[];
  shadowed: ShadowedSkill[];
  invalid: InvalidSkill[];
  diagnostics: Diagnostic[];
}

export interface ListOptions {
  cwd?: string;
  refresh?: boolean;
  all?: boolean;
  scope?: Scope;
}

export interface CatalogView {
  ctx: LemonContext;
  /** The context's paths, resolved once per view. */
  paths: LemonPaths;
  discovery: Discovery;
  entries: SkillEntry[];
  diagnostics: Diagnostic[];
}


export const KEY_PATTERN = /^[^/\\\0]+$/;

export function assertKey(key: string): void {
  if (typeof key !== "string" || key === "" || key === "." || key === ".." || !KEY_PATTERN.test(key) || key.length > 255)
    throw invalidParams(`invalid skill key '${key}'`);
}

/** Options of `enable` / `disable`. */
export interface ToggleOptions {
  /** Project directory (default: the instance's cwd). */
  cwd?: string;
  /** Global scope (default true); false writes the project's `skills.json`. */
  global?: boolean;
  /**
   * Refuse a key no root holds with NOT_FOUND (default false: skills.md §3 records it for when the
   * skill appears). The CLI sets it unless `--force` (cli.md §2.15).
   */
  requireDiscovered?: boolean;
}

/** The result of `enable` / `disable`, as cli.md §2.15's JSON. */
export interface ToggleResult {
  key: string;
  scope: Scope;
  /** The `skills.json` written (or left unchanged). */
  file: string;
  /** The key's effective state after the change, both scopes considered. */
  enabled: boolean;
  changed: boolean;
  /** The other scope's file when it still decides otherwise. */
  effective_by?: string;
}

/** Options of a registry beyond its context. */
export interface RegistryOptions {
  /** Whether `check` reads `<agentDir>/config.toml` to report its problems (default true). */
  readConfigFile?: boolean;
}

export class SkillRegistry {
  readonly #ctx: LemonContext;
  readonly #cache: RecordCache = new Map();
  readonly #readConfigFile: boolean;

  constructor(ctx: LemonContext, opts: RegistryOptions = {}) {
    this.#ctx = ctx;
    this.#readConfigFile = opts.readConfigFile !== false;
  }

  /** Discovery plus live entries for a cwd and view (the shared base of every read command). */
  async view(opts: { cwd?: string; refresh?: boolean; scope?: Scope; tools?: readonly string[] | null } = {}): Promise<CatalogView> {
    const ctx = withTools(withCwd(this.#ctx, opts.cwd), opts.tools);
    if (opts.refresh) this.#cache.clear();
    const view: View = opts.scope === undefined ? "both" : opts.scope;
    const paths = resolvePaths(ctx);
    const [{ loadScope, resolvePrecedence, viewScopes }, { readSettings, effectiveDisabled }] = await Promise.all([catalog(), settingsModule()]);
    const settings = readSettings(ctx, paths);
    const scopes = viewScopes(ctx, view, paths);
    // A current search snapshot spares parsing every SKILL.md; `refresh` always reads the files.
    // The relevance store proves it current, so a listing and a findRelevant call within one
    // check interval stat the tree once. The registry composes the two: the catalog never
    // calls into search.
    const loads = await Promise.all(
      scopes.map(async (roots) => (opts.refresh ? null : await this.#fromSnapshot(roots, paths)) ?? loadScope(roots, this.#cache)),
    );
    const discovery = resolvePrecedence(view, scopes, loads);
    const disabled = effectiveDisabled(settings, view);
    const bins: BinLookup = new Map();
    const entries = [...discovery.effective.values()].map((r) => toEntry(r, ctx, disabled, undefined, bins)).sort(byKey);
    return { ctx, paths, discovery, entries, diagnostics: [...discovery.diagnostics, ...settings.diagnostics] };
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

  async list(opts: ListOptions = {}): Promise<SkillList> {
    const v = await this.view(opts);
    const d = v.discovery;
    return {
      skills: v.entries,
      shadowed: opts.all
        ? d.shadowed
            .map((s) => ({
              key: s.record.candidate.key,
              path: s.record.candidate.path,
              shadowed_by: s.by.candidate.path,
              scope: s.record.candidate.root.scope,
              root_label: s.record.candidate.root.label,
            }))
            .sort(byKey)
        : [],
      invalid: opts.all
        ? d.invalid
            .map((r) => ({
              key: r.candidate.key,
              path: r.candidate.path,
              code: r.code,
              message: r.message,
              scope: r.candidate.root.scope,
              root_label: r.candidate.root.label,
            }))
            .sort(byKey)
        : [],
      diagnostics: v.diagnostics,
    };
  }

  async get(key: string, opts: { cwd?: string; refresh?: boolean } = {}): Promise<SkillEntry | null> {
    const v = await this.view(opts);
    return v.entries.find((e) => e.key === key) ?? null;
  }

  async status(key: string, opts: { cwd?: string } = {}): Promise<SkillStatus | null> {
    const e = await this.get(key, opts);
    return e ? toStatus(e, this.#ctx.platform) : null;
  }

  /** Forgets parsed files and makes the next relevance call rebuild its snapshots (skills.md §7.3). */
  async refresh(_opts: { cwd?: string } = {}): Promise<void> {
    this.#cache.clear();
    this.#refreshRelevance = true;
  }

  /** Removes the key from the scope's disabled list (skills.md §3); see {@link ToggleOptions}. */
  async enable(key: string, opts: ToggleOptions = {}): Promise<ToggleResult> {
    return this.#toggle(key, true, opts);
  }

  /** Adds the key to the scope's disabled list (skills.md §3); see {@link ToggleOptions}. */
  async disable(key: string, opts: ToggleOptions = {}): Promise<ToggleResult> {
    return this.#toggle(key, false, opts);
  }

  async #toggle(key: string, enabled: boolean, opts: ToggleOptions): Promise<ToggleResult> {
    assertKey(key);
    const ctx = withCwd(this.#ctx, opts.cwd);
    const scope: Scope = opts.global === false ? "project" : "global";
    const { discovery } = await this.view({ cwd: opts.cwd });
    // The scope whose skill the key names decides how a failing-closed file applies to it.
    const found = [
      ...discovery.effective.values(),
      ...discovery.shadowed.map((s) => s.record),
      ...discovery.invalid,
    ].filter((r) => r.candidate.key === key);
    if (found.length === 0 && opts.requireDiscovered === true)
      throw notFound(`skill '${key}' not found; use --force to record it anyway`);
    const { setEnabled, readSettings, keyState } = await settingsModule();
    const write = await setEnabled(ctx, key, enabled, scope);
    const keyScope = discovery.effective.get(key)?.candidate.root.scope ?? found[0]?.candidate.root.scope ?? "global";
    const state = keyState(readSettings(ctx), key, keyScope);
    return {
      key,
      scope,
      file: write.file,
      enabled: state.enabled,
      changed: write.changed,
      ...(state.enabled !== enabled && state.file !== null && state.file !== write.file ? { effective_by: state.file } : {}),
    };
  }

  async renderPrompt(opts: { cwd?: string } = {}): Promise<string> {
    const v = await this.view(opts);
    return renderListing(v.entries);
  }

  /**
   * Lints PATH arguments (relative to the cwd), or every discovered skill of the cwd (valid,
   * shadowed and invalid) when there are none (skills.md §15.1). `strict` (default false) fails
   * on warnings; `audit` (default true) adds the security audit's verdict.
   */
  async lint(paths: readonly string[] = [], opts: { cwd?: string; strict?: boolean; audit?: boolean } = {}): Promise<LintReport> {
    const strict = opts.strict === true;
    const ctx = withCwd(this.#ctx, opts.cwd);
    const [{ expandLintPath, lintSkillDir, summarise }, { MSG }] = await Promise.all([import("./lint.ts"), import("./messages.ts")]);
    // The audit depends on lint (its lint rule), never the other way: lint gets the verdict here.
    const audit: LintAuditHook | undefined = opts.audit === false ? undefined : (await import("./audit/engine.ts")).auditForLint;
    const results: LintResult[] = [];
    const lintOpts = { strict, ...(audit ? { audit } : {}) };
    if (paths.length === 0) {
      const v = await this.view({ cwd: opts.cwd });
      const dirs = [
        ...[...v.discovery.effective.values()].map((r) => r.candidate.path),
        ...v.discovery.shadowed.map((s) => s.record.candidate.path),
        ...v.discovery.invalid.map((r) => r.candidate.path),
      ];
      for (const d of dirs) results.push(await lintSkillDir(d, lintOpts));
    } else {
      for (const raw of paths) {
        const abs = resolve(ctx.cwd, raw);
        const { dirs, unreadable } = expandLintPath(abs);
        if (unreadable === "ENOENT" || unreadable === "ENOTDIR")
          throw invalidParams(`${raw}: ${unreadable === "ENOENT" ? "no such directory" : "not a directory"}`);
        if (unreadable !== null) {
          results.push({
            key: raw,
            path: abs,
            valid: false,
            issues: [{ code: "directory_unreadable", severity: "error", message: MSG.lintDirUnreadable(raw, unreadable), file: ".", line: 1 }],
          });
          continue;
        }
        for (const d of dirs) results.push(await lintSkillDir(d, lintOpts));
      }
    }
    return summarise(results, strict);
  }

  /** check-style readiness and validity for one key (NOT_FOUND if unknown) or every discovered skill (skills.md §15.2). */
  async check(key?: string, opts: { cwd?: string; tools?: readonly string[] | null } = {}): Promise<CheckReport> {
    const v = await this.view(opts);
    // config.toml problems are reported (skills.md §1.1) but never fail the check: the file is ignored.
    const config = this.#readConfigFile ? await (await import("./config-check.ts")).checkConfigFile(v.paths.configToml) : [];
    return checkReport(v.discovery, v.entries, [...v.diagnostics, ...config], key);
  }

  /** Everything about one effective skill, with its current bundle hash (cli.md §2.3). */
  async inspect(key: string, opts: { cwd?: string; tools?: readonly string[] | null } = {}): Promise<SkillInspection> {
    const v = await this.view(opts);
    const { computeBundleHash } = await import("./audit/bundle.ts");
    return inspection(v.discovery, v.entries, key, (dir) => computeBundleHash(dir));
  }

  /** The security audit of a skill key or a skill directory (install.md §7). */
  async audit(target: string, opts: { cwd?: string; force?: boolean } = {}): Promise<AuditReport> {
    const ctx = withCwd(this.#ctx, opts.cwd);
    const { auditTarget } = await import("./audit/target.ts");
    return auditTarget(ctx, target, async () => (await this.view({ cwd: opts.cwd })).entries, {
      ...(opts.force !== undefined ? { force: opts.force } : {}),
    });
  }

  renderRelevant(entries: readonly SkillEntry[]): string {
    return renderRelevantBlock(entries);
  }

  // Relevance (skills.md §7): snapshots and the worker hang off this instance.
  #relevance: RelevanceEngine | null = null;
  /** Set by refresh(): the next findRelevant bypasses the check interval and rebuilds. */
  #refreshRelevance = false;

  /** The relevance engine of this instance, created on first use. */
  relevance(): RelevanceEngine {
    return (this.#relevance ??= new RelevanceEngine(this.#ctx));
  }

  /** The skills most relevant to a request (skills.md §7.1). */
  async findRelevant(query: string, opts: FindRelevantOptions & { cwd?: string; tools?: readonly string[] | null } = {}): Promise<SkillEntry[]> {
    const ctx = withTools(withCwd(this.#ctx, opts.cwd), opts.tools);
    const refresh = opts.refresh === true || this.#refreshRelevance;
    this.#refreshRelevance = false;
    return this.relevance().findRelevant(ctx, query, { ...opts, refresh });
  }

  /** Local and online search (skills.md §7.4); the online part is not built yet. */
  async search(query: string, opts: SearchOptions = {}): Promise<SearchResult> {
    const local = await this.findRelevant(query, { maxResults: opts.maxLocal ?? 5, cwd: opts.cwd, tools: opts.tools });
    const warnings = opts.online === false ? [] : [{ source: "online", message: ONLINE_SEARCH_UNAVAILABLE }];
    return { local, online: [], warnings };
  }

  /** Stops the snapshot worker, waits for snapshot writes in flight and drops mapped snapshots. */
  async close(): Promise<void> {
    const engine = this.#relevance;
    this.#relevance = null;
    await engine?.close();
  }
}
