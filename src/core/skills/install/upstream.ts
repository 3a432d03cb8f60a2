/**
 * @module skills/install/upstream
 * The upstream identity of an installed skill's source (install.md §9 step 2), per source kind.
 */
import { LemonError } from "../../errors.ts";
import type { FetchOptions } from "./fetch.ts";
import type { SourceSpec } from "./source.ts";

/**
 * git/github: the remote commit (peeled tag) of the spec's ref or HEAD; local: the source's bundle
 * hash; well_known: the bundle hash of a fresh fetch (into a private temp dir under `scratch`).
 * registry/hermes: UNAVAILABLE.
 */
export async function upstreamIdentity(spec: SourceSpec, _opts: FetchOptions & { scratch: string }): Promise<string> {
  throw new LemonError("UNAVAILABLE", `${spec.kind} sources are not available in this version`);
}
