/**
 * @module skills/skills-config
 * The effective `[skills]` settings (skills.md §1.1, §13.1): `A/config.toml` merged with
 * createLemon's `config.skills` (an option given explicitly wins over the file). A value of the
 * wrong type or out of range is ignored in favour of the default, so a hand-edited file can never
 * switch a safety setting into an unexpected state; `lemon skill check` is where the file's
 * problems are reported. Also the `[agents.<name>]` tables, for the curator's review command.
 */
import { join } from "node:path";
import type { Static } from "@sinclair/typebox";
import type { LemonContext } from "../context.ts";
import type { ConfigToml } from "../schema/config-toml.ts";
import { readRegularFile } from "../fsx/regular-file.ts";
import { parseToml } from "../toml.ts";
import { decodeUtf8 } from "../text.ts";

/** `[skills.curator]` (skills.md §13.1) in TypeScript casing. */
export interface CuratorSettings {
  enabled: boolean;
  intervalHours: number;
  minIdleHours: number;
  staleAfterDays: number;
  archiveAfterDays: number;
  review: boolean;
  agent: string;
}

/** The effective `[skills]` section. */
export interface SkillsSettings {
  writeApproval: boolean;
  eventLog: boolean;
  httpTimeoutMs: number;
  registryUrl: string | null;
  /** `[skills.discovery] well_known`: origins searched by online discovery (install.md §11). */
  wellKnown: string[];
  curator: CuratorSettings;
}

/** The `[skills]` table as createLemon's `config.skills` takes it: the config.toml keys, all optional. */
export type DeepPartialSkills = NonNullable<Static<typeof ConfigToml>["skills"]>;

/** One `[agents.<name>]` table (install.md §13.4; schema/config-toml.ts has its shape). */
export interface AgentConfig {
  command: string[];
  prompt?: "stdin" | "arg";
  env?: Record<string, string>;
  env_vars?: string[];
}

/** The `[agents]` tables as createLemon's `config.agents` takes them. */
export type AgentsConfig = Record<string, AgentConfig>;

export const DEFAULT_CURATOR: Readonly<CuratorSettings> = Object.freeze({
  enabled: true,
  intervalHours: 168,
  minIdleHours: 2,
  staleAfterDays: 30,
  archiveAfterDays: 90,
  review: false,
  agent: "default",
});

export const DEFAULT_HTTP_TIMEOUT_MS = 10_000;

/** lemon's own configuration files are at most 1 MiB (config-check.ts and mcp/read.ts keep the same cap). */
const MAX_CONFIG_BYTES = 1024 * 1024;

type Table = Record<string, unknown>;
const isTable = (v: unknown): v is Table =>
  v !== null && typeof v === "object" && !Array.isArray(v) && !(v instanceof Date);

/**
 * The parsed `A/config.toml`, or an empty table when it is missing, unreadable, too large, not
 * UTF-8 or not TOML: its settings are then all ignored (the check command says why).
 */
export async function readConfigRoot(ctx: LemonContext): Promise<Table> {
  const read = readRegularFile(join(ctx.agentDir, "config.toml"), MAX_CONFIG_BYTES);
  if (!read.ok) return {};
  const text = decodeUtf8(read.bytes);
  if (text === null) return {};
  const parsed = await parseToml(text);
  return parsed.ok && isTable(parsed.value) ? parsed.value : {};
}

const bool = (v: unknown): boolean | undefined => (typeof v === "boolean" ? v : undefined);
// Hours and days: finite and not negative; a fractional value is allowed (0.5 hours).
const amount = (v: unknown): number | undefined =>
  typeof v === "number" && Number.isFinite(v) && v >= 0 ? v : undefined;
const positiveInt = (v: unknown): number | undefined =>
  typeof v === "number" && Number.isSafeInteger(v) && v > 0 ? v : undefined;
const text = (v: unknown): string | undefined => (typeof v === "string" && v.trim() !== "" ? v : undefined);
const strings = (v: unknown): string[] | undefined =>
  Array.isArray(v) && v.every((x) => typeof x === "string") ? [...v] : undefined;

/** The first valid value among the layers (option first, then file), else the default. */
function pick<T>(layers: Table[], key: string, valid: (v: unknown) => T | undefined, fallback: T): T {
  for (const layer of layers) {
    const v = valid(layer[key]);
    if (v !== undefined) return v;
  }
  return fallback;
}

const sub = (t: Table, key: string): Table => {
  const v = t[key];
  return isTable(v) ? v : {};
};

/** The effective settings: `opts.config` over the file (unless `readConfigFile` is false) over the defaults. */
export async function loadSkillsSettings(
  ctx: LemonContext,
  opts: { readConfigFile: boolean; config?: DeepPartialSkills },
): Promise<SkillsSettings> {
  const file = opts.readConfigFile ? sub(await readConfigRoot(ctx), "skills") : {};
  const option: Table = isTable(opts.config) ? opts.config : {};
  return settingsFrom([option, file]);
}

/** The settings of already-read `[skills]` layers, highest precedence first. */
export function settingsFrom(layers: Table[]): SkillsSettings {
  const cur = layers.map((l) => sub(l, "curator"));
  return {
    writeApproval: pick(layers, "write_approval", bool, false),
    eventLog: pick(layers, "event_log", bool, false),
    httpTimeoutMs: pick(layers, "http_timeout_ms", positiveInt, DEFAULT_HTTP_TIMEOUT_MS),
    registryUrl: pick<string | null>(layers, "registry_url", text, null),
    wellKnown: pick(
      layers.map((l) => sub(l, "discovery")),
      "well_known",
      strings,
      [],
    ),
    curator: {
      enabled: pick(cur, "enabled", bool, DEFAULT_CURATOR.enabled),
      intervalHours: pick(cur, "interval_hours", amount, DEFAULT_CURATOR.intervalHours),
      minIdleHours: pick(cur, "min_idle_hours", amount, DEFAULT_CURATOR.minIdleHours),
      staleAfterDays: pick(cur, "stale_after_days", amount, DEFAULT_CURATOR.staleAfterDays),
      archiveAfterDays: pick(cur, "archive_after_days", amount, DEFAULT_CURATOR.archiveAfterDays),
      review: pick(cur, "review", bool, DEFAULT_CURATOR.review),
      agent: pick(cur, "agent", text, DEFAULT_CURATOR.agent),
    },
  };
}

/** A usable agent command: a non-empty argv of strings, plus the optional keys when well-typed. */
function agentFrom(v: unknown): AgentConfig | undefined {
  if (!isTable(v)) return undefined;
  const command = v.command;
  if (!Array.isArray(command) || command.length === 0 || !command.every((a) => typeof a === "string" && a !== ""))
    return undefined;
  const out: AgentConfig = { command: [...(command as string[])] };
  if (v.prompt === "stdin" || v.prompt === "arg") out.prompt = v.prompt;
  if (isTable(v.env) && Object.values(v.env).every((x) => typeof x === "string"))
    out.env = { ...(v.env as Record<string, string>) };
  if (Array.isArray(v.env_vars) && v.env_vars.every((x) => typeof x === "string"))
    out.env_vars = [...(v.env_vars as string[])];
  return out;
}

/**
 * The `[agents.<name>]` entry (install.md §13.4): the option's table wins over the file's; null
 * when neither defines a valid one.
 */
export async function loadAgentConfig(
  ctx: LemonContext,
  name: string,
  opts: { readConfigFile: boolean; agents?: AgentsConfig },
): Promise<AgentConfig | null> {
  if (opts.agents !== undefined && Object.hasOwn(opts.agents, name)) {
    const a = agentFrom(opts.agents[name]);
    if (a !== undefined) return a;
  }
  if (!opts.readConfigFile) return null;
  const agents = sub(await readConfigRoot(ctx), "agents");
  return Object.hasOwn(agents, name) ? (agentFrom(agents[name]) ?? null) : null;
}
