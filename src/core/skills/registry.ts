/**
 * @module skills/registry
 * The skills API of one lemon instance: list/get/status/refresh/enable/disable and prompt
 * rendering over discovery. The record cache lives here, on the instance, never on the module.
 */
import { withCwd, type LemonContext } from "../context.ts";
import type { Diagnostic } from "../diagnostics.ts";
import { invalidParams } from "../errors.ts";
import type { Scope } from "../paths.ts";
import { discover, type Discovery, type RecordCache, type View } from "./catalog.ts";
import { toEntry, toStatus, type SkillEntry, type SkillStatus } from "./entry.ts";
import { renderListing, renderRelevantBlock } from "./prompt.ts";
import { effectiveDisabled, readSettings, setEnabled, type ToggleResult } from "./settings.ts";

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
  discovery: Discovery;
  entries: SkillEntry[];
  diagnostics: Diagnostic[];
}

const byKey = <T extends { key: string }>(a: T, b: T) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);

export const KEY_PATTERN = /^[^/\\\0]+$/;

export function assertKey(key: string): void {
  if (typeof key !== "string" || key === "" || key === "." || key === ".." || !KEY_PATTERN.test(key) || key.length > 255)
    throw invalidParams(`invalid skill key '${key}'`);
}

export class SkillRegistry {
  readonly #ctx: LemonContext;
  readonly #cache: RecordCache = new Map();

  constructor(ctx: LemonContext) {
    this.#ctx = ctx;
  }

  /** Discovery plus live entries for a cwd and view (the shared base of every read command). */
  async view(opts: { cwd?: string; refresh?: boolean; scope?: Scope; tools?: readonly string[] | null } = {}): Promise<CatalogView> {
    let ctx = withCwd(this.#ctx, opts.cwd);
    if (opts.tools !== undefined) ctx = Object.freeze({ ...ctx, availableTools: opts.tools });
    if (opts.refresh) this.#cache.clear();
    const view: View = opts.scope === undefined ? "both" : opts.scope;
    const [discovery, settings] = await Promise.all([discover(ctx, view, this.#cache), readSettings(ctx)]);
    const disabled = effectiveDisabled(settings, view);
    const entries = [...discovery.effective.values()].map((r) => toEntry(r, ctx, disabled)).sort(byKey);
    return { ctx, discovery, entries, diagnostics: [...discovery.diagnostics, ...settings.diagnostics] };
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

  async refresh(_opts: { cwd?: string } = {}): Promise<void> {
    this.#cache.clear();
  }

  async enable(key: string, opts: { cwd?: string; global?: boolean } = {}): Promise<ToggleResult> {
    assertKey(key);
    return setEnabled(withCwd(this.#ctx, opts.cwd), key, true, opts.global === false ? "project" : "global");
  }

  async disable(key: string, opts: { cwd?: string; global?: boolean } = {}): Promise<ToggleResult> {
    assertKey(key);
    return setEnabled(withCwd(this.#ctx, opts.cwd), key, false, opts.global === false ? "project" : "global");
  }

  async renderPrompt(opts: { cwd?: string } = {}): Promise<string> {
    const v = await this.view(opts);
    return renderListing(v.entries);
  }

  renderRelevant(entries: readonly SkillEntry[]): string {
    return renderRelevantBlock(entries);
  }
}
