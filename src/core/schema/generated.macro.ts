/**
 * @module schema/generated.macro
 * Bundle-time only: imported `with { type: "macro" }`, so Bun runs it while transpiling or
 * bundling and inlines the returned string; neither TypeBox nor the schema objects reach the
 * importing module. It returns TypeBox's own generated check for a schema, so the schema stays
 * the single source of truth while a cold command that checks a handful of stored documents does
 * not load TypeBox (about 70 KB of code) to do it.
 */
import { TypeCompiler } from "@sinclair/typebox/compiler";
import type { TSchema } from "@sinclair/typebox";
import { DocMetaSchema } from "./doc-meta.ts";

const SCHEMAS: Record<string, TSchema> = { DocMeta: DocMetaSchema };

/** The body of `function check(value)` for a named schema, as `TypeCompiler.Code` writes it. */
export function checkCode(name: string): string {
  const schema = SCHEMAS[name];
  if (!schema) throw new Error(`no schema named '${name}' in schema/generated.macro.ts`);
  const code = TypeCompiler.Code(schema, [], { language: "javascript" });
  // The inlined code must stand alone: a format or custom kind would call into TypeBox's
  // registries, which the importing module does not have.
  const standalone = new Function(code)() as (v: unknown) => boolean;
  standalone({});
  return code;
}
