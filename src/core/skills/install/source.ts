/**
 * @module skills/install/source
 * The source router of install.md §2: one input string (plus --ref/--path) to a SourceSpec.
 */
import { LemonError } from "../../errors.ts";

export type SourceKind = "local" | "git" | "github" | "registry" | "hermes" | "well_known";
export type TrustLevel = "builtin" | "official" | "trusted" | "community";

export interface SourceSpec {
  kind: SourceKind;
  /** install.md §2 canonical source_id (never userinfo or query). */
  sourceId: string;
  /** Redacted human form for messages/approvals, e.g. "gh:owner/repo@v1", "https://h/r.git#v1:skills/x". */
  display: string;
  trust: TrustLevel;
  /** git/github: the clone URL (github: LEMON_GITHUB_GIT_URL or https://github.com + /owner/repo.git). */
  cloneUrl: string | null;
  /** local: absolute real path. */
  localPath: string | null;
  /** requested ref (fragment, @ref, --ref), or null = remote HEAD. */
  ref: string | null;
  /** true when ref is a 40/64-hex commit pin. */
  pinned: boolean;
  /** subdir inside the source (gh: subdir, fragment, --path), validated, or null. */
  subdir: string | null;
  /** key known up front from the reference itself (hermes/registry last segment, well-known name), else null. */
  key: string | null;
  wellKnown?: { origin: string; name: string };
  hermes?: { collection: "bundled" | "optional"; segments: string[] };
  registryRef?: string;
}

export interface ParseSourceOptions {
  cwd: string;
  homeDir: string;
  env: Record<string, string | undefined>;
  ref?: string;
  path?: string;
}

/** Throws LemonError INVALID_PARAMS with the exact §2 messages (exit 2). */
export function parseSource(input: string, _opts: ParseSourceOptions): SourceSpec {
  throw new LemonError("INVALID_PARAMS", `cannot resolve skill source '${input.trim()}'`);
}

export interface SourceRecord {
  source_kind: string | null;
  source_id: string | null;
  source_ref: string | null;
  subdir: string | null;
  trust_level: string | null;
}

/** Rebuild a spec from a lock record (for update): kind, source_id, source_ref, subdir. */
export function specFromRecord(rec: SourceRecord, _opts: ParseSourceOptions): SourceSpec {
  throw new LemonError("UNAVAILABLE", `cannot update a skill whose source is ${rec.source_kind ?? "unknown"}`);
}
