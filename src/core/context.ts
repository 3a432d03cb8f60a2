/**
 * @module context
 * Turns createLemon options into one frozen context. This is the only module of the core that
 * reads process globals (cwd, env, home directory, platform); everything below it gets them here.
 */
import { isAbsolute, join, resolve } from "node:path";

export type GlobalRootLabel = "agents" | "omp" | "claude" | "codex";

export interface LogEntry {
  level: "debug" | "info" | "warn" | "error";
  message: string;
  data?: unknown;
}

export interface ContextOptions {
  cwd?: string;
  home?: string;
  agentDir?: string;
  homeDir?: string;
  env?: Record<string, string | undefined>;
  skillRoots?: Partial<Record<GlobalRootLabel, string | null>>;
  availableTools?: string[];
  now?: () => Date;
  log?: (entry: LogEntry) => void;
  /** Platform override for tests; defaults to process.platform. */
  platform?: string;
}

export interface LemonContext {
  readonly cwd: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The user's home directory (`~`). */
  readonly homeDir: string;
  /** Lemon home `H`. */
  readonly home: string;
  /** Agent dir `A`. */
  readonly agentDir: string;
  /** True when LEMON_HOME / LEMON_AGENT_DIR (or the matching options) isolate the runtime. */
  readonly isolated: boolean;
  readonly skillRoots: Readonly<Partial<Record<GlobalRootLabel, string | null>>>;
  readonly availableTools: readonly string[] | null;
  readonly platform: string;
  now(): Date;
  log(entry: LogEntry): void;
}

/**
 * The account's home directory from the OS, only when HOME is unset: loading node:os costs about
 * 0.4 ms at the start of every command.
 */
function osHome(): string {
  return (require("node:os") as typeof import("node:os")).homedir();
}

function expandHome(p: string, homeDir: string): string {
  if (p === "~") return homeDir;
  if (p.startsWith("~/") || p.startsWith("~\\")) return join(homeDir, p.slice(2));
  return p;
}

function absolute(p: string, base: string, homeDir: string): string {
  const e = expandHome(p, homeDir);
  return isAbsolute(e) ? resolve(e) : resolve(base, e);
}

/** An environment variable's value when it is set and not empty (an empty value means unset). */
export function envValue(env: LemonContext["env"], name: string): string | undefined {
  const v = env[name];
  return v === undefined || v === "" ? undefined : v;
}

export function createContext(opts: ContextOptions = {}): LemonContext {
  const env = Object.freeze({ ...(opts.env ?? process.env) });
  const cwd = resolve(opts.cwd ?? process.cwd());
  const platform = opts.platform ?? process.platform;
  const envHome = platform === "win32" ? (env.USERPROFILE ?? env.HOME) : (env.HOME ?? env.USERPROFILE);
  const homeDir = resolve(opts.homeDir ?? (envHome && envHome !== "" ? envHome : osHome()));
  const homeOpt = opts.home ?? (env.LEMON_HOME ? env.LEMON_HOME : undefined);
  const agentOpt = opts.agentDir ?? (env.LEMON_AGENT_DIR ? env.LEMON_AGENT_DIR : undefined);
  const home = homeOpt !== undefined ? absolute(homeOpt, cwd, homeDir) : join(homeDir, ".lemon");
  const agentDir = agentOpt !== undefined ? absolute(agentOpt, cwd, homeDir) : join(home, "agent");
  const isolated = homeOpt !== undefined || agentOpt !== undefined;
  const log = opts.log ?? (() => {});
  const now = opts.now ?? (() => new Date());
  return Object.freeze({
    cwd,
    env,
    homeDir,
    home,
    agentDir,
    isolated,
    skillRoots: Object.freeze({ ...(opts.skillRoots ?? {}) }),
    availableTools: opts.availableTools ? Object.freeze([...opts.availableTools]) : null,
    platform,
    now,
    log,
  });
}

/** A copy of the context for another project directory. */
export function withCwd(ctx: LemonContext, cwd: string | undefined): LemonContext {
  if (cwd === undefined) return ctx;
  const abs = absolute(cwd, ctx.cwd, ctx.homeDir);
  return abs === ctx.cwd ? ctx : Object.freeze({ ...ctx, cwd: abs });
}

/** A copy of the context with a different agent tool list (e.g. the CLI's --tools flag). */
export function withTools(ctx: LemonContext, tools: readonly string[] | null | undefined): LemonContext {
  if (tools === undefined) return ctx;
  return Object.freeze({ ...ctx, availableTools: tools === null ? null : Object.freeze([...tools]) });
}

export function expandUserPath(ctx: LemonContext, p: string): string {
  return absolute(p, ctx.cwd, ctx.homeDir);
}
