/**
 * @module skills/tools/definitions
 * The parameter schemas of `read_skill`, `skill_manage` (skills.md §8, §9) and `find_skills`
 * (cli.md §3.8, served by `lemon mcp serve`) in TypeBox: the single source of truth of what a
 * model should send. `agentTools` and the MCP server hand out their plain JSON form from
 * tool-schemas.gen.ts so neither loads TypeBox for it (`bun
 * src/core/skills/tools/definitions.ts` rewrites that file; a test fails while it differs). The
 * executors still check every value themselves: nothing guarantees a model validated against them.
 */
import { Type, type Static } from "@sinclair/typebox";
import { ACTIONS } from "./manage-params.ts";

/** `read_skill` parameters (skills.md §8). */
export const ReadSkillParameters = Type.Object(
  {
    key: Type.String({ minLength: 1, description: "The skill key, exactly as listed (its directory name)." }),
    view: Type.Optional(
      Type.Union([Type.Literal("full"), Type.Literal("summary"), Type.Literal("section"), Type.Literal("file")], {
        description:
          "full (default): the whole SKILL.md; summary: identity and provenance only; section: one heading's text; file: a supporting file.",
      }),
    ),
    section: Type.Optional(Type.String({ description: "For view=section: the heading to show (case-insensitive)." })),
    path: Type.Optional(
      Type.String({ description: "For view=file: a path relative to the skill directory, e.g. references/api.md." }),
    ),
    include_status: Type.Optional(
      Type.Boolean({ description: "Add a Status section: readiness and what is missing." }),
    ),
    include_manifest: Type.Optional(
      Type.Boolean({ description: "Add a Manifest section: platforms, requirements, references, verification." }),
    ),
    max_chars: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 1_000_000,
        description: "Cut the shown text to this many characters (default 100000).",
      }),
    ),
  },
  { additionalProperties: false },
);
export type ReadSkillArgs = Static<typeof ReadSkillParameters>;

/** The actions of `skill_manage` (skills.md §9): the one list manage-params.ts checks against. */
const SKILL_MANAGE_ACTIONS = ACTIONS;

const days = (what: string) =>
  Type.Optional(
    Type.Union([Type.Integer({ minimum: 1 }), Type.String({ pattern: "^[0-9]+$" })], {
      description: `For report: ${what} (positive integer).`,
    }),
  );

/** `skill_manage` parameters (skills.md §9). */
export const SkillManageParameters = Type.Object(
  {
    action: Type.Union(
      SKILL_MANAGE_ACTIONS.map((a) => Type.Literal(a)),
      { description: "What to do." },
    ),
    name: Type.Optional(
      Type.String({
        description: "The skill's key. For create: lowercase letters, digits, '.', '_' and '-', at most 64 characters.",
      }),
    ),
    scope: Type.Optional(
      Type.Union([Type.Literal("project"), Type.Literal("global")], {
        description: "project (default): the project's .lemon/skill; global: the agent dir's skill root.",
      }),
    ),
    content: Type.Optional(
      Type.String({ description: "For create/edit: the whole SKILL.md, frontmatter with name and description first." }),
    ),
    file_path: Type.Optional(
      Type.String({
        description:
          "A supporting file under references/, templates/, scripts/ or assets/ (write_file, remove_file, patch).",
      }),
    ),
    file_content: Type.Optional(Type.String({ description: "For write_file: the file's text." })),
    old_string: Type.Optional(Type.String({ description: "For patch: the exact text to replace." })),
    new_string: Type.Optional(Type.String({ description: "For patch: the replacement text." })),
    // §9: models send booleans as strings or numbers too; the executor reads these the same way.
    replace_all: Type.Optional(
      Type.Union(
        [
          Type.Boolean(),
          Type.Literal("true"),
          Type.Literal("1"),
          Type.Literal(1),
          Type.Literal("false"),
          Type.Literal("0"),
          Type.Literal(0),
        ],
        { description: "For patch: replace every occurrence instead of requiring exactly one (default false)." },
      ),
    ),
    stale_after_days: days("idle days before a skill counts as stale (default 30)"),
    archive_after_days: days("idle days before a skill is an archive candidate (default 90)"),
  },
  { additionalProperties: false },
);
export type SkillManageArgs = Static<typeof SkillManageParameters>;

/** `find_skills` parameters (`lemon mcp serve`, cli.md §3.8): a request and how many skills at most. */
export const FindSkillsParameters = Type.Object(
  {
    query: Type.String({
      minLength: 1,
      description: "What the user asked for, in their words: the skills that fit it are returned, best first.",
    }),
    max_results: Type.Optional(
      Type.Integer({ minimum: 1, description: "Most skills to return (default 5); more than 50 counts as 50." }),
    ),
  },
  { additionalProperties: false },
);
export type FindSkillsArgs = Static<typeof FindSkillsParameters>;

/** The text of tool-schemas.gen.ts: every schema as a JSON literal. */
export function schemasModule(): string {
  const json = (v: unknown) => JSON.stringify(v, null, 2);
  return [
    "// GENERATED by `bun src/core/skills/tools/definitions.ts` from definitions.ts: do not edit.",
    'import type { JsonSchemaObject } from "./result.ts";',
    "",
    "/** `read_skill` parameters as JSON Schema. */",
    `export const READ_SKILL_SCHEMA: JsonSchemaObject = ${json(ReadSkillParameters)};`,
    "",
    "/** `skill_manage` parameters as JSON Schema. */",
    `export const SKILL_MANAGE_SCHEMA: JsonSchemaObject = ${json(SkillManageParameters)};`,
    "",
    "/** `find_skills` parameters (`lemon mcp serve`) as JSON Schema. */",
    `export const FIND_SKILLS_SCHEMA: JsonSchemaObject = ${json(FindSkillsParameters)};`,
    "",
  ].join("\n");
}

if (import.meta.main) {
  const file = new URL("./tool-schemas.gen.ts", import.meta.url).pathname;
  await Bun.write(file, schemasModule());
  console.log(`wrote ${file}`);
}
