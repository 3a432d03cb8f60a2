/**
 * @module skills/online/hermes-local
 * A local Hermes checkout (`LEMON_HERMES_REPO`, install.md §4.5) in place of the network: the
 * catalog from walking `skills/` and `optional-skills/` (depth ≤ 6, symlinks never followed),
 * details read from disk, the commit from the checkout's `.git` when it resolves.
 */
import { lstat, readdir } from "node:fs/promises";
import { isAbsolute, join, resolve } from "node:path";
import { envValue } from "../../context.ts";
import { invalidRequest, notFound } from "../../errors.ts";
import { readRegularFile } from "../../fsx/regular-file.ts";
import { decodeUtf8 } from "../../text.ts";
import { MAX_SKILL_FILE_BYTES } from "../frontmatter.ts";
import {
  COLLECTION_DIRS,
  detailsOf,
  gitBlobId,
  makeEntry,
  safeSegment,
  type Collection,
  type HermesCatalog,
  type HermesEntry,
} from "./hermes.ts";

const MAX_DEPTH = 6;
const WALK_CAP = 20_000;

/** The checkout `LEMON_HERMES_REPO` names, or null for the network. A value that is no directory fails. */
export function localRepo(env: Readonly<Record<string, string | undefined>>): string | null {
  const v = envValue(env, "LEMON_HERMES_REPO");
  if (v === undefined) return null;
  if (!isAbsolute(v)) throw invalidRequest("LEMON_HERMES_REPO must be an absolute path");
  return resolve(v);
}

async function isDir(p: string): Promise<boolean> {
  const st = await lstat(p).catch(() => null);
  return st?.isDirectory() === true;
}

/** The skill directories under one collection dir: relative segments, depth ≤ 6, no symlinks. */
async function walk(root: string): Promise<string[][]> {
  const out: string[][] = [];
  let seen = 0;
  const visit = async (dir: string, segs: string[]): Promise<void> => {
    if (segs.length > MAX_DEPTH || seen++ > WALK_CAP) return;
    const items = await readdir(dir, { withFileTypes: true }).catch(() => []);
    if (segs.length > 0 && items.some((i) => i.name === "SKILL.md" && i.isFile())) out.push(segs);
    for (const i of items)
      if (i.isDirectory() && safeSegment(i.name) && i.name !== ".git")
        await visit(join(dir, i.name), [...segs, i.name]);
  };
  await visit(root, []);
  return out;
}

/** The commit HEAD names in `<repo>/.git` (a branch ref, packed or loose, or a detached sha), else null. */
export function localHead(repo: string): string | null {
  const read = (p: string) => {
    const r = readRegularFile(p, 1 << 20);
    return r.ok ? (decodeUtf8(r.bytes) ?? "") : null;
  };
  const gitDir = join(repo, ".git");
  const head = read(join(gitDir, "HEAD"))?.trim();
  if (head === undefined) return null;
  if (/^[0-9a-f]{40}([0-9a-f]{24})?$/.test(head)) return head;
  const m = /^ref: (refs\/[A-Za-z0-9._/-]+)$/.exec(head);
  if (!m || m[1]!.includes("..")) return null;
  const loose = read(join(gitDir, ...m[1]!.split("/")))?.trim();
  if (loose !== undefined && /^[0-9a-f]{40}([0-9a-f]{24})?$/.test(loose)) return loose;
  const packed = read(join(gitDir, "packed-refs")) ?? "";
  for (const line of packed.split("\n")) {
    const [sha, name] = line.trim().split(" ");
    if (name === m[1] && sha !== undefined && /^[0-9a-f]{40}([0-9a-f]{24})?$/.test(sha)) return sha;
  }
  return null;
}

export async function localCatalog(
  repo: string,
  details: boolean,
  keep: (e: HermesEntry) => boolean,
): Promise<HermesCatalog> {
  if (!(await isDir(repo))) throw notFound(`LEMON_HERMES_REPO is not a directory: ${repo}`);
  const skills: HermesEntry[] = [];
  for (const collection of Object.keys(COLLECTION_DIRS) as Collection[]) {
    const dir = COLLECTION_DIRS[collection];
    if (!(await isDir(join(repo, dir)))) continue;
    for (const segs of await walk(join(repo, dir))) {
      const path = [dir, ...segs].join("/");
      const read = readRegularFile(join(repo, path, "SKILL.md"), MAX_SKILL_FILE_BYTES);
      const sha = read.ok ? gitBlobId(read.bytes, "") : null;
      const e = makeEntry(collection, segs, path, sha, null);
      if (!keep(e)) continue;
      if (details && read.ok) {
        const d = await detailsOf(read.bytes);
        e.name = d.name || e.key;
        e.description = d.description;
      }
      skills.push(e);
    }
  }
  return { source: "local", commit: localHead(repo), truncated: false, skills, warnings: [] };
}

/**
 * The skill directory of an id in the checkout: every directory on the way must be a real one,
 * so a symlinked category cannot point an install outside the checkout (install.md §4.7).
 */
export async function localSkillDir(repo: string, collection: Collection, segs: string[], id: string): Promise<string> {
  if (!(await isDir(repo))) throw notFound(`LEMON_HERMES_REPO is not a directory: ${repo}`);
  let at = repo;
  const walked: string[] = [];
  for (const seg of [COLLECTION_DIRS[collection], ...segs]) {
    at = join(at, seg);
    walked.push(seg);
    const st = await lstat(at).catch(() => null);
    if (!st) throw notFound(`hermes skill '${id}' not found in ${repo}`);
    if (st.isSymbolicLink())
      throw invalidRequest(`symlink_not_allowed: ${walked.join("/")}`, {
        details: { reasons: [`symlink_not_allowed: ${walked.join("/")}`] },
      });
    if (!st.isDirectory()) throw notFound(`hermes skill '${id}' not found in ${repo}`);
  }
  const skill = await lstat(join(at, "SKILL.md")).catch(() => null);
  if (!skill?.isFile()) throw notFound(`hermes skill '${id}' not found in ${repo}`);
  return at;
}
