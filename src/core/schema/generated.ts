/**
 * @module schema/generated
 * Checks generated from TypeBox schemas at bundle time (generated.macro.ts), turned into
 * functions on first use.
 */

/** A check function from `checkCode(name)`'s output. */
export function generatedCheck(code: string): (value: unknown) => boolean {
  let fn: ((value: unknown) => boolean) | null = null;
  return (value) => (fn ??= new Function(code)() as (value: unknown) => boolean)(value);
}
