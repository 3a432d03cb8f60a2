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

/** Throws INVALID_PARAMS for an unknown flag, a string flag without value or extra positionals. */
export function checkArgv(raw: string[], def: ArgsDef, variadic: boolean): void {
  const byName = new Map<string, { type: string }>();
  let positionals = 0;
  const required: string[] = [];
  for (const [name, d] of Object.entries(def)) {
    const type = d.type ?? "boolean";
    if (type === "positional") {
      positionals++;
      if (d.required !== false && d.default === undefined) required.push(name);
      continue;
    }
    byName.set(name, { type });
    const aliases = "alias" in d && d.alias !== undefined ? (Array.isArray(d.alias) ? d.alias : [d.alias]) : [];
    for (const a of aliases) byName.set(a, { type });
  }
  let seenPositionals = 0;
  for (let i = 0; i < raw.length; i++) {
    const tok = raw[i]!;
    if (tok === "--") break;
    if (tok.startsWith("-") && tok !== "-") {
      const long = tok.startsWith("--");
      const body = tok.slice(long ? 2 : 1);
      const eq = body.indexOf("=");
      const name = eq >= 0 ? body.slice(0, eq) : body;
      let spec = byName.get(name);
      if (!spec && long && name.startsWith("no-")) {
        const positive = byName.get(name.slice(3));
        if (positive?.type === "boolean") spec = positive;
      }
      if (!spec || (!long && name.length !== 1)) throw invalidParams(`unknown option '${tok.split("=")[0]}'`);
      if (spec.type !== "boolean" && eq < 0) {
        const next = raw[i + 1];
        if (next === undefined || (next.startsWith("--") && next.length > 2))
          throw invalidParams(`option '--${name}' needs a value`);
        i++;
      }
      continue;
    }
    seenPositionals++;
    if (seenPositionals > positionals && !variadic) throw invalidParams(`unexpected argument '${tok}'`);
  }
  const absent = required[seenPositionals];
  if (absent !== undefined) throw invalidParams(`missing argument <${absent.toUpperCase()}>`);
}

/** A positive integer flag value, or INVALID_PARAMS naming the flag. */
export function intFlag(name: string, v: unknown, fallback: number): number {
  if (v === undefined) return fallback;
  const n = typeof v === "number" ? v : Number(String(v));
  if (!Number.isInteger(n)) throw invalidParams(`--${name} must be an integer`);
  return n;
}
