/**
 * @module internals
 * What tests and benchmarks of the relevance store need from an instance and the public API must
 * not offer (issue 10 §2: `Lemon.registry` is not public). Never re-exported by an entry.
 */
import { LemonError } from "./errors.ts";
import type { SkillRegistry } from "./skills/registry.ts";

/** Each instance's engine (created on first use), keyed weakly so instances still share nothing. */
export const internals = new WeakMap<object, () => Promise<SkillRegistry>>();

/** The skill registry behind a `createLemon` instance. */
export async function registryOf(lemon: object): Promise<SkillRegistry> {
  const get = internals.get(lemon);
  if (get === undefined) throw new LemonError("INVALID_PARAMS", "registryOf: not an instance from createLemon");
  return get();
}
