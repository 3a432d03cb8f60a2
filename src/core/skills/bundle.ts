/**
 * @module skills/bundle
 * The bundle of install.md §7.1: every entry under a skill directory (hidden files, any folder),
 * except the top-level `.git/` and, for drafts, the top-level `.draft_meta.json`; and its
 * deterministic hash (§7.2). Symlinks are never followed and special files are never opened.
 * The one walker of a skill directory: the audit, lint (symlinks) and inspect (hash) use it.
 */
import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";
import { lstat, readdir, readlink } from "node:fs/promises";
import { join } from "node:path";
import { conflict, invalidRequest } from "../errors.ts";
import { sha256Hex } from "../hash.ts";
import { readRegularFile } from "../fsx/regular-file.ts";

export type EntryKind = "file" | "symlink" | "special";

export interface BundleEntry {
  /** `/`-separated path relative to the skill directory. */
  rel: string;
  kind: EntryKind;
  size: number;
  /** Directory depth of the entry (a root file has depth 1). */
  depth: number;
  /** Link target text, for symlinks; `fifo`, `socket` or `char|block:<rdev>` for special files. */
  target?: string;
  /** Identity of what was listed: a read that finds another file there refuses it. */
  ino?: number;
  dev?: number;
}

export interface BundleProblem {
  code: "symlink_not_allowed" | "special_file_not_allowed" | "bundle_limits_exceeded";
  detail: string;
}

export interface Bundle {
  dir: string;
  entries: BundleEntry[];
  /** Limit violations of §7.1, in discovery order; installs refuse the bundle when non-empty. */
  problems: BundleProblem[];
  totalBytes: number;
  /**
   * Why the listing misses part of the tree (walk caps, an unreadable directory), else null. Such a
   * bundle has no honest hash and no complete audit: both refuse it (`assertComplete`).
   */
  incomplete: string | null;
}

/** install.md §7.1 limits. */
export const LIMITS = {
  maxFiles: 2000,
  maxTotalBytes: 64 * 1024 * 1024,
  maxFileBytes: 16 * 1024 * 1024,
  maxDepth: 16,
  maxRelPathBytes: 512,
} as const;

/** Enumeration stops here (files and directories) so a hostile tree cannot make an audit run forever. */
export const WALK_CAP = 20_000;
const WALK_DEPTH_CAP = 40;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001F\u007F]/u;

export interface EnumerateOptions {
  /** `draft` excludes the top-level `.draft_meta.json`. */
  kind?: "skill" | "draft";
  /**
   * Relative paths (`a/b`) left out with everything under them: an install never bundles lemon's
   * own state that happens to lie inside the source (its destination root, `.lemon`, A).
   */
  exclude?: readonly string[];
}

function byteCompare(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));
}

function validName(name: string): boolean {
  return !CONTROL.test(name) && !name.includes("\uFFFD") && Buffer.from(name, "utf8").toString("utf8") === name;
}

/** Lists the bundle without reading file contents. Never throws for what it finds inside. */
export async function enumerateBundle(dir: string, opts: EnumerateOptions = {}): Promise<Bundle> {
  const entries: BundleEntry[] = [];
  const problems: BundleProblem[] = [];
  let totalBytes = 0;
  let seen = 0;
  let incomplete: string | null = null;
  const pending: { abs: string; rel: string; depth: number }[] = [{ abs: dir, rel: "", depth: 0 }];
  while (pending.length > 0) {
    const cur = pending.pop()!;
    let names: Buffer[];
    try {
      // Raw names: a decoded one would turn bytes that are not UTF-8 into U+FFFD, so two different
      // names could hash alike and neither could be opened again by its decoded spelling.
      names = await readdir(cur.abs, { encoding: "buffer" });
    } catch (err) {
      if (cur.rel === "") throw err;
      incomplete = `unreadable directory ${JSON.stringify(cur.rel)}`;
      break;
    }
    for (const raw of names) {
      const name = raw.toString("utf8");
      const where = cur.rel === "" ? "." : JSON.stringify(cur.rel);
      if (!Buffer.from(name, "utf8").equals(raw)) {
        incomplete = `file name not valid UTF-8 in ${where}`;
        break;
      }
      // The hash's own separators: `a<TAB><sha>\nb` as one name would hash like files a and b.
      if (/[\t\n]/.test(name)) {
        incomplete = `file name with a tab or newline in ${where}`;
        break;
      }
      if (cur.rel === "" && name === ".git") continue;
      if (cur.rel === "" && name === ".draft_meta.json" && opts.kind === "draft") continue;
      const rel = cur.rel === "" ? name : `${cur.rel}/${name}`;
      if (opts.exclude?.includes(rel)) continue;
      const abs = join(cur.abs, name);
      const depth = cur.depth + 1;
      if (++seen > WALK_CAP) {
        incomplete = `more than ${WALK_CAP} entries to enumerate`;
        break;
      }
      if (!validName(name))
        problems.push({ code: "bundle_limits_exceeded", detail: `invalid file name ${JSON.stringify(rel)}` });
      if (Buffer.byteLength(rel, "utf8") > LIMITS.maxRelPathBytes)
        problems.push({ code: "bundle_limits_exceeded", detail: `relative path over ${LIMITS.maxRelPathBytes} bytes` });
      const st = await lstat(abs).catch(() => {
        throw conflict(`${rel} changed while the bundle was read; retry`);
      });
      if (st.isDirectory()) {
        if (depth > LIMITS.maxDepth && !problems.some((p) => p.detail.startsWith("depth over")))
          problems.push({ code: "bundle_limits_exceeded", detail: `depth over ${LIMITS.maxDepth}` });
        if (depth >= WALK_DEPTH_CAP) {
          incomplete = `directories nested more than ${WALK_DEPTH_CAP} deep`;
          break;
        }
        pending.push({ abs, rel, depth });
        continue;
      }
      if (depth > LIMITS.maxDepth && !problems.some((p) => p.detail.startsWith("depth over")))
        problems.push({ code: "bundle_limits_exceeded", detail: `depth over ${LIMITS.maxDepth}` });
      if (st.isSymbolicLink()) {
        entries.push({ rel, kind: "symlink", size: 0, depth, target: await readlink(abs) });
        problems.push({ code: "symlink_not_allowed", detail: rel });
      } else if (st.isFile()) {
        entries.push({ rel, kind: "file", size: st.size, depth, ino: st.ino, dev: st.dev });
        totalBytes += st.size;
        if (st.size > LIMITS.maxFileBytes)
          problems.push({ code: "bundle_limits_exceeded", detail: `file over 16 MiB: ${rel}` });
      } else {
        const device = `${st.isCharacterDevice() ? "char" : "block"}:${st.rdev}`;
        const what = st.isFIFO() ? "fifo" : st.isSocket() ? "socket" : device;
        entries.push({ rel, kind: "special", size: 0, depth, target: what });
        problems.push({ code: "special_file_not_allowed", detail: rel });
      }
    }
    if (incomplete !== null) break;
  }
  const files = entries.filter((e) => e.kind === "file").length;
  if (files > LIMITS.maxFiles)
    problems.push({ code: "bundle_limits_exceeded", detail: `more than ${LIMITS.maxFiles} files` });
  if (totalBytes > LIMITS.maxTotalBytes)
    problems.push({ code: "bundle_limits_exceeded", detail: "more than 64 MiB in total" });
  entries.sort((a, b) => byteCompare(a.rel, b.rel));
  return { dir, entries, problems, totalBytes, incomplete };
}

/**
 * Refuses a bundle whose listing is incomplete (install.md §7.1 `bundle_limits_exceeded`): its hash
 * would leave files out, so two different bundles could share it, and its audit would skip them.
 */
export function assertComplete(bundle: Bundle): void {
  if (bundle.incomplete === null) return;
  const message = `bundle_limits_exceeded: ${bundle.incomplete}`;
  throw invalidRequest(message, { details: { reasons: [message] } });
}

/** Refuses a bundle an install must not accept (install.md §5 step 5, §7.1). */
export function assertInstallable(bundle: Bundle): void {
  assertComplete(bundle);
  const p = bundle.problems[0];
  if (p === undefined) return;
  const message =
    p.code === "bundle_limits_exceeded" ? `bundle_limits_exceeded: ${p.detail}` : `${p.code}: ${p.detail}`;
  throw invalidRequest(message, {
    details: { reasons: bundle.problems.slice(0, 10).map((x) => `${x.code}: ${x.detail}`) },
  });
}

/** The hash line of one entry (§7.2); special files, which installs refuse, hash their type. */
export function hashLine(entry: BundleEntry, contentHash: string): string {
  if (entry.kind === "symlink") return `${entry.rel}\tsymlink:${sha256Hex(entry.target ?? "")}`;
  if (entry.kind === "special") return `${entry.rel}\tspecial:${entry.target ?? ""}`;
  return `${entry.rel}\t${contentHash}`;
}

/** sha256 over the sorted `<relpath>\t<sha256>` lines joined by `\n` (no trailing newline). */
export function bundleHashFromLines(lines: string[]): string {
  return sha256Hex(lines.join("\n"));
}

/** A file's bytes (when it fits `maxBytes`) and its sha256; `bytes` null when only hashed. */
export interface EntryRead {
  bytes: Uint8Array | null;
  hash: string;
}

const CHUNK = 1024 * 1024;

/** Hashes a file too large to hold, chunk by chunk, on an already vetted descriptor. */
function hashDescriptor(fd: number): string {
  const hasher = new Bun.CryptoHasher("sha256");
  const buf = Buffer.allocUnsafe(CHUNK);
  for (let n = readSync(fd, buf, 0, CHUNK, null); n > 0; n = readSync(fd, buf, 0, CHUNK, null))
    hasher.update(buf.subarray(0, n));
  return hasher.digest("hex");
}

const swapped = (rel: string) => conflict(`${rel} changed while the bundle was read; retry`);

/**
 * Reads one regular file of the bundle, never blocking and never holding more than `maxBytes`
 * (default: the §7.1 file limit; larger files are only hashed). The file must still be the one
 * listed (same inode): a FIFO, a symlink or another file swapped in meanwhile is refused.
 */
export function readEntry(bundle: Bundle, entry: BundleEntry, maxBytes: number = LIMITS.maxFileBytes): EntryRead {
  const path = join(bundle.dir, ...entry.rel.split("/"));
  const same = (st: { ino: number; dev: number; isFile(): boolean }) =>
    st.isFile() && (entry.ino === undefined || (st.ino === entry.ino && st.dev === entry.dev));
  const r = readRegularFile(path, maxBytes);
  if (r.ok) {
    if (!same(r.stat)) throw swapped(entry.rel);
    // A small file comes back as a view of a 64 KiB read buffer; kept as is, thousands of tiny
    // files would pin gigabytes. A copy holds only its bytes.
    const bytes = r.bytes.byteLength * 2 < r.bytes.buffer.byteLength ? new Uint8Array(r.bytes) : r.bytes;
    return { bytes, hash: sha256Hex(bytes) };
  }
  // Fail closed, as for an unreadable directory: a file nobody can read cannot be hashed or audited.
  if (r.problem === "unreadable")
    throw invalidRequest(`bundle_limits_exceeded: unreadable file ${JSON.stringify(entry.rel)}`);
  if (r.problem !== "too_large") throw swapped(entry.rel);
  const fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  try {
    if (!same(fstatSync(fd))) throw swapped(entry.rel);
    return { bytes: null, hash: hashDescriptor(fd) };
  } finally {
    closeSync(fd);
  }
}

/** The bundle hash of a skill directory (install.md §7.2), computed from its current bytes. */
export async function computeBundleHash(dir: string, opts: EnumerateOptions = {}): Promise<string> {
  const bundle = await enumerateBundle(dir, opts);
  assertComplete(bundle);
  const lines = bundle.entries.map((e) => hashLine(e, e.kind === "file" ? readEntry(bundle, e, CHUNK).hash : ""));
  return bundleHashFromLines(lines);
}
