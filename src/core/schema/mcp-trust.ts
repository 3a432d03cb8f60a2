/**
 * @module schema/mcp-trust
 * `A/mcp-trust.json` (mcp.md §4.4): the project MCP servers the user trusts, per project (the
 * real path of `C`) and server name, each pinned to the sha256 of what it would run. It lives in
 * the agent dir only; nothing inside a project is ever read as trust. Unknown top-level keys and
 * record fields survive a rewrite. Checked through the generated code of mcp-json.gen.ts, so a
 * listing never loads TypeBox to read it.
 */
import { Type, type Static } from "@sinclair/typebox";

const Sha256 = Type.String({ pattern: "^[0-9a-f]{64}$" });

export const TrustRecord = Type.Object(
  {
    sha256: Sha256,
    trusted_at: Type.String(),
    /** lemon's own addition: sha256 of the env values as the child would get them. */
    env_sha256: Type.Optional(Sha256),
  },
  { additionalProperties: true },
);
export type TrustRecord = Static<typeof TrustRecord>;

export const McpTrustFile = Type.Object(
  {
    version: Type.Literal(1),
    projects: Type.Record(Type.String(), Type.Record(Type.String(), TrustRecord)),
  },
  { additionalProperties: true },
);
export type McpTrustFile = Static<typeof McpTrustFile>;
