/**
 * @module cli/args
 * Argument fragments shared by many commands, and the strict check citty does not do: unknown
 * flags, missing values and surplus positionals are usage errors (exit 2).
 */
import type { ArgsDef } from "citty";
import { invalidParams } from "../core/errors.ts";

/** Flags every command accepts (cli.md §1.3). */
export const commonArgs = {
  json: { type: "boolean", description: "Print one JSON document" },
  cwd: { type: "string", description: "Project directory", valueHint: "path" },
  quiet: { type: "boolean", description: "Suppress informational output" },
  color: { type: "boolean", description: "Colour output", default: true, negativeDescription: "Disable colour" },
  help: { type: "boolean", alias: ["h"], description: "Show usage" },
} as const satisfies ArgsDef;

export const scopeArgs = {
  global: { type: "boolean", description: "Global scope" },
  local: { type: "boolean", alias: ["project"], description: "Project scope" },
} as const satisfies ArgsDef;

export const toolsArg = {
  tools: { type: "string", description: "Agent tool names, comma separated", valueHint: "a,b" },
} as const satisfies ArgsDef;

export function parseToolsFlag(v: unknown): string[] | undefined {
  if (typeof v !== "string") return undefined;
  return v
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
}

export function scopeFrom(args: { global?: boolean; local?: boolean }, fallback: "global" | "project" | "both") {
  if (args.global && args.local) throw invalidParams("--global and --local cannot be used together");
  if (args.global) return "global" as const;
  if (args.local) return "project" as const;
  return fallback;
}

export type ParsedValues = Record<string, string | boolean | string[] | undefined> & { _: string[] };

/**
 * Parses the tokens before `--` against a command's argument definitions, strictly: an unknown
 * flag, a string flag without value, a missing required or surplus positional is INVALID_PARAMS.
 * Ours rather than citty's parser: that one loads node:util, which costs more than a whole
 * `lemon mcp list`. Values are keyed by the definition's name; the last value of a flag wins.
 */
export function parseArgv(raw: string[], def: ArgsDef, variadic: boolean): ParsedValues {
  const byName = new Map<string, { name: string; type: string }>();
  const positionalNames: string[] = [];
  const required: string[] = [];
  const out: ParsedValues = { _: [] };
  for (const [name, d] of Object.entries(def)) {
    const type = d.type ?? "boolean";
    if (type === "positional") {
      positionalNames.push(name);
      if (d.required !== false && d.default === undefined) required.push(name);
      if (d.default !== undefined) out[name] = String(d.default);
      continue;
    }
    if (d.default !== undefined) out[name] = d.default as string | boolean;
    byName.set(name, { name, type });
    const aliases = "alias" in d && d.alias !== undefined ? (Array.isArray(d.alias) ? d.alias : [d.alias]) : [];
    for (const a of aliases) byName.set(a, { name, type });
  }
  for (let i = 0; i < raw.length; i++) {
    const tok = raw[i]!;
    if (tok === "--") break;
    if (tok.startsWith("-") && tok !== "-") {
      const long = tok.startsWith("--");
      const body = tok.slice(long ? 2 : 1);
      const eq = body.indexOf("=");
      const flag = eq >= 0 ? body.slice(0, eq) : body;
      let spec = byName.get(flag);
      let negated = false;
      if (!spec && long && flag.startsWith("no-")) {
        const positive = byName.get(flag.slice(3));
        if (positive?.type === "boolean") {
          spec = positive;
          negated = true;
        }
      }
      if (!spec || (!long && flag.length !== 1)) throw invalidParams(`unknown option '${tok.split("=")[0]}'`);
      if (spec.type === "boolean") {
        const v = eq >= 0 ? body.slice(eq + 1) : "true";
        if (v !== "true" && v !== "false") throw invalidParams(`option '--${flag}' takes no value`);
        out[spec.name] = negated ? v !== "true" : v === "true";
        continue;
      }
      let value: string;
      if (eq >= 0) value = body.slice(eq + 1);
      else {
        const next = raw[i + 1];
        if (next === undefined || next === "--" || (next.startsWith("--") && next.length > 2))
          throw invalidParams(`option '--${flag}' needs a value`);
        value = next;
        i++;
      }
      out[spec.name] = value;
      continue;
    }
    const slot = positionalNames[out._.length];
    if (slot === undefined && !variadic) throw invalidParams(`unexpected argument '${tok}'`);
    if (slot !== undefined) out[slot] = tok;
    out._.push(tok);
  }
  const absent = required[out._.length];
  if (absent !== undefined) throw invalidParams(`missing argument <${absent.toUpperCase()}>`);
  return out;
}

/** A positive integer flag value, or INVALID_PARAMS naming the flag. */
export function intFlag(name: string, v: unknown, fallback: number): number {
  if (v === undefined) return fallback;
  const n = typeof v === "number" ? v : Number(String(v));
  if (!Number.isInteger(n)) throw invalidParams(`--${name} must be an integer`);
  return n;
}
