/**
 * @module schema/check
 * TypeBox checks that fit both a one-shot CLI and a long-lived embedder: a schema is checked by
 * the interpreter (`Check`) until it has been used often, and only then compiled. Compiling
 * generates code with `new Function`, which costs more than a whole cold `lemon skill relevant`
 * that checks a handful of documents. Failures become a one-line reason naming the field by its
 * JSON pointer.
 */
import type { TSchema } from "@sinclair/typebox";
import type { TypeCheck } from "@sinclair/typebox/compiler";
// Named imports, not the Value namespace: the namespace drags every value module (diff, patch,
// cast, …) into each command's start-up.
import { Errors } from "@sinclair/typebox/errors";
import { Check } from "@sinclair/typebox/value";

/** Checks of one schema after which compiling it pays for itself. */
const COMPILE_AFTER = 64;

type Compiler = typeof import("@sinclair/typebox/compiler").TypeCompiler;

const uses = new WeakMap<TSchema, number>();
const compiled = new WeakMap<TSchema, TypeCheck<TSchema>>();
let compiler: Compiler | null = null;
let loading = false;

function check(schema: TSchema, value: unknown): boolean {
  const c = compiled.get(schema);
  if (c) return c.Check(value);
  const n = (uses.get(schema) ?? 0) + 1;
  uses.set(schema, n);
  if (n >= COMPILE_AFTER) {
    if (compiler) {
      const fresh = compiler.Compile(schema);
      compiled.set(schema, fresh);
      return fresh.Check(value);
    }
    // The compiler loads in the background; the interpreter answers until it is there.
    if (!loading) {
      loading = true;
      void import("@sinclair/typebox/compiler").then((m) => {
        compiler = m.TypeCompiler;
      });
    }
  }
  return Check(schema, value);
}

/** null when valid, else "<pointer>: <reason>" (pointer "/" for the top level). */
export function checkSchema(schema: TSchema, value: unknown): string | null {
  if (check(schema, value)) return null;
  const first = Errors(schema, value).First();
  if (!first) return "invalid document";
  const where = first.path === "" ? "top level" : first.path;
  return `${where}: ${first.message.toLowerCase()}`;
}

/** True when `value` matches `schema`. */
export function isValid(schema: TSchema, value: unknown): boolean {
  return check(schema, value);
}
