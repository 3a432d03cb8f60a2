/**
 * @module mcp/effective
 * The effective server set (mcp.md §2): first claim of a name wins (a disabled entry still
 * claims it, unnamed lemon entries are additive), then the enable/disable decision per server:
 * master switch and top-level `enabled`, lemon lists (project file first, denylist wins inside a
 * file, `enabled_servers` beats an entry's own `enabled: false`), omp's lists for imports, and
 * finally the entry itself.
 */
import type { LemonContext } from "../context.ts";
import { diagnostic, type Diagnostic } from "../diagnostics.ts";
import { firstClaimWins } from "../merge.ts";
import type { Scope } from "../paths.ts";
import { expandEntry } from "./expand.ts";
import type { ServerLists } from "./importers/common.ts";
import type { LemonFile } from "./lemon-sources.ts";
import { unnamedSlug } from "./names.ts";
import { loadSources } from "./sources.ts";
import type { McpConfigOptions } from "./settings.ts";
import type { Approval, SourcedServer, Transport } from "./types.ts";
import { approvalOf } from "./view.ts";

export interface EffectiveServer {
  /** The configured name, or `<slug>#<n>` for an unnamed entry. */
  name: string;
  named: boolean;
  source: string;
  type: Transport;
  enabled: boolean;
  disabled_by: string | null;
  approval: Approval;
  shadowed: { source: string }[];
  /** `unresolved variable <VAR>` (names only). */
  warnings: string[];
  /** The full entry (internal; never printed). */
  server: SourcedServer;
}

export interface EffectiveSet {
  scope: Scope;
  /** Master switch (env, config.toml, module option). */
  disabled: boolean;
  /** Top-level `enabled` of the lemon files (project over global). */
  enabled: boolean;
  servers: EffectiveServer[];
  diagnostics: Diagnostic[];
  project: LemonFile | null;
  global: LemonFile;
}

type Decision = { enabled: boolean; by: string | null } | null;

function fromLemonFile(file: LemonFile | null, name: string): Decision {
  const doc = file?.doc;
  if (!file || !doc) return null;
  if (doc.disabled_servers?.includes(name)) return { enabled: false, by: `${file.label} disabled_servers` };
  if (doc.enabled_servers?.includes(name)) return { enabled: true, by: null };
  return null;
}

function fromOmp(lists: ServerLists[], name: string): Decision {
  for (const l of lists) {
    if (l.disabled.includes(name)) return { enabled: false, by: "omp disabledServers" };
    if (l.enabled.includes(name)) return { enabled: true, by: null };
  }
  return null;
}

export async function effectiveServers(ctx: LemonContext, opts: McpConfigOptions, scope: Scope): Promise<EffectiveSet> {
  const loaded = await loadSources(ctx, opts, scope);
  const diagnostics = [...loaded.diagnostics];
  const topEnabled = loaded.project?.doc?.enabled ?? loaded.global.doc?.enabled ?? true;
  const mcpOff = loaded.settings.disabled || !topEnabled;
  const slugCounts = new Map<string, number>();
  const vars = { env: ctx.env, cwd: ctx.cwd, homeDir: ctx.homeDir };

  const servers = firstClaimWins(loaded.servers, (s) => s.name).map(({ item, shadowed }): EffectiveServer => {
    let name = item.name;
    if (name === undefined) {
      const slug = unnamedSlug(item.entry);
      const n = (slugCounts.get(slug) ?? 0) + 1;
      slugCounts.set(slug, n);
      name = `${slug}#${n}`;
    }
    for (const s of shadowed)
      if (s.source === item.source)
        diagnostics.push(
          diagnostic("warn", "duplicate_name", `duplicate server name '${name}'; the first entry wins`, {
            source: s.source,
            key: name,
            ...(s.file !== undefined ? { path: s.file } : {}),
          }),
        );
    let decision: Decision = null;
    if (mcpOff) decision = { enabled: false, by: "mcp disabled" };
    else if (item.name !== undefined) {
      decision = fromLemonFile(loaded.project, item.name) ?? fromLemonFile(loaded.global, item.name);
      if (decision === null && item.imported) decision = fromOmp(loaded.serverLists, item.name);
    }
    decision ??= item.entry.enabled === false ? { enabled: false, by: "entry" } : { enabled: true, by: null };
    const expanded = expandEntry(item.entry, item.vars, vars).warnings;
    for (const w of expanded)
      diagnostics.push(
        diagnostic("warn", "unresolved_variable", `server '${name}': ${w}`, { source: item.source, key: name }),
      );
    return {
      name,
      named: item.name !== undefined,
      source: item.source,
      type: item.transport,
      enabled: decision.enabled,
      disabled_by: decision.enabled ? null : decision.by,
      approval: approvalOf(item.entry),
      shadowed: shadowed.map((s) => ({ source: s.source })),
      warnings: [...(item.warnings ?? []), ...expanded],
      server: item,
    };
  });
  return {
    scope,
    disabled: loaded.settings.disabled,
    enabled: topEnabled,
    servers,
    diagnostics,
    project: loaded.project,
    global: loaded.global,
  };
}

/**
 * What `list --all` shows of an effective server (cli.md §3.2): never its command, URL or values.
 * `trust` is mcp.md §4.4's: null for the user's own sources.
 */
export function serverSummary(s: EffectiveServer, trust: "trusted" | "untrusted" | null) {
  return {
    name: s.name,
    source: s.source,
    type: s.type,
    enabled: s.enabled,
    disabled_by: s.disabled_by,
    approval: s.approval,
    shadowed: s.shadowed,
    warnings: s.warnings,
    trust,
  };
}
