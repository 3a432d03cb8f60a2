/**
 * @module skills/search/worker-protocol
 * The plain-data messages between the core and `workers/snapshot.worker.ts` (DESIGN.md §5), one
 * TypeBox schema each side validates on receipt.
 */
import { Type, type Static } from "@sinclair/typebox";

const Root = Type.Object({
  scope: Type.Union([Type.Literal("global"), Type.Literal("project")]),
  label: Type.Union([
    Type.Literal("lemon"),
    Type.Literal("agents"),
    Type.Literal("omp"),
    Type.Literal("claude"),
    Type.Literal("codex"),
    Type.Literal("github"),
  ]),
  path: Type.String(),
  realPath: Type.String(),
  exists: Type.Boolean(),
});

const Candidate = Type.Object({
  key: Type.String(),
  root: Type.Integer({ minimum: 0 }),
  path: Type.String(),
  realPath: Type.String(),
  category: Type.Union([Type.String(), Type.Null()]),
  skillFile: Type.String(),
});

export const BuildRequest = Type.Object({
  type: Type.Literal("build"),
  id: Type.Integer(),
  /** Where to write the snapshot (null: build only). */
  file: Type.Union([Type.String(), Type.Null()]),
  /** A previous snapshot whose unchanged documents may be reused. */
  previous: Type.Union([Type.String(), Type.Null()]),
  identity: Type.String({ pattern: "^[0-9a-f]{64}$" }),
  /** The encoded scan and the watched stats (Float64 bytes) the identity came from. */
  scan: Type.Uint8Array(),
  watch: Type.Uint8Array(),
  /** PATHS: what the identity check stats (identity.ts `statPaths`). */
  paths: Type.Uint8Array(),
  roots: Type.Array(Root),
  candidates: Type.Array(Candidate),
  fingerprints: Type.Array(Type.String()),
});
export type BuildRequest = Static<typeof BuildRequest>;

export const ScoreRequest = Type.Object({
  type: Type.Literal("score"),
  id: Type.Integer(),
  file: Type.String(),
  query: Type.String(),
  limit: Type.Integer({ minimum: 0, maximum: 1000 }),
});
export type ScoreRequest = Static<typeof ScoreRequest>;

export const WorkerRequest = Type.Union([BuildRequest, ScoreRequest]);
export type WorkerRequest = Static<typeof WorkerRequest>;

export const BuiltReply = Type.Object({
  type: Type.Literal("built"),
  id: Type.Integer(),
  bytes: Type.Uint8Array(),
  /** Null when written; otherwise why the file could not be written. */
  writeError: Type.Union([Type.String(), Type.Null()]),
  reused: Type.Integer(),
  loaded: Type.Integer(),
});
export type BuiltReply = Static<typeof BuiltReply>;

export const ScoredReply = Type.Object({
  type: Type.Literal("scored"),
  id: Type.Integer(),
  hits: Type.Array(
    Type.Object({ doc: Type.Integer(), score: Type.Number(), exact: Type.Boolean(), key: Type.String() }),
  ),
});
export type ScoredReply = Static<typeof ScoredReply>;

export const FailedReply = Type.Object({ type: Type.Literal("failed"), id: Type.Integer(), message: Type.String() });
export type FailedReply = Static<typeof FailedReply>;

export const WorkerReply = Type.Union([BuiltReply, ScoredReply, FailedReply]);
export type WorkerReply = Static<typeof WorkerReply>;
