/**
 * @module mcp/sources
 * Every configuration source in precedence order (mcp.md §2.1): lemon's project and global files,
 * `LEMON_MCP_SERVERS`, `[[mcp.servers]]`, then the nine importers of §4.1 as data. Sources load
 * in parallel and are concatenated in order; `effective.ts` applies first-claim-wins.
 */
import { isAbsolute, resolve } from "node:path";
import type { LemonContext } from "../context.ts";
import { resolvePaths, type Scope } from "../paths.ts";
import { diagnostic, type Diagnostic } from "../diagnostics.ts";
import { LOCATION_VARS, type FileSet, type ImportEnv, type Importer, type ServerLists } from "./importers/common.ts";
import { claude } from "./importers/claude.ts";
import { codex } from "./importers/codex.ts";
import { cursor } from "./importers/cursor.ts";
import { gemini } from "./importers/gemini.ts";
import { mcpJson } from "./importers/mcp-json.ts";
import { omp } from "./importers/omp.ts";
import { opencode } from "./importers/opencode.ts";
import { vscode } from "./importers/vscode.ts";
import { windsurf } from "./importers/windsurf.ts";
import { readEnvSource, readLemonFile, sourceEntries, type LemonFile } from "./lemon-sources.ts";
import { resolveSettings, type McpConfigOptions, type McpSettings } from "./settings.ts";
import type { SourcedServer } from "./types.ts";

/** The importers in the order of mcp.md §4.1. */
export const IMPORTERS: readonly Importer[] = [omp, claude, codex, gemini, opencode, cursor, windsurf, vscode, mcpJson];

export interface LoadedSources {
  settings: McpSettings;
  project: LemonFile | null;
  global: LemonFile;
  /** Every valid entry of every source, in precedence order. */
  servers: SourcedServer[];
  serverLists: ServerLists[];
  diagnostics: Diagnostic[];
}

/**
 * The files an importer reads. A project path that is also some tool's user-level file (launching
 * from `~` or from inside a tool's config dir) is never read as a project file.
 */
function fileSet(imp: Importer, ie: ImportEnv, userPaths: Set<string>, withProject: boolean): FileSet {
  const s = ie.settings;
  const project = withProject ? imp.projectFiles(ie.cwd).filter((f) => !userPaths.has(resolve(f))) : [];
  const userAllowed =
    s.userHome !== null &&
    (s.userDiscovery || imp.userByDefault === true || (imp.id === "claude" && s.claudeConfigDir !== null));
  const user = userAllowed && s.userHome !== null ? imp.userFiles(s.userHome, ie.ctx.env) : [];
  return { project, user };
}

function userPathSet(ctx: LemonContext, settings: McpSettings): Set<string> {
  const homes = [ctx.homeDir, ...(settings.userHome !== null ? [settings.userHome] : [])];
  const out = new Set<string>();
  // With and without env overrides (CODEX_HOME, XDG_CONFIG_HOME …): both are some tool's user file.
  for (const home of homes)
    for (const imp of IMPORTERS)
      for (const f of [...imp.userFiles(home, ctx.env), ...imp.userFiles(home, {})]) out.add(resolve(f));
  out.add(resolve(resolvePaths(ctx).global.mcpJson));
  return out;
}

async function loadImports(ie: ImportEnv, withProject: boolean) {
  const userPaths = userPathSet(ie.ctx, ie.settings);
  const results = await Promise.all(IMPORTERS.map((imp) => imp.load(ie, fileSet(imp, ie, userPaths, withProject))));
  const servers: SourcedServer[] = [];
  const diagnostics: Diagnostic[] = [];
  const serverLists: ServerLists[] = [];
  // Ignored by the importers (common.ts locationValue); said once here.
  for (const name of LOCATION_VARS) {
    const v = ie.ctx.env[name];
    if (v !== undefined && v !== "" && !isAbsolute(v))
      diagnostics.push(diagnostic("warn", "relative_path", `${name} is not an absolute path; ignored`));
  }
  for (const r of results) {
    servers.push(...r.servers);
    diagnostics.push(...r.diagnostics);
    if (r.serverLists) serverLists.push(...r.serverLists);
  }
  return { servers, diagnostics, serverLists };
}

/** Loads the sources visible from `scope`: project includes everything, global drops project files. */
export async function loadSources(ctx: LemonContext, opts: McpConfigOptions, scope: Scope): Promise<LoadedSources> {
  const settings = await resolveSettings(ctx, opts);
  const paths = resolvePaths(ctx);
  const withProject = scope === "project";
  const ie: ImportEnv = { ctx, settings, cwd: ctx.cwd };
  const [project, global, env, imports] = await Promise.all([
    withProject ? readLemonFile(paths.project.mcpJson, "lemon:project") : Promise.resolve(null),
    readLemonFile(paths.global.mcpJson, "lemon:global"),
    readEnvSource(ctx.env.LEMON_MCP_SERVERS),
    settings.externalDiscovery
      ? loadImports(ie, withProject)
      : Promise.resolve({ servers: [], diagnostics: [], serverLists: [] }),
  ]);
  const diagnostics: Diagnostic[] = [...settings.diagnostics];
  const configDiags: Diagnostic[] = [];
  const config = sourceEntries("lemon:config", settings.configServers, undefined, configDiags);
  const servers: SourcedServer[] = [];
  for (const part of [project, global]) {
    if (!part) continue;
    servers.push(...part.servers);
    diagnostics.push(...part.diagnostics);
  }
  servers.push(...env.servers, ...config, ...imports.servers);
  diagnostics.push(...env.diagnostics, ...configDiags, ...imports.diagnostics);
  return { settings, project, global, servers, serverLists: imports.serverLists, diagnostics };
}
