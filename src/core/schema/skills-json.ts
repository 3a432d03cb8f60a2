/**
 * @module schema/skills-json
 * `skills.json` (skills.md §3): per-scope enable/disable lists; unknown keys survive rewrites.
 */
import { Type, type Static } from "@sinclair/typebox";

/** `skills.json` (skills.md §3): unknown keys are kept. */
export const SkillsJson = Type.Object(
  {
    version: Type.Optional(Type.Number()),
    disabled: Type.Optional(Type.Array(Type.String())),
    enabled: Type.Optional(Type.Array(Type.String())),
  },
  { additionalProperties: true },
);
/** A `skills.json` document. */
export type SkillsJson = Static<typeof SkillsJson>;

/** The document a missing file reads as. */
export { emptySkillsJson } from "./skills-data.ts";
