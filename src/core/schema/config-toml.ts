/**
 * @module schema/config-toml
 * `A/config.toml` (skills.md §1.1): every section and key the contract names, with its type.
 * Consumers read their own section (`[mcp]` in mcp/app-config.ts); this schema is what
 * `lemon skill check` holds a file against to report unknown keys, which lemon ignores.
 */
import { KindGuard, Type, type Static, type TSchema } from "@sinclair/typebox";

const Strings = Type.Array(Type.String());
// Tables keyed by a user-chosen name (`[agents.<name>]`): any key, each value one table shape.
const NamedTables = <T extends TSchema>(table: T) => Type.Object({}, { additionalProperties: table });

/** `config.toml`: the sections and keys of the contract; other keys are unknown (reported, ignored). */
export const ConfigToml = Type.Object({
  skills: Type.Optional(
    Type.Object({
      write_approval: Type.Optional(Type.Boolean()),
      http_timeout_ms: Type.Optional(Type.Integer()),
      registry_url: Type.Optional(Type.String()),
      event_log: Type.Optional(Type.Boolean()),
      curator: Type.Optional(
        Type.Object({
          enabled: Type.Optional(Type.Boolean()),
          interval_hours: Type.Optional(Type.Number()),
          min_idle_hours: Type.Optional(Type.Number()),
          stale_after_days: Type.Optional(Type.Number()),
          archive_after_days: Type.Optional(Type.Number()),
          review: Type.Optional(Type.Boolean()),
          agent: Type.Optional(Type.String()),
        }),
      ),
      drafts: Type.Optional(
        Type.Object({
          memory_dir: Type.Optional(Type.String()),
          synthesis: Type.Optional(
            Type.Union([Type.Literal("off"), Type.Literal("opt-in"), Type.Literal("default-on")]),
          ),
        }),
      ),
      discovery: Type.Optional(Type.Object({ well_known: Type.Optional(Strings) })),
    }),
  ),
  mcp: Type.Optional(
    Type.Object({
      disabled: Type.Optional(Type.Boolean()),
      external_discovery: Type.Optional(Type.Boolean()),
      external_user_discovery: Type.Optional(Type.Boolean()),
      discovery_home: Type.Optional(Type.String()),
      cache_ttl_ms: Type.Optional(Type.Integer()),
      refresh_interval_ms: Type.Optional(Type.Integer()),
      max_result_chars: Type.Optional(Type.Integer()),
      // Entries are MCP server configs, checked by the MCP validation (mcp.md §3.4), not here.
      servers: Type.Optional(Type.Array(Type.Unknown())),
    }),
  ),
  agents: Type.Optional(
    NamedTables(
      Type.Object({
        command: Strings,
        prompt: Type.Optional(Type.Union([Type.Literal("stdin"), Type.Literal("arg")])),
        env: Type.Optional(Type.Object({}, { additionalProperties: Type.String() })),
        env_vars: Type.Optional(Strings),
      }),
    ),
  ),
  blueprints: Type.Optional(
    Type.Object({
      profiles: Type.Optional(
        NamedTables(Type.Object({ workspace: Type.Optional(Type.String()), agent: Type.Optional(Type.String()) })),
      ),
    }),
  ),
  automations: Type.Optional(Type.Object({ notify_command: Type.Optional(Strings) })),
});
/** A `config.toml` document as far as lemon reads it. */
export type ConfigToml = Static<typeof ConfigToml>;

const isTable = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === "object" && !Array.isArray(v) && !(v instanceof Date);

/** Dotted names of the keys of `value` that `schema` does not name (`skills.foo`, `agents.x.bar`), in file order. */
export function unknownConfigKeys(value: unknown, schema: TSchema = ConfigToml, prefix = ""): string[] {
  if (!KindGuard.IsObject(schema) || !isTable(value)) return [];
  const out: string[] = [];
  const extra = schema.additionalProperties;
  for (const [key, sub] of Object.entries(value)) {
    const named = Object.hasOwn(schema.properties, key) ? schema.properties[key] : undefined;
    const known = named ?? (KindGuard.IsSchema(extra) ? extra : undefined);
    if (known === undefined) out.push(prefix + key);
    else out.push(...unknownConfigKeys(sub, known, `${prefix}${key}.`));
  }
  return out;
}
