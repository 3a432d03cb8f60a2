/**
 * @module schema/usage
 * `skills.usage.json` (skills.md §12.1), one per scope. The document's shape is strict (a file
 * whose top level, `version` or `skills` map is wrong is invalid and never overwritten); each
 * record field is read leniently (a field that fails its schema reads as absent and is replaced
 * by the next update), and unknown top-level keys and record fields survive every rewrite.
 */
import { Type, type Static, type TSchema } from "@sinclair/typebox";

const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);
const Literals = <L extends string>(values: readonly L[]) => Type.Union(values.map((v) => Type.Literal(v)));

export const LIFECYCLE_STATES = ["active", "stale", "archived", "pinned"] as const;
export type LifecycleState = (typeof LIFECYCLE_STATES)[number];
export const CREATED_VIA = ["skill_manage", "draft"] as const;

const Count = Type.Integer({ minimum: 0 });
const Text = Type.String();

/** Every record field in §12.1 order (the order a rewrite writes them in), each with its schema. */
export const USAGE_RECORD_FIELDS = {
  lifecycle_state: Nullable(Literals(LIFECYCLE_STATES)),
  state_updated_at: Nullable(Text),
  state_updated_by_agent_id: Nullable(Text),
  load_count: Nullable(Count),
  last_loaded_at: Nullable(Text),
  last_view: Nullable(Text),
  write_count: Nullable(Count),
  write_error_count: Nullable(Count),
  last_write_at: Nullable(Text),
  last_action: Nullable(Text),
  last_writer_agent_id: Nullable(Text),
  file_path: Nullable(Text),
  last_tool_call_id: Nullable(Text),
  last_session_key: Nullable(Text),
  last_run_id: Nullable(Text),
  created_at: Nullable(Text),
  created_by: Nullable(Type.Literal("agent")),
  created_by_agent_id: Nullable(Text),
  created_via: Nullable(Literals(CREATED_VIA)),
} as const;

export type UsageField = keyof typeof USAGE_RECORD_FIELDS;

/** A record as lemon writes it: every field optional (absent = null), unknown fields kept. */
export const UsageRecord = Type.Partial(Type.Object(USAGE_RECORD_FIELDS, { additionalProperties: true }));
export type UsageRecord = Static<typeof UsageRecord>;

/**
 * The document shape a read accepts: records are objects whose fields are checked one by one
 * (see `USAGE_RECORD_FIELDS`), so one odd field never makes the whole file unusable.
 */
export const UsageDoc = Type.Object(
  {
    version: Type.Optional(Type.Literal(1)),
    skills: Type.Optional(Type.Record(Type.String(), Type.Object({}, { additionalProperties: true }))),
  },
  { additionalProperties: true },
);
export type UsageDoc = Static<typeof UsageDoc>;

/** The document a missing file reads as. */
export const emptyUsageDoc = (): UsageDoc => ({ version: 1, skills: {} });

/** The largest sidecar a read accepts (and so the largest update() rewrites). */
export const USAGE_MAX_BYTES = 8 * 1024 * 1024;
