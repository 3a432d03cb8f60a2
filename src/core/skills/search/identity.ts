/**
 * @module skills/search/identity
 * Scope ids and the content identity of skills.md §7.3: the root list, the candidate directories
 * in precedence order, (size, mtime, ctime, inode, device) of every SKILL.md and of the scope's
 * lockfile, and the stats of the directories the scan read.
 *
 * The scan (readdir, plus lstat and realpath per entry) is the expensive part, so a snapshot keeps
 * the scan it was built from (`encodeScan`) with the stats of its watched paths (scan.ts
 * `ScanWatch`: listed directories, directories without SKILL.md, symlink entries). When every
 * watched stat is unchanged, so is the candidate set (an entry added, removed or renamed moves
 * its directory's mtime; a retargeted link changes its stat), and the check is stats only: the
 * watched paths and every SKILL.md (read from the snapshot's PATHS section, stat-many.ts). Anything
 * else — other roots, a watched stat that moved, a SKILL.md gone or turned into a directory —
 * falls back to the full scan. Watched stats are part of the digest, so the stored ones match it.
 */
import { join, sep } from "node:path";
import type { Diagnostic } from "../../diagnostics.ts";
import { canonicalRoots, scopeId, type SkillRoot } from "../roots.ts";
import type { SkillCandidate } from "../scan.ts";
import { fromUtf8, utf8, type Snapshot } from "./format.ts";
import {
  Kind,
  headShare,
  STAT_FIELDS,
  existsUnresolved,
  fingerprintAt,
  kindAt,
  put,
  statMany,
  statOne,
  type StatTable,
} from "./stat-many.ts";

// A scope is its root list; the audit cache names project scopes the same way (roots.ts).
export { canonicalRoots, scopeId };

export interface ScopeIdentity {
  digest: Uint8Array;
  hex: string;
  /** The encoded scan and the stats of its watched paths, stored in the snapshot. */
  scan: Uint8Array;
  watch: StatTable;
  /** Stats of every candidate's SKILL.md, in candidate order. */
  files: StatTable;
  /** True when the scan was reused from the previous snapshot (stats only). */
  lean: boolean;
  /** How many candidates the scan found. */
  count: number;
  /** Candidates in precedence order (decoded on first use). */
  candidates(): SkillCandidate[];
  /** The directories and symlink entries the scan read (decoded on first use). */
  watchedPaths(): string[];
  /** Fingerprint per candidate ("" when SKILL.md cannot be stat'ed). */
  fingerprints(): string[];
  diagnostics(): Diagnostic[];
  /** False when a stats-only check statted paths (PATHS) not its scan's own, or the scan does not decode. */
  pathsAgree(): boolean;
  /** PATHS for a snapshot built on this identity (format.ts), from the scan: a damaged one is not carried on. */
  statPaths(): Uint8Array;
}

/**
 * Fields per candidate in the encoded scan: root index, category ("" for none), key, and the real
 * path, "" when it is the root's real path joined the same way (no symlink on the way). The path
 * is always root/[category/]key (scan.ts), so it is rebuilt rather than stored.
 */
const CANDIDATE_FIELDS = 4;

/** `dir` with a trailing separator, as `join` would prefix a child of it. */
const prefixOf = (dir: string) => join(dir, "_").slice(0, -1);
const under = (prefix: string, category: string, key: string) =>
  category === "" ? prefix + key : prefix + category + sep + key;

interface ScanHeader {
  roots: string;
  watch: number;
  candidates: number;
  diagnostics: Diagnostic[];
}

/**
 * The scan as one NUL-separated string (no path may hold a NUL): a JSON header, the watched
 * paths, then the candidate fields. Splitting it back is one decode and one split.
 */
function encodeScan(
  rootsJson: string,
  roots: readonly SkillRoot[],
  watch: readonly string[],
  candidates: readonly SkillCandidate[],
  diagnostics: Diagnostic[],
): Uint8Array {
  const header: ScanHeader = { roots: rootsJson, watch: watch.length, candidates: candidates.length, diagnostics };
  const parts: string[] = [JSON.stringify(header), ...watch];
  const realPrefix = roots.map((r) => prefixOf(r.realPath));
  for (const c of candidates) {
    const root = roots.indexOf(c.root);
    const category = c.category ?? "";
    parts.push(
      String(root),
      category,
      c.key,
      c.realPath === under(realPrefix[root]!, category, c.key) ? "" : c.realPath,
    );
  }
  return utf8(parts.join("\0"));
}

interface DecodedScan {
  header: ScanHeader;
  fields: string[];
}

function decodeScan(bytes: Uint8Array): DecodedScan | null {
  if (bytes.length === 0) return null;
  const fields = fromUtf8(bytes).split("\0");
  let header: unknown;
  try {
    header = JSON.parse(fields[0]!);
  } catch {
    return null;
  }
  if (!isHeader(header) || fields.length !== 1 + header.watch + header.candidates * CANDIDATE_FIELDS) return null;
  return { header, fields };
}

function isHeader(v: unknown): v is ScanHeader {
  if (typeof v !== "object" || v === null) return false;
  const h = v as Record<string, unknown>;
  return (
    typeof h.roots === "string" &&
    Number.isInteger(h.watch) &&
    Number.isInteger(h.candidates) &&
    Array.isArray(h.diagnostics)
  );
}

const skillFileOf = (path: string) => path + sep + "SKILL.md";

/** The candidate directories of a decoded scan, or null when it names a root that is not there. */
function pathsOf(d: DecodedScan, roots: readonly SkillRoot[]): string[] | null {
  const prefix = roots.map((r) => prefixOf(r.path));
  const out = new Array<string>(d.header.candidates);
  for (let i = 0, o = 1 + d.header.watch; i < d.header.candidates; i++, o += CANDIDATE_FIELDS) {
    const p = prefix[Number(d.fields[o])];
    if (p === undefined) return null;
    out[i] = under(p, d.fields[o + 1]!, d.fields[o + 2]!);
  }
  return out;
}

function candidatesOf(d: DecodedScan, roots: readonly SkillRoot[], paths: readonly string[]): SkillCandidate[] {
  const realPrefix = roots.map((r) => prefixOf(r.realPath));
  const out: SkillCandidate[] = [];
  for (let i = 0, o = 1 + d.header.watch; i < d.header.candidates; i++, o += CANDIDATE_FIELDS) {
    const r = Number(d.fields[o]);
    const category = d.fields[o + 1]!;
    const key = d.fields[o + 2]!;
    const path = paths[i]!;
    const realPath = d.fields[o + 3] || under(realPrefix[r]!, category, key);
    out.push({ key, root: roots[r]!, path, realPath, category: category || null, skillFile: skillFileOf(path) });
  }
  return out;
}

/** Seeds of the four hash chains that make up the 32-byte digest. */
const CHAINS = [0x6c656d6f6e2d6964n, 0x656e746974792d33n, 0x9e3779b97f4a7c15n, 0xc2b2ae3d27d4eb4fn] as const;

/**
 * 32 bytes from four 64-bit chains over the parts (wyhash and xxHash3, two seeds each, each part
 * hashed with the chain so far as its seed): a change detector for stats the kernel sets, not a
 * signature (whoever can make a SKILL.md's stats collide can edit the file). SHA-256 over the
 * ~1 MB of an 11k scope's scan and tables was ~1.7 ms of a cold check; these take ~0.1 ms.
 */
function digestOf(parts: readonly Parameters<typeof Bun.hash.wyhash>[0][]): Uint8Array {
  const out = new BigUint64Array(CHAINS.length);
  for (let k = 0; k < CHAINS.length; k++) {
    const hash = k < 2 ? Bun.hash.wyhash : Bun.hash.xxHash3;
    let h: bigint = CHAINS[k]!;
    for (const p of parts) h = hash(p, h);
    out[k] = h;
  }
  return new Uint8Array(out.buffer);
}

interface Decoded {
  candidates: SkillCandidate[];
  diagnostics: Diagnostic[];
  watched: string[];
}

function identity(
  rootsJson: string,
  lockfile: string,
  scan: () => Uint8Array,
  watch: StatTable,
  files: StatTable,
  lean: boolean,
  decode: () => Decoded,
  statted: (() => readonly string[]) | null = null,
): ScopeIdentity {
  // The lockfile is stat'ed with the check; the digest and the scan's bytes are made on first
  // read: the store reads neither for a scope without skills (the usual empty project scope).
  const lock = new Float64Array(STAT_FIELDS);
  put(lock, 0, statOne(lockfile));
  let digest: Uint8Array | null = null;
  let encoded: Uint8Array | null = null;
  const scanBytes = () => (encoded ??= scan());
  const count = files.length / STAT_FIELDS;
  let decoded: Decoded | null = null;
  let fps: string[] | null = null;
  const get = () => (decoded ??= decode());
  let own: string[] | null = null;
  const ownPaths = () => (own ??= [...get().watched, ...get().candidates.map((c) => c.skillFile)]);
  const agree = (): boolean => {
    if (statted === null) return true;
    try {
      const [mine, theirs] = [ownPaths(), statted()];
      return mine.length === theirs.length && mine.every((p, i) => p === theirs[i]);
    } catch {
      return false;
    }
  };
  let hex: string | null = null;
  return {
    get digest() {
      return (digest ??= digestOf([`lemon-identity 3\n${rootsJson}\n`, lock, scanBytes(), watch, files]));
    },
    // Only a rebuild and the watches read it: a cold check does not pay Buffer's first use.
    get hex() {
      return (hex ??= Buffer.from(this.digest).toString("hex"));
    },
    get scan() {
      return scanBytes();
    },
    watch,
    files,
    lean,
    count,
    candidates: () => get().candidates,
    watchedPaths: () => get().watched,
    diagnostics: () => get().diagnostics,
    fingerprints: () => (fps ??= get().candidates.map((_, i) => fingerprintAt(files, i))),
    pathsAgree: agree,
    statPaths: () => utf8(ownPaths().join("\0")),
  };
}

/** Only the JSON header of an encoded scan (the text before its first NUL). */
function scanHeader(scan: Uint8Array): ScanHeader | null {
  const end = scan.indexOf(0);
  let header: unknown;
  try {
    header = JSON.parse(fromUtf8(end < 0 ? scan : scan.subarray(0, end)));
  } catch {
    return null;
  }
  return isHeader(header) ? header : null;
}

interface StoredScan {
  rootsJson: string;
  header: ScanHeader;
  /**
   * What one check stats (the watched paths, then every SKILL.md) in two parts: the pool's first
   * paths, and the rest (null until decoded, from tailAt in PATHS) decoded while the pool stats
   * those; all in `head` below PARALLEL_MIN (stat-many.ts headShare). `all`: both, when needed.
   */
  head: string[];
  tail: string[] | null;
  tailAt: number;
  all: string[] | null;
}

/**
 * What a snapshot's check stats, kept while the snapshot lives (a long-lived process checks it
 * every 50 ms); the scan's candidate fields are decoded only when a rebuild or a listing needs them.
 */
const storedScans = new WeakMap<Snapshot, StoredScan | null>();

function storedScan(previous: Snapshot, rootsJson: string): StoredScan | null {
  const hit = storedScans.get(previous);
  if (hit !== undefined && (hit === null || hit.rootsJson === rootsJson)) return hit;
  const header = scanHeader(previous.scan);
  let out: StoredScan | null = null;
  if (header && header.roots === rootsJson && previous.watch.length === header.watch * STAT_FIELDS) {
    const n = header.watch + header.candidates;
    const bytes = previous.paths;
    // The head by bytes (one search for a NUL, not thousands counted): path lengths vary little.
    const share = headShare(n);
    const cut = share < 1 ? bytes.indexOf(0, Math.floor(bytes.length * share)) : -1;
    const head = n === 0 ? [] : fromUtf8(cut < 0 ? bytes : bytes.subarray(0, cut)).split("\0");
    if (cut >= 0 ? head.length < n : head.length === n)
      out = { rootsJson, header, head, tail: cut < 0 ? [] : null, tailAt: cut + 1, all: cut < 0 ? head : null };
  }
  storedScans.set(previous, out);
  return out;
}

/** The stored paths after the head, decoded once. */
function tailOf(stored: StoredScan, previous: Snapshot): string[] {
  return (stored.tail ??= fromUtf8(previous.paths.subarray(stored.tailAt)).split("\0"));
}

/** Candidates, diagnostics and watched paths of a stored scan; throws when it does not decode. */
function decodeStored(scan: Uint8Array, roots: readonly SkillRoot[]): Decoded {
  const d = decodeScan(scan);
  const dirs = d ? pathsOf(d, roots) : null;
  if (!d || !dirs) throw new Error("the snapshot's stored scan does not decode");
  return {
    candidates: candidatesOf(d, roots, dirs),
    diagnostics: d.header.diagnostics,
    watched: d.fields.slice(1, 1 + d.header.watch),
  };
}

/** The stats-only check against the scan stored in `previous`; null when a full scan is needed. */
async function leanIdentity(
  roots: readonly SkillRoot[],
  rootsJson: string,
  lockfile: string,
  previous: Snapshot,
): Promise<ScopeIdentity | null> {
  const stored = storedScan(previous, rootsJson);
  if (!stored) return null;
  const { header, head } = stored;
  const nWatch = header.watch;
  const total = nWatch + header.candidates;
  const { table: all, odd } = await statMany({ head, total, rest: () => tailOf(stored, previous) }, nWatch);
  if (head.length + tailOf(stored, previous).length !== total) {
    storedScans.set(previous, null);
    return null;
  }
  const paths = () => (stored.all ??= [...head, ...tailOf(stored, previous)]);
  const watch = all.subarray(0, nWatch * STAT_FIELDS);
  for (let i = 0; i < watch.length; i++) if (watch[i] !== previous.watch[i]) return null;
  const files = all.subarray(nWatch * STAT_FIELDS);
  for (const i of odd) {
    const k = kindAt(all, i);
    // Gone or a directory now: the candidate set changed. A dangling link still counts (load reports it).
    if (k === Kind.Dir || (k === Kind.Missing && !existsUnresolved(paths()[i]!))) return null;
  }
  const decode = () => decodeStored(previous.scan, roots);
  return identity(rootsJson, lockfile, () => previous.scan, watch, files, true, decode, paths);
}

/** The full scan, its watched paths stat'ed as the scan reaches them, then every SKILL.md. */
async function fullIdentity(roots: readonly SkillRoot[], rootsJson: string, lockfile: string): Promise<ScopeIdentity> {
  const watched: string[] = [];
  const stats: number[] = [];
  const one = new Float64Array(STAT_FIELDS);
  // The scan code (catalog) loads only when the stored scan cannot be reused.
  const { scanRoots } = await import("../catalog.ts");
  const { candidates, diagnostics } = scanRoots(roots, (path) => {
    watched.push(path);
    put(one, 0, statOne(path));
    stats.push(...one);
  });
  const { table: files } = await statMany(candidates.map((c) => c.skillFile));
  const scan = () => encodeScan(rootsJson, roots, watched, candidates, diagnostics);
  return identity(rootsJson, lockfile, scan, Float64Array.from(stats), files, false, () => ({
    candidates,
    diagnostics,
    watched,
  }));
}

/** The identity of a scope, reusing `previous`'s scan when its watched stats still hold. */
export async function computeIdentity(
  roots: readonly SkillRoot[],
  lockfile: string,
  previous: Snapshot | null = null,
): Promise<ScopeIdentity> {
  const rootsJson = canonicalRoots(roots);
  // No root exists: nothing to scan (roots are re-resolved every check interval, so one created
  // later is seen), and the scan code is not even loaded.
  if (!roots.some((r) => r.exists))
    return identity(
      rootsJson,
      lockfile,
      () => encodeScan(rootsJson, roots, [], [], []),
      new Float64Array(0),
      new Float64Array(0),
      false,
      () => ({ candidates: [], diagnostics: [], watched: [] }),
    );
  if (previous) {
    const lean = await leanIdentity(roots, rootsJson, lockfile, previous);
    if (lean) return lean;
  }
  return fullIdentity(roots, rootsJson, lockfile);
}

export function sameIdentity(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
