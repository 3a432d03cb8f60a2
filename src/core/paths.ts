/**
 * @module paths
 * Every location lemon reads or writes, named once (skills.md §1). Nothing else joins these.
 */
import { join, sep } from "node:path";
import type { LemonContext } from "./context.ts";

/** True when `child` is `parent` or lies below it (both absolute, already resolved). */
export function isInside(child: string, parent: string): boolean {
  const p = parent.endsWith(sep) ? parent : parent + sep;
  return child === parent || child.startsWith(p);
}

/** A skill scope (skills.md §1.2). */
export type Scope = "global" | "project";

/** The state files of one scope (skills.md §1.2), under `A` or `P`. */
export interface ScopePaths {
  /** Directory holding the scope's state files: `A` or `P`. */
  stateDir: string;
  skillRoot: string;
  skillsJson: string;
  lockfile: string;
  usage: string;
  curatorState: string;
  curatorLogs: string;
  drafts: string;
  mcpJson: string;
}

/** Every location of a context: homes, config, caches and both scopes. */
export interface LemonPaths {
  home: string;
  agentDir: string;
  configToml: string;
  snapshotDir: string;
  secretsDir: string;
  /** OAuth tokens and dynamic client registrations (mcp.md §11.6): `A/secrets/mcp-oauth`. */
  oauthDir: string;
  /** The global scope's audit cache. */
  auditCache: string;
  /** Project audit caches, `<scope-id>.json`: never under P, where a clone could forge verdicts. */
  auditCacheDir: string;
  global: ScopePaths;
  project: ScopePaths;
}

function scopePaths(stateDir: string): ScopePaths {
  return {
    stateDir,
    skillRoot: join(stateDir, "skill"),
    skillsJson: join(stateDir, "skills.json"),
    lockfile: join(stateDir, "skills.lock.json"),
    usage: join(stateDir, "skills.usage.json"),
    curatorState: join(stateDir, "skills.curator.json"),
    curatorLogs: join(stateDir, "logs", "curator"),
    drafts: join(stateDir, "skill_drafts"),
    mcpJson: join(stateDir, "mcp.json"),
  };
}

/** The paths of a context (its homes and cwd); pure, resolve once per operation. */
export function resolvePaths(ctx: LemonContext): LemonPaths {
  return {
    home: ctx.home,
    agentDir: ctx.agentDir,
    configToml: join(ctx.agentDir, "config.toml"),
    snapshotDir: join(ctx.agentDir, "cache", "skills"),
    secretsDir: join(ctx.agentDir, "secrets"),
    oauthDir: join(ctx.agentDir, "secrets", "mcp-oauth"),
    auditCache: join(ctx.agentDir, "skills.audit.json"),
    auditCacheDir: join(ctx.agentDir, "cache", "audit"),
    global: scopePaths(ctx.agentDir),
    project: scopePaths(join(ctx.cwd, ".lemon")),
  };
}

/** One scope's paths. */
export function scopePathsFor(ctx: LemonContext, scope: Scope): ScopePaths {
  const p = resolvePaths(ctx);
  return scope === "global" ? p.global : p.project;
}
