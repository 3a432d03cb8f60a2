/**
 * @module context
 * Turns createLemon options into one frozen context. This is the only module of the core that
 * reads process globals (cwd, env, home directory, platform); everything below it gets them here.
 */
import { isAbsolute, join, resolve } from "node:path";
import { checkArg, checkOptions, invalidParams, type ArgKind } from "./errors.ts";

declare const LEMON_TARGET: string | undefined;

/** The user-level skill roots that `skillRoots` can move or switch off. */
export type GlobalRootLabel = "agents" | "omp" | "claude" | "codex";

/** One entry handed to the `log` option. */
export interface LogEntry {
  level: "debug" | "info" | "warn" | "error";
  message: string;
  data?: unknown;
}

/** The options every entry's context is built from (cli.md §7). */
export interface ContextOptions {
  /** The project directory; default the process cwd. Must be an existing directory. */
  cwd?: string;
  /** lemon home `H`; default `LEMON_HOME`, else `<homeDir>/.lemon`. */
  home?: string;
  /** Agent dir `A`; default `LEMON_AGENT_DIR`, else `<home>/agent`. */
  agentDir?: string;
  /** The user's home for `~`; default `HOME` (`USERPROFILE` on Windows), else the OS's. */
  homeDir?: string;
  /**
   * The environment lemon reads (LEMON_*, HOME, …). Default: a snapshot of `process.env` without
   * the location variables a `.env` in the current directory may have supplied (see processEnv).
   */
  env?: Record<string, string | undefined>;
  /** A user-level root moved to a directory, or switched off with null; default each tool's own. */
  skillRoots?: Partial<Record<GlobalRootLabel, string | null>>;
  /** The agent's tool names, for `requires_tools`; default unknown (those requirements unchecked). */
  availableTools?: string[];
  /** The clock; default `new Date()`. */
  now?: () => Date;
  /** Where diagnostics of the context go (e.g. an ignored `.env` variable); default nowhere. */
  log?: (entry: LogEntry) => void;
  /** Platform override for tests; defaults to process.platform. */
  platform?: string;
}

/** The frozen facts every core module works from; built once by `createContext`. */
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

/**
 * Variables that steer where lemon reads its configuration, skills and MCP servers. A project's
 * `.env` must never set them: a cloned repository could otherwise move the agent dir or inject
 * MCP servers (issue 9 §2.4).
 */
export function isLocationVariable(name: string): boolean {
  return name.startsWith("LEMON_") || LOCATION_VARIABLES.has(name);
}

const LOCATION_VARIABLES = new Set([
  "HOME",
  "USERPROFILE",
  "XDG_CONFIG_HOME",
  "CODEX_HOME",
  "CLAUDE_CONFIG_DIR",
  "COPILOT_HOME",
]);

/** Largest `.env` whose keys are read; a bigger or unreadable one distrusts every location variable. */
const DOTENV_MAX_BYTES = 1 << 20;

/**
 * The names a dotenv file may define, over-approximated (a line of a multi-line value that looks
 * like an assignment counts too): dropping a variable is safe, trusting an injected one is not.
 * Null when the file exists but cannot be read as a small regular file.
 */
function dotenvKeys(file: string): Set<string> | null {
  const fs = require("node:fs") as typeof import("node:fs");
  let st: import("node:fs").Stats;
  try {
    st = fs.statSync(file);
  } catch {
    return new Set();
  }
  if (!st.isFile() || st.size > DOTENV_MAX_BYTES) return null;
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch {
    return null;
  }
  const keys = new Set<string>();
  for (const m of text.matchAll(/^[ \t]*(?:export[ \t]+)?([A-Za-z_][A-Za-z0-9_.-]*)[ \t]*[=:]/gm)) keys.add(m[1]!);
  return keys;
}

/**
 * The process environment minus the location variables that Bun may have loaded from the current
 * directory's `.env` files before lemon ran (`bun agent.ts` in a cloned repository). Bun merges
 * those files into `process.env` without marking them, so a location variable that any of them
 * defines is dropped even when the real environment set it too. Nothing is dropped when Bun read
 * no `.env`: lemon's compiled binary (built with `autoloadDotenv: false`) and a process started
 * with `--no-env-file` (lemon's bin, `npm run lemon` and the npm launcher).
 */
export function processEnv(log: (entry: LogEntry) => void = () => {}): Record<string, string | undefined> {
  const env = { ...process.env };
  if (typeof LEMON_TARGET === "string" || process.execArgv.includes("--no-env-file")) return env;
  let cwd: string | null;
  try {
    cwd = process.cwd();
  } catch {
    cwd = null; // removed since start: its files cannot be checked, so none is trusted
  }
  const mode = env.NODE_ENV !== undefined && env.NODE_ENV !== "" ? env.NODE_ENV : "development";
  for (const name of [".env", `.env.${mode}`, ".env.local", `.env.${mode}.local`]) {
    const file = cwd === null ? name : join(cwd, name);
    const keys = cwd === null ? null : dotenvKeys(file);
    for (const key of Object.keys(env)) {
      if (!isLocationVariable(key) || (keys !== null && !keys.has(key))) continue;
      delete env[key];
      log({ level: "warn", message: `ignoring ${key}: ${file} may have set it, and lemon never reads .env files` });
    }
  }
  return env;
}

const CONTEXT_FIELDS: Record<string, ArgKind> = {
  cwd: "string",
  home: "string",
  agentDir: "string",
  homeDir: "string",
  env: "object",
  skillRoots: "object",
  availableTools: "string[]",
  now: "function",
  log: "function",
  platform: "string",
};

/** The context options as given by any caller; INVALID_PARAMS for a wrong type. */
function checkContextOptions(opts: unknown, what: string): void {
  checkOptions(opts, CONTEXT_FIELDS, what);
  const o = opts as ContextOptions | undefined;
  // The CLI hands over the whole process environment: only a bad value pays for its message.
  for (const [k, v] of Object.entries(o?.env ?? {}))
    if (v !== undefined && typeof v !== "string") checkArg(v, "string", `${what}: env.${k}`);
  for (const [k, v] of Object.entries(o?.skillRoots ?? {}))
    if (v !== undefined && v !== null) checkArg(v, "string", `${what}: skillRoots.${k}`);
}

/**
 * A project directory must exist: every write under it would otherwise create the whole path
 * (issue 9 §2.11), and a listing of nothing would look like an empty project.
 */
function mustBeDirectory(dir: string, what: string): void {
  let ok = false;
  try {
    ok = (require("node:fs") as typeof import("node:fs")).statSync(dir).isDirectory();
  } catch {
    // missing or unreachable: the same answer
  }
  if (!ok) throw invalidParams(`${what}: ${dir} is not a directory`);
}

function processCwd(): string {
  try {
    return process.cwd();
  } catch {
    throw invalidParams("the current directory no longer exists; pass the cwd option");
  }
}

/** For the CLI: held locks and temp files are released on SIGINT/SIGTERM/SIGHUP (skills.md §1.3). */
export { installSignalCleanup } from "./fsx/cleanup.ts";

/** The context for `opts`; `what` names the caller in INVALID_PARAMS messages. */
export function createContext(opts: ContextOptions = {}, what = "createContext"): LemonContext {
  checkContextOptions(opts, what);
  const log = opts.log ?? (() => {});
  const env = Object.freeze(opts.env !== undefined ? { ...opts.env } : processEnv(log));
  const cwd = resolve(opts.cwd ?? processCwd());
  if (opts.cwd !== undefined) mustBeDirectory(cwd, `${what}: option 'cwd'`);
  const platform = opts.platform ?? process.platform;
  const envHome = platform === "win32" ? (env.USERPROFILE ?? env.HOME) : (env.HOME ?? env.USERPROFILE);
  const homeDir = resolve(opts.homeDir ?? (envHome && envHome !== "" ? envHome : osHome()));
  const homeOpt = opts.home ?? (env.LEMON_HOME ? env.LEMON_HOME : undefined);
  const agentOpt = opts.agentDir ?? (env.LEMON_AGENT_DIR ? env.LEMON_AGENT_DIR : undefined);
  const home = homeOpt !== undefined ? absolute(homeOpt, cwd, homeDir) : join(homeDir, ".lemon");
  const agentDir = agentOpt !== undefined ? absolute(agentOpt, cwd, homeDir) : join(home, "agent");
  const isolated = homeOpt !== undefined || agentOpt !== undefined;
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
  checkArg(cwd, "string", "option 'cwd'");
  const abs = absolute(cwd, ctx.cwd, ctx.homeDir);
  if (abs === ctx.cwd) return ctx;
  mustBeDirectory(abs, "option 'cwd'");
  return Object.freeze({ ...ctx, cwd: abs });
}

/** A copy of the context with a different agent tool list (e.g. the CLI's --tools flag). */
export function withTools(ctx: LemonContext, tools: readonly string[] | null | undefined): LemonContext {
  if (tools === undefined) return ctx;
  return Object.freeze({ ...ctx, availableTools: tools === null ? null : Object.freeze([...tools]) });
}

export function expandUserPath(ctx: LemonContext, p: string): string {
  return absolute(p, ctx.cwd, ctx.homeDir);
}
