/**
 * @module schema/well-known
 * `<origin>/.well-known/skills/index.json` (install.md §4.6): a remote, untrusted document. Only
 * the fields lemon uses are checked; the file list rules (relative, no `..`, ≤ 512 bytes, ≤ 2,000
 * files) are applied by the fetcher, which names the offending entry.
 */
import { Type, type Static } from "@sinclair/typebox";

export const WellKnownSkill = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 128 }),
    description: Type.Optional(Type.String()),
    files: Type.Array(Type.String()),
  },
  { additionalProperties: true },
);
export type WellKnownSkill = Static<typeof WellKnownSkill>;

export const WellKnownIndex = Type.Object({ skills: Type.Array(Type.Unknown()) }, { additionalProperties: true });
export type WellKnownIndex = Static<typeof WellKnownIndex>;
