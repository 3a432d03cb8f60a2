/**
 * @module schema/install-journal
 * `A/cache/install-txn/<scope>/<key>.<txn>.json`: lemon's own record of one activation in flight
 * (install.md §5 steps 9–13). It lives under the agent dir only, never inside a skill root, and
 * names no path: recovery recomputes the root from `agent`, and the backup dir and audit file
 * from the key, the txn id and the scope.
 */
import { Type, type Static } from "@sinclair/typebox";

export const InstallJournal = Type.Object(
  {
    version: Type.Literal(1),
    key: Type.String({ pattern: "^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$" }),
    agent: Type.Union([
      Type.Literal("lemon"),
      Type.Literal("agents"),
      Type.Literal("claude"),
      Type.Literal("codex"),
      Type.Literal("omp"),
    ]),
    txn: Type.String({ pattern: "^[0-9a-f]{12}$" }),
    /** Bundle hash of the skill being activated. */
    bundle_hash: Type.String(),
    /** The timestamp the new lock record carries (`installed_at`, or `updated_at` for an update). */
    stamp: Type.String(),
    /** True when a previous skill was (about to be) moved into the backup slot. */
    replacing: Type.Boolean(),
    /** The audit record that was replaced, once it has been: absent, or the raw value. */
    audit: Type.Union([Type.Null(), Type.Object({ present: Type.Boolean(), value: Type.Optional(Type.Unknown()) })]),
  },
  { additionalProperties: false },
);
export type InstallJournal = Static<typeof InstallJournal>;
