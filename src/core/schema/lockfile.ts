/**
 * @module schema/lockfile
 * `skills.lock.json` (install.md §6): the install provenance of one scope. The schemas here are
 * the shape lemon writes; reading is lenient field by field (a field that fails its schema reads
 * as its fallback), so skills.gen.ts generates one check per field into skills.checks.js and a
 * listing never loads TypeBox to read a lockfile.
 */
import { Type, type Static, type TSchema } from "@sinclair/typebox";

const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);
const Literals = <L extends string>(values: readonly L[]) => Type.Union(values.map((v) => Type.Literal(v)));

export const SOURCE_KINDS = [
  "builtin",
  "local",
  "git",
  "github",
  "registry",
  "hermes",
  "well_known",
  "draft",
  "bundle",
] as const;
export const TRUST_LEVELS = ["builtin", "official", "trusted", "community"] as const;
export const AUDIT_STATUSES = ["pending", "pass", "warn", "block"] as const;
export const LOCK_AGENTS = ["lemon", "agents", "claude", "codex", "omp"] as const;

/** A bundle hash as §7.2 writes it; an override naming anything else can never match. */
export const Sha256Hex = Type.String({ pattern: "^[0-9a-f]{64}$" });

export const AuditApproval = Type.Object({
  bundle_hash: Sha256Hex,
  approved_at: Type.String(),
  findings: Type.Array(Type.String()),
});
export type AuditApproval = Static<typeof AuditApproval>;

export const SecurityOverride = Type.Object({
  bundle_hash: Sha256Hex,
  approved_at: Type.String(),
  engine_version: Type.String(),
  findings: Type.Array(Type.String()),
});
export type SecurityOverride = Static<typeof SecurityOverride>;

/** Every field of a record in §6 order, each with its own schema. */
export const LOCK_RECORD_FIELDS = {
  key: Type.String(),
  source_kind: Nullable(Literals(SOURCE_KINDS)),
  source_id: Nullable(Type.String()),
  source_ref: Nullable(Type.String()),
  subdir: Nullable(Type.String()),
  trust_level: Nullable(Literals(TRUST_LEVELS)),
  content_hash: Nullable(Type.String()),
  bundle_hash: Nullable(Type.String()),
  upstream_hash: Nullable(Type.String()),
  resolved_commit: Nullable(Type.String()),
  installed_at: Nullable(Type.String()),
  updated_at: Nullable(Type.String()),
  checked_at: Nullable(Type.String()),
  latest_upstream_hash: Nullable(Type.String()),
  audit_status: Nullable(Literals(AUDIT_STATUSES)),
  audit_findings: Type.Array(Type.String()),
  audit_engine_version: Nullable(Type.String()),
  audit_approval: Nullable(AuditApproval),
  security_override: Nullable(SecurityOverride),
  agent: Literals(LOCK_AGENTS),
};

export const LockRecord = Type.Object(LOCK_RECORD_FIELDS, { additionalProperties: true });
export type LockRecord = Static<typeof LockRecord>;
export type LockAgent = (typeof LOCK_AGENTS)[number];
export type LockSourceKind = (typeof SOURCE_KINDS)[number];
export type LockTrustLevel = (typeof TRUST_LEVELS)[number];
export type AuditStatus = (typeof AUDIT_STATUSES)[number];

/** The document as lemon holds it; unknown top-level keys and record fields survive a rewrite. */
export const LockDoc = Type.Object(
  { version: Type.Literal(1), skills: Type.Record(Type.String(), LockRecord) },
  { additionalProperties: true },
);
export type LockDoc = { version: 1; skills: Record<string, LockRecord> };

/** The top level a file must have to be read at all (§6): an object whose `skills`, when present, is an object. */
export const LockFileShape = Type.Object(
  { skills: Type.Optional(Type.Record(Type.String(), Type.Unknown())) },
  { additionalProperties: true },
);
