/**
 * @module cli/args
 * The one argument parser: tokens against a command's declared flags and positionals, strictly.
 * An unknown flag, a missing or malformed value, a missing or surplus positional is INVALID_PARAMS
 * (exit 2). Ours rather than citty's: that one loads node:util (more than a whole `lemon mcp
 * list` costs), accepts unknown flags silently and keeps only the last value of a repeated flag.
 */
import { LemonError } from "../core/index.ts";
import { COMMON_FLAGS, type ArgSpec, type FlagSpec, type Parsed } from "./command.ts";

/** An argument error (exit 2); the dispatcher adds the command's usage line. */
export function usageError(message: string, hint?: string): LemonError {
  return new LemonError("INVALID_PARAMS", message, hint !== undefined ? { hint } : {});
}

/** A whole number of at least `min` written in plain digits: `--max 0`, `-1`, `2.5`, `abc` all fail alike. */
function parseInteger(flag: string, raw: string, min = 1): number {
  if (/^\d{16,}$/.test(raw)) throw usageError(`--${flag} is too large (got '${raw}')`);
  const n = /^\d{1,15}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(n >= min)) throw usageError(`--${flag} must be an integer of at least ${min} (got '${raw}')`);
  return n;
}

interface Lookup {
  long: Map<string, string>;
  short: Map<string, string>;
}

function lookup(flags: Readonly<Record<string, FlagSpec>>): Lookup {
  const long = new Map<string, string>();
  const short = new Map<string, string>();
  for (const [name, f] of Object.entries(flags)) {
    long.set(name, name);
    for (const a of f.aliases ?? []) long.set(a, name);
    if (f.short !== undefined) short.set(f.short, name);
  }
  return { long, short };
}

/** The flag a token names (`--all`, `--no-audit`, `-t`), its inline value, and whether it was negated. */
function flagOf(tok: string, l: Lookup, flags: Readonly<Record<string, FlagSpec>>) {
  const long = tok.startsWith("--");
  const body = tok.slice(long ? 2 : 1);
  const eq = body.indexOf("=");
  const word = eq >= 0 ? body.slice(0, eq) : body;
  const inline = eq >= 0 ? body.slice(eq + 1) : undefined;
  let name = long ? l.long.get(word) : word.length === 1 ? l.short.get(word) : undefined;
  let negated = false;
  if (name === undefined && long && word.startsWith("no-")) {
    const positive = l.long.get(word.slice(3));
    if (positive !== undefined && flags[positive]?.type === "boolean") [name, negated] = [positive, true];
  }
  if (name === undefined) throw usageError(`unknown option '${long ? `--${word}` : `-${word}`}'`);
  return { name, spec: flags[name]!, inline, negated, shown: long ? `--${word}` : `-${word}` };
}

/** The defaults before any token: off booleans (or on, for `defaultOn`), empty lists, unset values. */
function initial(flags: Readonly<Record<string, FlagSpec>>): Parsed["flags"] {
  const out: Parsed["flags"] = {};
  for (const [name, f] of Object.entries(flags))
    out[name] = f.type === "boolean" ? f.defaultOn === true : f.type === "list" ? [] : undefined;
  return out;
}

/**
 * Parses `tokens` (everything before a bare `--`) against the command's own flags plus the common
 * ones. Values may follow as the next token or after `=`; a value that starts with `--` is taken
 * for a forgotten value. Repeatable (`list`) flags collect every value; others keep the last.
 * `trailing` (the words after `--` of a command that takes no argument vector) are positionals.
 */
export function parseTokens(
  tokens: readonly string[],
  own: Readonly<Record<string, FlagSpec>>,
  args: readonly ArgSpec[],
  trailing: readonly string[] = [],
): Parsed {
  const flags: Readonly<Record<string, FlagSpec>> = { ...own, ...COMMON_FLAGS };
  const l = lookup(flags);
  const parsed: Parsed = { flags: initial(flags), args: {}, words: [] };
  const variadic = args.length > 0 && args[args.length - 1]!.variadic === true;
  const positional = (tok: string) => {
    const slot = args[Math.min(parsed.words.length, args.length - 1)];
    if (slot === undefined || (parsed.words.length >= args.length && !variadic))
      throw usageError(`unexpected argument '${tok}'`);
    parsed.words.push(tok);
    if (parsed.args[slot.name] === undefined) parsed.args[slot.name] = tok;
    else parsed.args[slot.name] += ` ${tok}`;
  };
  for (let i = 0; i < tokens.length; i++) {
    const tok = tokens[i]!;
    if (!tok.startsWith("-") || tok === "-") {
      positional(tok);
      continue;
    }
    const f = flagOf(tok, l, flags);
    if (f.spec.type === "boolean") {
      if (f.inline !== undefined && f.inline !== "true" && f.inline !== "false")
        throw usageError(`option '${f.shown}' takes no value`);
      parsed.flags[f.name] = (f.inline !== "false") !== f.negated;
      continue;
    }
    let value = f.inline;
    if (value === undefined) {
      const next = tokens[i + 1];
      if (next === undefined || (next.startsWith("--") && next.length > 2))
        throw usageError(`option '${f.shown}' needs a value`);
      value = next;
      i++;
    }
    const key = `--${f.name}`;
    if (f.spec.choices !== undefined && !f.spec.choices.includes(value))
      throw usageError(`${key} must be ${f.spec.choices.join(" or ")} (got '${value}')`);
    if (f.spec.type === "integer") parsed.flags[f.name] = parseInteger(f.name, value);
    else if (f.spec.type === "list") (parsed.flags[f.name] as string[]).push(value);
    else parsed.flags[f.name] = value;
  }
  // Words after `--` are positionals even when they look like flags (`relevant -- -v output`).
  for (const tok of trailing) positional(tok);
  const missing = args.find((a, i) => a.required === true && parsed.words.length <= i);
  if (missing !== undefined) throw usageError(`missing argument <${missing.name.toUpperCase()}>`);
  return parsed;
}

export const scopeFlags = {
  global: { type: "boolean", description: "Global scope" },
  local: { type: "boolean", aliases: ["project"], description: "Project scope" },
} as const satisfies Record<string, FlagSpec>;

export const toolsFlag = {
  tools: { type: "string", description: "The agent's tool names, comma separated", value: "a,b" },
} as const satisfies Record<string, FlagSpec>;

/** `--tools a,b` as a list; undefined when the flag was not given. */
export function parseToolsFlag(v: unknown): string[] | undefined {
  if (typeof v !== "string") return undefined;
  return v
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
}

export function scopeFrom(flags: { global?: boolean; local?: boolean }, fallback: "global" | "project" | "both") {
  if (flags.global && flags.local) throw usageError("--global and --local cannot be used together");
  if (flags.global) return "global" as const;
  if (flags.local) return "project" as const;
  return fallback;
}
