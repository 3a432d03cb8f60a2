/**
 * @module skills/install/fetch
 * Brings a parsed source onto disk (install.md §4.1–§4.3, §4.6) inside the private fetch dir.
 */
import { LemonError } from "../../errors.ts";
import type { SourceSpec } from "./source.ts";

export interface FetchOptions {
  env: Record<string, string | undefined>;
  /** progress lines for slow clones (cli shows them on a TTY / with --verbose) */
  onProgress?: (line: string) => void;
  signal?: AbortSignal;
  /** git: 120_000 */
  timeoutMs?: number;
  /** well_known HTTP */
  fetch?: typeof globalThis.fetch;
}

export interface FetchedSource {
  /** Directory holding the source after the subdir is applied (inside `into`, or the local path itself). */
  root: string;
  resolvedCommit: string | null;
  /** git/github: the commit; local/well_known: null here (install computes the bundle hash). */
  upstreamHash: string | null;
}

/** Fetch into the private dir `into` (already created, 0700). registry/hermes -> UNAVAILABLE with a clear message. */
export async function fetchSource(spec: SourceSpec, _into: string, _opts: FetchOptions): Promise<FetchedSource> {
  throw new LemonError("UNAVAILABLE", `${spec.kind} sources are not available in this version`);
}
