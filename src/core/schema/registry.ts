/**
 * @module schema/registry
 * The skills registry HTTP API (install.md §4.4): remote, untrusted documents. Only the fields
 * lemon uses are checked here; the git rules for `clone_url`, `git_ref`, `subdir` and `commit`
 * are applied by the registry client, which turns a breach into `registry entry is invalid`.
 */
import { Type, type Static } from "@sinclair/typebox";

const Text = Type.String({ maxLength: 4096 });

/** One hit of `GET <base>/search`; `id` is accepted for `ref`. */
export const RegistryHit = Type.Object(
  {
    ref: Type.Optional(Type.String({ maxLength: 512 })),
    id: Type.Optional(Type.String({ maxLength: 512 })),
    name: Type.Optional(Text),
    description: Type.Optional(Text),
  },
  { additionalProperties: true },
);
export type RegistryHit = Static<typeof RegistryHit>;

export const RegistrySearch = Type.Object({ skills: Type.Array(Type.Unknown()) }, { additionalProperties: true });
export type RegistrySearch = Static<typeof RegistrySearch>;

/** `GET <base>/skills/<ref>`; `url` is accepted for `clone_url`. */
export const RegistryEntry = Type.Object(
  {
    ref: Type.Optional(Type.String({ maxLength: 512 })),
    id: Type.Optional(Type.String({ maxLength: 512 })),
    name: Type.Optional(Text),
    description: Type.Optional(Text),
    clone_url: Type.Optional(Type.String({ maxLength: 4096 })),
    url: Type.Optional(Type.String({ maxLength: 4096 })),
    git_ref: Type.Optional(Type.Union([Type.String({ maxLength: 1024 }), Type.Null()])),
    subdir: Type.Optional(Type.Union([Type.String({ maxLength: 1024 }), Type.Null()])),
    commit: Type.Optional(Type.Union([Type.String({ maxLength: 128 }), Type.Null()])),
  },
  { additionalProperties: true },
);
export type RegistryEntry = Static<typeof RegistryEntry>;
