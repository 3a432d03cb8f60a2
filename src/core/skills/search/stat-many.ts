/**
 * @module skills/search/stat-many
 * Stats many paths at once for the identity check (skills.md §7.3). A `statSync` loop is bound by
 * the system calls (~2 µs each for a deep path) plus Bun's per-call overhead, one core only: here
 * a share of the paths goes to libuv's thread pool (`fs.stat` with a callback) before the main
 * thread stats the rest synchronously, so the two halves overlap. Results are plain numbers in one
 * Float64Array, no strings per file.
 */
import { lstatSync, stat, statSync, type Stats } from "node:fs";

/** Numbers kept per path: size, mtimeMs, ctimeMs, ino, dev, kind. */
export const STAT_FIELDS = 6;

/** What a path was when stat'ed (following links). */
export const Kind = { Missing: 0, File: 1, Dir: 2, Other: 3 } as const;
export type Kind = (typeof Kind)[keyof typeof Kind];

/** STAT_FIELDS numbers per path; -1 and Kind.Missing when missing. */
export type StatTable = Float64Array;

export function kindAt(t: StatTable, i: number): Kind {
  return t[i * STAT_FIELDS + 5] as Kind;
}

/**
 * Below this many paths the thread pool costs more than it saves: in a fresh process it starts
 * its threads first (a cold `skill relevant` over 1.1k skills was ~1.5 ms slower with it).
 */
const PARALLEL_MIN = 2048;
/** Share of the paths sent to the thread pool (the main thread takes the rest). */
const POOL_SHARE = 0.5;

/** The file-type bits of a mode (`S_IFMT`), and the two the check tells apart, as POSIX spells them. */
const S_IFMT = 0o170000;
const S_IFREG = 0o100000;
const S_IFDIR = 0o040000;

/**
 * Kind from the mode bits: what `isFile()` / `isDirectory()` test, without two native method
 * calls per path (in a cold process those were ~15% of the check at 1.1k).
 */
function kindOf(mode: number): Kind {
  const f = mode & S_IFMT;
  return f === S_IFREG ? Kind.File : f === S_IFDIR ? Kind.Dir : Kind.Other;
}

export function put(t: StatTable, i: number, st: Stats | undefined): void {
  const o = i * STAT_FIELDS;
  if (!st) {
    t.fill(-1, o, o + STAT_FIELDS - 1);
    t[o + 5] = Kind.Missing;
    return;
  }
  t[o] = st.size;
  t[o + 1] = st.mtimeMs;
  t[o + 2] = st.ctimeMs;
  t[o + 3] = st.ino;
  t[o + 4] = st.dev;
  t[o + 5] = kindOf(st.mode);
}

const NO_THROW = { throwIfNoEntry: false } as const;

export function statOne(path: string): Stats | undefined {
  try {
    return statSync(path, NO_THROW);
  } catch {
    return undefined;
  }
}

/**
 * Pool requests in flight at once. Up to ~16k skills every pooled stat is in flight at once (the
 * 11k identity check keeps its full overlap); beyond that the rest is issued as earlier ones
 * finish, so tens of thousands of pending requests (a callback and a native request each) never
 * pile up: at 112k skills this cuts a cold search's peak RSS from ~190 to ~165 MiB.
 */
const POOL_WINDOW = 8192;

/**
 * Stats paths[from..to) into `t` on this thread, inline (no statOne/put call per path, locals
 * only): a cold process runs this loop unoptimised, where each call or closure-variable read
 * costs about as much as the numbers it moves.
 */
function statRange(
  paths: readonly string[],
  t: StatTable,
  from: number,
  to: number,
  filesFrom: number,
  odd: number[],
): void {
  for (let i = from, o = from * STAT_FIELDS; i < to; i++, o += STAT_FIELDS) {
    let st: Stats | undefined;
    try {
      st = statSync(paths[i]!, NO_THROW);
    } catch {
      st = undefined;
    }
    if (st === undefined) {
      t.fill(-1, o, o + STAT_FIELDS - 1);
      t[o + 5] = Kind.Missing;
      if (i >= filesFrom) odd.push(i);
      continue;
    }
    t[o] = st.size;
    t[o + 1] = st.mtimeMs;
    t[o + 2] = st.ctimeMs;
    t[o + 3] = st.ino;
    t[o + 4] = st.dev;
    const k = kindOf(st.mode);
    t[o + 5] = k;
    if (k !== Kind.File && i >= filesFrom) odd.push(i);
  }
}

export interface StatResult {
  table: StatTable;
  /**
   * Indexes from `filesFrom` on that are not regular files (missing, directory, other), in no
   * particular order: noted by the stat loop itself, so a check that expects files needs no
   * second pass over the table (in a cold process each new loop runs unoptimised first).
   */
  odd: number[];
}

/** Stats every path (following links); never throws, a failure reads as missing. */
export function statMany(paths: readonly string[], filesFrom = paths.length): Promise<StatResult> {
  const n = paths.length;
  const t: StatTable = new Float64Array(n * STAT_FIELDS);
  const odd: number[] = [];
  const pooled = n >= PARALLEL_MIN ? Math.floor(n * POOL_SHARE) : 0;
  return new Promise((resolve) => {
    let next = 0;
    let done = 0;
    let mainDone = false;
    const finish = () => {
      if (mainDone && done === pooled) resolve({ table: t, odd });
    };
    const launch = () => {
      const i = next++;
      stat(paths[i]!, (err, st) => {
        put(t, i, err ? undefined : st);
        if (i >= filesFrom && kindAt(t, i) !== Kind.File) odd.push(i);
        done++;
        if (next < pooled) launch();
        finish();
      });
    };
    for (let k = 0; k < Math.min(POOL_WINDOW, pooled); k++) launch();
    statRange(paths, t, pooled, n, filesFrom, odd);
    mainDone = true;
    finish();
  });
}

// The catalog's fingerprint, which fingerprintAt below must spell the same way.
export { fingerprintOf } from "../fingerprint.ts";

/** `fingerprintOf` of entry i, "" when missing. */
export function fingerprintAt(t: StatTable, i: number): string {
  const o = i * STAT_FIELDS;
  const v = t;
  if (v[o + 5] === Kind.Missing) return "";
  return `${v[o]}:${v[o + 1]}:${v[o + 2]}:${v[o + 3]}:${v[o + 4]}`;
}

/** True when SKILL.md at `path` exists as a non-directory without resolving (a dangling link). */
export function existsUnresolved(path: string): boolean {
  try {
    const st = lstatSync(path, { throwIfNoEntry: false });
    return st !== undefined && !st.isDirectory();
  } catch {
    return false;
  }
}
