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

/** `checkTree(name)`'s output (generated.macro.ts `CheckNode`), restated so no macro type is imported at run time. */
export interface CheckTreeCode {
  code?: number;
  message?: string;
  tiers?: { code: number; message: string }[];
  fields?: Record<string, CheckTreeCode>;
}

/** A check tree whose checks compile on first use: a valid value costs one call per present field. */
export interface CheckTree {
  /** A leaf's generated check; null for an object node (an object whose present fields are valid). */
  check: ((value: unknown) => boolean) | null;
  message: string | undefined;
  tiers: { check: (value: unknown) => boolean; message: string }[];
  fields: ReadonlyMap<string, CheckTree>;
}

/** The runtime tree of `checkTree(name)`; a check shared by several nodes compiles once. */
export function generatedTree(t: { codes: string[]; root: CheckTreeCode }): CheckTree {
  const checks = t.codes.map(generatedCheck);
  const build = (n: CheckTreeCode): CheckTree => ({
    check: n.code !== undefined ? checks[n.code]! : null,
    message: n.message,
    tiers: (n.tiers ?? []).map((x) => ({ check: checks[x.code]!, message: x.message })),
    fields: new Map(Object.entries(n.fields ?? {}).map(([k, v]) => [k, build(v)])),
  });
  return build(t.root);
}

/**
 * The message of the first rule `value` breaks, or null when it is valid: for an object node the
 * first failing field (declaration order), for a leaf its first failing tier, else the node's own
 * message (`fallback` when it has none).
 */
export function firstFailure(tree: CheckTree, value: unknown, fallback: string): string | null {
  if (tree.check !== null) {
    if (tree.check(value)) return null;
  } else if (typeof value === "object" && value !== null && !Array.isArray(value)) {
    const obj = value as Record<string, unknown>;
    for (const [k, field] of tree.fields) {
      if (obj[k] === undefined) continue;
      const m = firstFailure(field, obj[k], fallback);
      if (m !== null) return m;
    }
    return null;
  }
  for (const t of tree.tiers) if (!t.check(value)) return t.message;
  return tree.message ?? fallback;
}
