/**
 * @module schema/manifest
 * The SKILL.md manifest (skills.md §4.2–§4.4) as TypeBox schemas: one field schema per validation
 * rule, each paired with the spec's exact message, and the normalised manifest shape. A listing
 * validates with the checks generated from these (skills.checks.js, `bun src/core/schema/skills.gen.ts`).
 */
import { FormatRegistry, Type, type Static, type TSchema } from "@sinclair/typebox";
import { FORMATS } from "./skills-data.ts";

// Formats are registered once per process; the registry is TypeBox's, not ours. The generated
// checks (skills.checks.js) get the same predicates without TypeBox.
for (const [name, check] of Object.entries(FORMATS)) if (!FormatRegistry.Has(name)) FormatRegistry.Set(name, check);

/** Safe text (skills.md §4.4) of at most 128 bytes. */
export const SafeText128 = Type.String({ format: "lemon-safe-128b" });
/** Safe text of at most 64 bytes (`version`). */
export const SafeText64 = Type.String({ format: "lemon-safe-64b" });
/** Safe text of at most 1,024 characters and 4,096 bytes. */
export const Description = Type.String({ format: "lemon-description" });
/** A list of at most 32 safe strings of at most 128 bytes. */
export const SafeList = Type.Array(SafeText128, { maxItems: 32 });
/** A `platforms` value after aliasing. */
export const Platform = Type.Union([
  Type.Literal("linux"),
  Type.Literal("darwin"),
  Type.Literal("win32"),
  Type.Literal("any"),
]);
// An object with any keys. Not Type.Record: building one at module load costs milliseconds on a
// cold start, and this module loads for every skill command. (A Date also passes this check; the
// validator rejects TOML datetimes itself.)
/** Any mapping. */
export const AnyMap = Type.Object({}, { additionalProperties: Type.Unknown() });
/** The `verification` map (stored, never run). */
export const Verification = Type.Object({
  command: Type.Optional(Type.String()),
  expect_exit: Type.Optional(Type.Integer()),
  expect_output: Type.Optional(Type.String()),
});
/** A `references` item: a path, or a map with `path` or `url`. */
export const Reference = Type.Union([
  Type.String(),
  Type.Object({ path: Type.String(), description: Type.Optional(Type.String()) }),
  Type.Object({ url: Type.String(), description: Type.Optional(Type.String()) }),
]);
/** At most 64 references. */
export const References = Type.Array(Reference, { maxItems: 64 });

/** One validation rule of skills.md §4.4 with its exact message. */
export interface FieldRule {
  /** Dotted path into the normalised raw manifest. */
  field: string;
  schema: TSchema;
  message: string;
}

const listMsg = (f: string) => `${f} must be a list of at most 32 strings of at most 128 bytes`;

/** Validation order of skills.md §4.4; the first failing rule decides the message. */
export const FIELD_RULES: readonly FieldRule[] = [
  {
    field: "name",
    schema: SafeText128,
    message: "name must be a single-line string of at most 128 bytes without control or bidi characters",
  },
  {
    field: "description",
    schema: Description,
    message: "description must be a single-line string of at most 1024 characters without control or bidi characters",
  },
  { field: "requires", schema: AnyMap, message: "requires must be a map" },
  { field: "requires.bins", schema: SafeList, message: listMsg("requires.bins") },
  { field: "requires.config", schema: SafeList, message: listMsg("requires.config") },
  { field: "platforms", schema: SafeList, message: listMsg("platforms") },
  { field: "platforms", schema: Type.Array(Platform), message: "platforms contains an unknown platform" },
  { field: "requires_tools", schema: SafeList, message: listMsg("requires_tools") },
  { field: "fallback_for_tools", schema: SafeList, message: listMsg("fallback_for_tools") },
  { field: "required_environment_variables", schema: SafeList, message: listMsg("required_environment_variables") },
  { field: "metadata", schema: AnyMap, message: "metadata must be a map" },
  { field: "metadata.lemon", schema: AnyMap, message: "metadata.lemon must be a map" },
  {
    field: "metadata.lemon.category",
    schema: SafeText128,
    message: "metadata.lemon.category must be a single-line string of at most 128 bytes",
  },
  { field: "verification", schema: AnyMap, message: "verification must be a map" },
  {
    field: "references",
    schema: References,
    message: "references must be a list of paths or {path|url, description} maps",
  },
  { field: "version", schema: SafeText64, message: "version must be a single-line string of at most 64 bytes" },
];

/** Types of the `verification` keys. */
export const VERIFICATION_KEYS: Readonly<Record<string, TSchema>> = {
  command: Type.String(),
  expect_exit: Type.Integer(),
  expect_output: Type.String(),
};

/** The normalised, validated manifest kept on every entry. */
export const Manifest = Type.Object({
  name: Type.Union([Type.String(), Type.Null()]),
  description: Type.Union([Type.String(), Type.Null()]),
  version: Type.Union([Type.String(), Type.Null()]),
  hide: Type.Boolean(),
  tags: Type.Array(Type.String()),
  keywords: Type.Array(Type.String()),
  requires: Type.Object({ bins: Type.Array(Type.String()), config: Type.Array(Type.String()) }),
  platforms: Type.Array(Type.String()),
  category: Type.Union([Type.String(), Type.Null()]),
  synthesized: Type.Boolean(),
  requires_tools: Type.Array(Type.String()),
  fallback_for_tools: Type.Array(Type.String()),
  required_environment_variables: Type.Array(Type.String()),
  verification: Type.Union([Verification, Type.Null()]),
  references: Type.Array(Reference),
  manifest_version: Type.Union([Type.Literal(1), Type.Literal(2)]),
  unknown_fields: Type.Array(Type.String()),
});
/** The normalised manifest. */
export type Manifest = Static<typeof Manifest>;
/** A `references` item. */
export type Reference = Static<typeof Reference>;
