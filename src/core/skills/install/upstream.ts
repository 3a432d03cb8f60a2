/**
 * @module skills/install/upstream
 * The upstream identity of an installed skill's source (install.md §9 step 2), per source kind:
 * the commit a git ref names now, or the bundle hash of what a local or well-known source holds.
 * Asking is cheap for git (one ls-remote, no clone), so `update --check` never downloads a tree.
 */
import { existsSync } from "node:fs";
import { mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { LemonError, notFound } from "../../errors.ts";
import { randomHex } from "../../fsx/atomic.ts";
import { computeBundleHash } from "../bundle.ts";
import { cloneRequestOf, fetchRegistryEntry, registryBase } from "../online/registry.ts";
import { fetchSource, hermesOptions, httpOf, type FetchOptions } from "./fetch.ts";
import { remoteCommit } from "./git.ts";
import { hermesUpstream } from "../online/hermes-fetch.ts";
import { findSkills } from "./select.ts";
import type { SourceSpec } from "./source.ts";

export interface UpstreamOptions extends FetchOptions {
  /**
   * A directory of lemon's own (the agent dir's cache) where a private `.fetch-<random>` dir may
   * be created: well_known downloads the files to hash them. It is removed afterwards.
   */
  scratch: string;
  /** The installed key: picks the skill when a local source holds several (install.md §4.7). */
  key: string;
}

/**
 * The skill directory inside a fetched root: the root itself when it holds SKILL.md, else the
 * one skill found there, else the one whose key is the installed key.
 */
async function skillDirOf(root: string, key: string): Promise<string> {
  if (existsSync(join(root, "SKILL.md"))) return root;
  const found = await findSkills(root);
  const pick = found.length === 1 ? found[0] : found.find((f) => f.key === key);
  if (pick === undefined) throw notFound(`Skill '${key}' is no longer in its source`);
  return pick.dir;
}

/**
 * git/github: the commit the spec's ref (or HEAD) names on the remote, an annotated tag peeled;
 * a commit pin is its own identity. local: the bundle hash of the source skill directory.
 * well_known: the bundle hash of a fresh download. registry: the entry's commit, or its ref's
 * commit now. hermes: UNAVAILABLE, like install.
 */
export async function upstreamIdentity(spec: SourceSpec, opts: UpstreamOptions): Promise<string> {
  switch (spec.kind) {
    case "git":
    case "github": {
      if (spec.pinned && spec.ref !== null) return spec.ref;
      if (spec.cloneUrl === null) throw new LemonError("OPERATION_FAILED", "git source has no clone URL");
      return remoteCommit(spec.cloneUrl, spec.ref, opts);
    }
    case "local": {
      // fetchSource applies the subdir and refuses a symlinked one; a local fetch copies nothing.
      const fetched = await fetchSource(spec, opts.scratch, opts);
      return computeBundleHash(await skillDirOf(fetched.root, opts.key));
    }
    case "well_known": {
      const into = join(opts.scratch, `.fetch-${randomHex(6)}`);
      await mkdir(opts.scratch, { recursive: true, mode: 0o755 });
      await mkdir(into, { mode: 0o700 });
      try {
        const fetched = await fetchSource(spec, into, opts);
        return await computeBundleHash(await skillDirOf(fetched.root, opts.key));
      } finally {
        await rm(into, { recursive: true, force: true });
      }
    }
    case "registry": {
      // The entry is asked again: the registry may have moved it to another commit or ref.
      const base = spec.registryBase ?? registryBase({ env: opts.env });
      const entry = await fetchRegistryEntry(base, spec.registryRef ?? spec.sourceId, httpOf(spec, opts));
      const clone = cloneRequestOf(entry);
      return clone.pinned && clone.ref !== null ? clone.ref : remoteCommit(clone.url, clone.ref, opts);
    }
    case "hermes":
      return hermesUpstream(spec, hermesOptions(spec, opts));
    default:
      throw new LemonError("UNAVAILABLE", `${spec.kind} sources are not available in this version`);
  }
}
