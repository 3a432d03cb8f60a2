/**
 * @module schema/check
 * Compiles TypeBox checkers on first use and turns the first failure into a one-line reason
 * naming the field by its JSON pointer.
 */
import type { TSchema } from "@sinclair/typebox";
import { TypeCompiler, type TypeCheck } from "@sinclair/typebox/compiler";

const compiled = new WeakMap<TSchema, TypeCheck<TSchema>>();

function checker(schema: TSchema): TypeCheck<TSchema> {
  let c = compiled.get(schema);
  if (!c) {
    c = TypeCompiler.Compile(schema);
    compiled.set(schema, c);
  }
  return c;
}

/** null when valid, else "<pointer>: <reason>" (pointer "/" for the top level). */
export function checkSchema(schema: TSchema, value: unknown): string | null {
  const c = checker(schema);
  if (c.Check(value)) return null;
  const first = c.Errors(value).First();
  if (!first) return "invalid document";
  const where = first.path === "" ? "top level" : first.path;
  return `${where}: ${first.message.toLowerCase()}`;
}

export function isValid(schema: TSchema, value: unknown): boolean {
  return checker(schema).Check(value);
}
