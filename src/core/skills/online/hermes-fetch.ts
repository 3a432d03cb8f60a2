/**
 * @module skills/online/hermes-fetch
 * Installing a Hermes id without git (install.md §4.5): every blob under the skill's path in the
 * pinned tree, downloaded from the raw origin at the commit sha and checked against its blob id,
 * so a file that changed after the listing (or a server that lies) fails the install before
 * anything is staged. Symlinks and submodules in the tree refuse it as on disk.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { invalidRequest, LemonError, notFound } from "../../errors.ts";
import type { GitHubTreeEntry } from "../../schema/hermes.ts";
import { computeBundleHash, LIMITS } from "../bundle.ts";
import { bounded } from "../install/bounded.ts";
import { FILE_CAP, httpGet } from "../install/http.ts";
import type { SourceSpec } from "../install/source.ts";
import {
  COLLECTION_DIRS,
  fetchTree,
  gitBlobId,
  HERMES_REPO,
  remoteOf,
  resolveCommit,
  type HermesOptions,
  type Remote,
} from "./hermes.ts";
import { localHead, localRepo, localSkillDir } from "./hermes-local.ts";

const DOWNLOADS_AT_ONCE = 8;

export interface HermesFetched {
  root: string;
  resolvedCommit: string | null;
  /** The skill's tree sha (remote); null for a local checkout (the bundle hash stands in). */
  upstreamHash: string | null;
}

const limit = (which: string) =>
  invalidRequest(`bundle_limits_exceeded: ${which}`, { details: { reasons: [`bundle_limits_exceeded: ${which}`] } });

function hermesOf(spec: SourceSpec) {
  if (!spec.hermes) throw new LemonError("OPERATION_FAILED", `no hermes id in ${spec.display}`);
  const { collection, segments } = spec.hermes;
  return { collection, segments, path: [COLLECTION_DIRS[collection], ...segments].join("/") };
}

/** The skill's tree sha and its entries (paths relative to the skill), from a pinned commit. */
async function skillTree(
  r: Remote,
  commit: string,
  path: string,
  id: string,
): Promise<{ treeSha: string; files: GitHubTreeEntry[] }> {
  const full = await fetchTree(r, commit);
  const dir = full.entries.find((e) => e.path === path && e.type === "tree");
  if (!dir) throw notFound(`hermes skill '${id}' not found at ${r.ref}`);
  let entries = full.entries
    .filter((e) => e.path.startsWith(`${path}/`))
    .map((e) => ({ ...e, path: e.path.slice(path.length + 1) }));
  // A cut listing may miss some of the skill's files: its own subtree is complete or says so.
  if (full.truncated) {
    const sub = await fetchTree(r, dir.sha);
    if (sub.truncated) throw new LemonError("OPERATION_FAILED", `the tree of hermes skill '${id}' is truncated`);
    entries = sub.entries;
  }
  if (!entries.some((e) => e.path === "SKILL.md" && e.type === "blob" && e.mode !== "120000"))
    throw notFound(`hermes skill '${id}' not found at ${r.ref}`);
  return { treeSha: dir.sha, files: entries };
}

function checkEntries(entries: GitHubTreeEntry[]): GitHubTreeEntry[] {
  const blobs: GitHubTreeEntry[] = [];
  let total = 0;
  const seen = new Set<string>();
  for (const e of entries) {
    if (seen.has(e.path)) throw new LemonError("OPERATION_FAILED", "the hermes tree lists a path twice");
    seen.add(e.path);
    const shown = JSON.stringify(e.path.slice(0, 120));
    if (e.mode === "120000")
      throw invalidRequest(`symlink_not_allowed: ${e.path}`, {
        details: { reasons: [`symlink_not_allowed: ${e.path}`] },
      });
    if (e.type === "commit")
      throw invalidRequest(`special_file_not_allowed: ${e.path}`, {
        details: { reasons: [`special_file_not_allowed: ${e.path}`] },
      });
    const segs = e.path.split("/");
    if (
      e.path.includes("\\") ||
      /[\u0000-\u001f\u007f]/.test(e.path) ||
      segs.some((s) => s === "" || s === "." || s === "..")
    )
      throw new LemonError("OPERATION_FAILED", `invalid path ${shown} in the hermes tree`);
    if (e.type !== "blob") continue;
    if (Buffer.byteLength(e.path, "utf8") > LIMITS.maxRelPathBytes) throw limit("path too long");
    if (segs.length > LIMITS.maxDepth) throw limit("depth");
    if ((e.size ?? 0) > LIMITS.maxFileBytes) throw limit(`file ${shown} too large`);
    total += e.size ?? 0;
    blobs.push(e);
  }
  const files = new Set(blobs.map((b) => b.path));
  for (const b of blobs) {
    const segs = b.path.split("/");
    for (let i = 1; i < segs.length; i++)
      if (files.has(segs.slice(0, i).join("/")))
        throw new LemonError(
          "OPERATION_FAILED",
          `hermes tree path ${segs.slice(0, i).join("/")} is a file and a directory`,
        );
  }
  if (blobs.length > LIMITS.maxFiles) throw limit(`more than ${LIMITS.maxFiles} files`);
  if (total > LIMITS.maxTotalBytes) throw limit("total size");
  return blobs;
}

/** install.md §4.5 fetch into the private dir `into`; the caller stages the returned root. */
export async function fetchHermes(spec: SourceSpec, into: string, opts: HermesOptions): Promise<HermesFetched> {
  const { collection, segments, path } = hermesOf(spec);
  const repo = localRepo(opts.env);
  if (repo !== null) {
    const root = await localSkillDir(repo, collection, segments, spec.sourceId);
    return { root, resolvedCommit: localHead(repo), upstreamHash: null };
  }
  const r = remoteOf(opts);
  const commit = await resolveCommit(r, null, null);
  const { treeSha, files } = await skillTree(r, commit, path, spec.sourceId);
  const blobs = checkEntries(files);
  const root = join(into, "hermes", spec.key ?? "skill");
  await mkdir(root, { recursive: true, mode: 0o700 });
  let done = 0;
  let total = 0;
  await bounded(blobs, DOWNLOADS_AT_ONCE, async (e) => {
    const url = `${r.raw}/${HERMES_REPO}/${commit}/${[...path.split("/"), ...e.path.split("/")].map(encodeURIComponent).join("/")}`;
    const res = await httpGet(url, { ...r.http, headers: {}, maxBytes: FILE_CAP });
    if (gitBlobId(res.body, e.sha) !== e.sha)
      throw new LemonError(
        "OPERATION_FAILED",
        `hermes file ${e.path} does not match the tree at ${commit.slice(0, 12)}; retry`,
      );
    total += res.body.byteLength;
    if (total > LIMITS.maxTotalBytes) throw limit("total size");
    const file = join(root, ...e.path.split("/"));
    await mkdir(join(file, ".."), { recursive: true, mode: 0o700 });
    // `wx`: every path is new in a directory only this process writes; never through a link.
    await writeFile(file, res.body, { flag: "wx", mode: e.mode === "100755" ? 0o700 : 0o600 });
    done++;
    if (opts.onProgress && (done % 10 === 0 || done === blobs.length))
      opts.onProgress(`hermes: downloaded ${done}/${blobs.length} files`);
  });
  return { root, resolvedCommit: commit, upstreamHash: treeSha };
}

/** install.md §9 upstream identity: the skill's tree sha now (no download), or a checkout's bundle hash. */
export async function hermesUpstream(spec: SourceSpec, opts: HermesOptions): Promise<string> {
  const { collection, segments, path } = hermesOf(spec);
  const repo = localRepo(opts.env);
  if (repo !== null) return computeBundleHash(await localSkillDir(repo, collection, segments, spec.sourceId));
  const r = remoteOf(opts);
  const commit = await resolveCommit(r, null, null);
  return (await skillTree(r, commit, path, spec.sourceId)).treeSha;
}
