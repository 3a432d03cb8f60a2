/**
 * @module schema/discovery
 * Remote answers that online discovery reads (install.md §11): GitHub's repository search (the
 * registry's answers are in schema/registry.ts). It is untrusted; only the fields lemon uses are checked, and an item
 * that fails its schema is dropped on its own rather than failing the whole source.
 */
import { Type, type Static } from "@sinclair/typebox";

/** One repository of `GET <api>/search/repositories`. */
export const GitHubRepoItem = Type.Object(
  {
    full_name: Type.String({ minLength: 3, maxLength: 200 }),
    name: Type.String({ maxLength: 200 }),
    description: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    html_url: Type.String({ maxLength: 2048 }),
    stargazers_count: Type.Optional(Type.Number()),
  },
  { additionalProperties: true },
);
export type GitHubRepoItem = Static<typeof GitHubRepoItem>;

export const GitHubRepoSearch = Type.Object({ items: Type.Array(Type.Unknown()) }, { additionalProperties: true });
export type GitHubRepoSearch = Static<typeof GitHubRepoSearch>;
