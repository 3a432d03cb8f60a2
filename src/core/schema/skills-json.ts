/**
 * @module schema/skills-json
 * `skills.json` (skills.md §3): per-scope enable/disable lists; unknown keys survive rewrites.
 */
import { Type, type Static } from "@sinclair/typebox";

export const SkillsJson = Type.Object(
  {
    version: Type.Optional(Type.Number()),
    disabled: Type.Optional(Type.Array(Type.String())),
    enabled: Type.Optional(Type.Array(Type.String())),
  },
  { additionalProperties: true },
);
export type SkillsJson = Static<typeof SkillsJson>;

export const emptySkillsJson = (): SkillsJson => ({ version: 1, disabled: [], enabled: [] });
