/**
 * @module schema/first-failure
 * Which rule of a schema a value breaks, as the message the schema carries for it (mcp-json.ts:
 * `message` and `tiers` options). Only for values that already failed the generated check
 * (mcp-json.checks.js): a cold command meets few of them, so the schema data is matched by small
 * closures built on first use rather than by generated code.
 */

/** JSON Schema data (mcp-json.checks.js), with the messages the schema options carry. */
export interface SchemaData {
  type?: "object" | "array" | "string" | "boolean" | "integer" | "number";
  properties?: Record<string, SchemaData>;
  required?: string[];
  additionalProperties?: boolean;
  patternProperties?: Record<string, SchemaData>;
  items?: SchemaData;
  anyOf?: SchemaData[];
  const?: unknown;
  pattern?: string;
  exclusiveMinimum?: number;
  maximum?: number;
  minimum?: number;
  /** The message when this node fails (schema/mcp-json.ts). */
  message?: string;
  /** Looser schemas in order, each with the message for failing it. */
  tiers?: { schema: SchemaData; message: string }[];
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
type Check = (v: unknown) => boolean;

/** TypeBox writes `Type.Record(Type.String(), …)` as this pattern: any key, no regex needed. */
const ANY_KEY = "^(.*)$";

function typeCheck(t: SchemaData["type"]): Check | null {
  switch (t) {
    case undefined:
      return null;
    case "object":
      return isObj;
    case "array":
      return Array.isArray;
    case "string":
      return (v) => typeof v === "string";
    case "boolean":
      return (v) => typeof v === "boolean";
    case "integer":
      return Number.isInteger;
    case "number":
      return (v) => typeof v === "number" && Number.isFinite(v);
  }
}

function objectCheck(s: SchemaData): Check | null {
  // Children compile on first use: an entry sets a handful of its two dozen fields.
  const props = s.properties ? new Map(Object.entries(s.properties)) : null;
  const pats = Object.entries(s.patternProperties ?? {}).map(
    ([re, x]) => [re === ANY_KEY ? null : new RegExp(re), x] as const,
  );
  const closed = s.additionalProperties === false;
  const required = s.required ?? [];
  if (!props && pats.length === 0 && !closed && required.length === 0) return null;
  return (v) => {
    const o = v as Record<string, unknown>;
    for (const k of required) if (o[k] === undefined) return false;
    for (const k in o) {
      const x = o[k];
      const p = props?.get(k);
      if (p !== undefined) {
        if (x !== undefined && !compile(p)(x)) return false;
        continue;
      }
      let matched = false;
      for (const [re, schema] of pats) {
        if (re !== null && !re.test(k)) continue;
        matched = true;
        if (!compile(schema)(x)) return false;
      }
      if (!matched && closed) return false;
    }
    return true;
  };
}

const compiled = new WeakMap<SchemaData, Check>();

/**
 * The schema as nested closures, built once per node: a cold process checks a few dozen values,
 * too few for generated code to repay `new Function`, too many for a generic walk of the data.
 */
function compile(s: SchemaData): Check {
  const known = compiled.get(s);
  if (known) return known;
  const parts: Check[] = [];
  const type = typeCheck(s.type);
  if (type) parts.push(type);
  if (s.const !== undefined) parts.push((v) => v === s.const);
  if (s.anyOf) {
    const alts = s.anyOf.map(compile);
    parts.push((v) => alts.some((a) => a(v)));
  }
  if (s.pattern !== undefined) {
    const re = new RegExp(s.pattern);
    parts.push((v) => typeof v !== "string" || re.test(v));
  }
  const { exclusiveMinimum: gt, minimum: ge, maximum: le } = s;
  if (gt !== undefined || ge !== undefined || le !== undefined)
    parts.push(
      (v) =>
        typeof v !== "number" ||
        ((gt === undefined || v > gt) && (ge === undefined || v >= ge) && (le === undefined || v <= le)),
    );
  if (s.items) {
    const item = compile(s.items);
    parts.push((v) => !Array.isArray(v) || v.every(item));
  }
  const obj = objectCheck(s);
  if (obj) parts.push((v) => !isObj(v) || obj(v));
  const check: Check =
    parts.length === 0 ? () => true : parts.length === 1 ? parts[0]! : (v) => parts.every((p) => p(v));
  compiled.set(s, check);
  return check;
}

/** Whether `v` matches `s` (the keywords mcp-json.gen.ts admits, with TypeBox's meaning). */
export function matches(s: SchemaData, v: unknown): boolean {
  return compile(s)(v);
}

/** An open object of optional fields reports its first failing field rather than itself. */
const byField = (s: SchemaData) =>
  s.type === "object" && s.properties !== undefined && s.additionalProperties === true && !s.required?.length;

/**
 * The message of the first rule `value` breaks, or null when it is valid: for an open object of
 * optional fields the first failing field (declaration order), else the first failing tier, else
 * the node's own message (`fallback` when it has none).
 */
export function firstFailure(s: SchemaData, value: unknown, fallback: string): string | null {
  if (matches(s, value)) return null;
  if (byField(s) && isObj(value)) {
    for (const [k, field] of Object.entries(s.properties!)) {
      if (value[k] === undefined) continue;
      const m = firstFailure(field, value[k], fallback);
      if (m !== null) return m;
    }
    return null;
  }
  for (const t of s.tiers ?? []) if (!matches(t.schema, value)) return t.message;
  return s.message ?? fallback;
}
