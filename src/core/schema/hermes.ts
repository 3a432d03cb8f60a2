/**
 * @module schema/hermes
 * The GitHub answers the Hermes catalog reads (install.md §4.5) and lemon's own ETag cache of them
 * (`A/cache/hermes-catalog.json`). The answers are remote and untrusted: only the fields lemon
 * uses are checked, and extra fields are allowed.
 */
import { Type, type Static } from "@sinclair/typebox";

const Sha = Type.String({ pattern: "^[0-9a-f]{40}([0-9a-f]{24})?$" });

export const GitHubCommit = Type.Object({ sha: Sha }, { additionalProperties: true });
export type GitHubCommit = Static<typeof GitHubCommit>;

export const GitHubTreeEntry = Type.Object(
  {
    path: Type.String({ minLength: 1, maxLength: 4096 }),
    mode: Type.String({ maxLength: 6 }),
    type: Type.String({ maxLength: 16 }),
    sha: Sha,
    size: Type.Optional(Type.Integer({ minimum: 0 })),
  },
  { additionalProperties: true },
);
export type GitHubTreeEntry = Static<typeof GitHubTreeEntry>;

export const GitHubTree = Type.Object(
  { sha: Sha, tree: Type.Array(GitHubTreeEntry), truncated: Type.Optional(Type.Boolean()) },
  { additionalProperties: true },
);
export type GitHubTree = Static<typeof GitHubTree>;

/** `A/cache/hermes-catalog.json` (version 1): a cache, dropped whole when it does not match. */
export const HermesCache = Type.Object(
  {
    version: Type.Literal(1),
    /** The ref's commit lookup, revalidated with its ETag on every listing. */
    commits: Type.Record(
      Type.String(),
      Type.Object({ url: Type.String(), etag: Type.String(), sha: Sha, at: Type.String() }),
    ),
    /** Trees by commit sha (immutable): the entries under the two collection dirs only. */
    trees: Type.Record(
      Type.String(),
      Type.Object({ truncated: Type.Boolean(), entries: Type.Array(GitHubTreeEntry), at: Type.String() }),
    ),
    /** SKILL.md frontmatter by blob sha (content-addressed, so never stale). */
    details: Type.Record(Type.String(), Type.Object({ name: Type.String(), description: Type.String() })),
  },
  { additionalProperties: false },
);
export type HermesCache = Static<typeof HermesCache>;
