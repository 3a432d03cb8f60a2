/**
 * @module schema/generated.macro
 * Bundle-time only: imported `with { type: "macro" }`, so Bun runs it while transpiling or
 * bundling and inlines the returned value; neither TypeBox nor the schema objects reach the
 * importing module. It returns TypeBox's own generated checks for a schema, so the schema stays
 * the single source of truth while a cold command that checks a handful of stored documents does
 * not load TypeBox (about 70 KB of code) to do it.
 */
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { Kind, type TSchema } from "@sinclair/typebox";
import { DocMetaSchema } from "./doc-meta.ts";
import { McpEnvServers, McpJson, McpServerEntry } from "./mcp-json.ts";

const SCHEMAS: Record<string, TSchema> = { DocMeta: DocMetaSchema, McpServerEntry, McpJson, McpEnvServers };

function schemaNamed(name: string): TSchema {
  const schema = SCHEMAS[name];
  if (!schema) throw new Error(`no schema named '${name}' in schema/generated.macro.ts`);
  return schema;
}

function code(schema: TSchema): string {
  // Indentation dropped: these strings are inlined into the bundle as they are.
  const out = TypeCompiler.Code(schema, [], { language: "javascript" }).replace(/\n\s+/g, "\n");
  // The inlined code must stand alone: a format or custom kind would call into TypeBox's
  // registries, which the importing module does not have.
  const standalone = new Function(out)() as (v: unknown) => boolean;
  standalone({});
  return out;
}

/** The body of `function check(value)` for a named schema, as `TypeCompiler.Code` writes it. */
export function checkCode(name: string): string {
  return code(schemaNamed(name));
}

/**
 * A schema as a tree of checks with the messages its options carry (schema/mcp-json.ts): `code`
 * indexes the check of a leaf in `codes` (identical checks, such as every list of strings, are
 * stored once), `fields` are the optional properties of an object node in declaration order (an
 * object node is valid when it is an object and every present field is), `tiers` are looser
 * checks in order with their messages. JSON, so Bun can inline it.
 */
export interface CheckNode {
  code?: number;
  message?: string;
  tiers?: { code: number; message: string }[];
  fields?: Record<string, CheckNode>;
}

/** An object node's own check would repeat every field's code; only open objects of optional fields qualify. */
function isFieldObject(schema: TSchema): boolean {
  return (
    schema[Kind] === "Object" &&
    schema.additionalProperties === true &&
    (schema.required === undefined || (schema.required as unknown[]).length === 0) &&
    typeof schema.properties === "object"
  );
}

function node(schema: TSchema, codes: string[]): CheckNode {
  const index = (s: TSchema) => {
    const c = code(s);
    const at = codes.indexOf(c);
    return at >= 0 ? at : codes.push(c) - 1;
  };
  const out: CheckNode = {};
  if (isFieldObject(schema)) {
    const fields: Record<string, CheckNode> = {};
    for (const [k, v] of Object.entries(schema.properties as Record<string, TSchema>)) fields[k] = node(v, codes);
    out.fields = fields;
  } else out.code = index(schema);
  if (typeof schema.message === "string") out.message = schema.message;
  if (Array.isArray(schema.tiers))
    out.tiers = (schema.tiers as { schema: TSchema; message: string }[]).map((t) => ({ code: index(t.schema), message: t.message }));
  return out;
}

/** The check tree of a named schema (see CheckNode) and the checks it indexes. */
export function checkTree(name: string): { codes: string[]; root: CheckNode } {
  const codes: string[] = [];
  const root = node(schemaNamed(name), codes);
  return { codes, root };
}
