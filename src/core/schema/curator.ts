/**
 * @module schema/curator
 * The curator's files (skills.md §13.3, §13.4): the state file `skills.curator.json` of each
 * scope and the `run.json` of each run. Unknown keys of the state file survive rewrites.
 */
import { Type, type Static } from "@sinclair/typebox";

const NullableString = Type.Union([Type.String(), Type.Null()]);

/** `skills.curator.json` (skills.md §13.3). */
export const CuratorState = Type.Object(
  {
    version: Type.Literal(1),
    last_run_at: Type.Optional(NullableString),
    last_run_summary: Type.Optional(NullableString),
    last_report_path: Type.Optional(NullableString),
    last_candidate_count: Type.Optional(Type.Union([Type.Integer({ minimum: 0 }), Type.Null()])),
    paused: Type.Optional(Type.Boolean()),
    run_count: Type.Optional(Type.Integer({ minimum: 0 })),
  },
  { additionalProperties: true },
);
export type CuratorState = Static<typeof CuratorState>;

/** The document a missing state file reads as. */
export const emptyCuratorState = (): CuratorState => ({
  version: 1,
  last_run_at: null,
  last_run_summary: null,
  last_report_path: null,
  last_candidate_count: null,
  paused: false,
  run_count: 0,
});

/** State files are tiny; anything larger is not one of lemon's (read and rewrite share the bound). */
export const MAX_CURATOR_STATE_BYTES = 64 * 1024;

const Counts = Type.Object({
  checked: Type.Integer(),
  marked_stale: Type.Integer(),
  archived: Type.Integer(),
  reactivated: Type.Integer(),
});
export type CuratorCounts = Static<typeof Counts>;

const Lifecycle = Type.Union([
  Type.Literal("active"),
  Type.Literal("stale"),
  Type.Literal("archived"),
  Type.Literal("pinned"),
]);

const Transition = Type.Object({ name: Type.String(), from: Lifecycle, to: Lifecycle });
export type CuratorTransition = Static<typeof Transition>;

const NullableNumber = Type.Union([Type.Number(), Type.Null()]);

/** A report row as written into `run.json` (skills.md §12.3, snake_case on disk). */
export const CandidateRow = Type.Object({
  name: Type.String(),
  lifecycle_state: Lifecycle,
  agent_authored: Type.Boolean(),
  load_count: Type.Integer(),
  write_count: Type.Integer(),
  write_error_count: Type.Integer(),
  created_at: NullableString,
  last_loaded_at: NullableString,
  last_write_at: NullableString,
  last_activity_at: NullableString,
  idle_days: NullableNumber,
  stale_candidate: Type.Boolean(),
  archive_candidate: Type.Boolean(),
});
export type CandidateRow = Static<typeof CandidateRow>;

export const ReviewSubmission = Type.Object({
  run_id: Type.String(),
  submitted_at: Type.String(),
  status: Type.Union([Type.Literal("ok"), Type.Literal("failed"), Type.Literal("timeout")]),
});
export type ReviewSubmission = Static<typeof ReviewSubmission>;

/** `<A or P>/logs/curator/<run>/run.json` (skills.md §13.4). */
export const CuratorRun = Type.Object({
  started_at: Type.String(),
  duration_ms: Type.Integer({ minimum: 0 }),
  scope: Type.Union([Type.Literal("global"), Type.Literal("project")]),
  summary: Type.String(),
  counts: Counts,
  review_required: Type.Boolean(),
  candidate_count: Type.Integer({ minimum: 0 }),
  archived: Type.Array(Type.String()),
  marked_stale: Type.Array(Type.String()),
  reactivated: Type.Array(Type.String()),
  state_transitions: Type.Array(Transition),
  candidates: Type.Array(CandidateRow),
  review_submission: Type.Union([ReviewSubmission, Type.Null()]),
});
export type CuratorRun = Static<typeof CuratorRun>;
