/**
 * @module skills/search/stat-many
 * Stats many paths at once for the identity check (skills.md §7.3). A `statSync` loop is bound by
 * the system calls (~2 µs each for a deep path) plus Bun's per-call overhead, one core only: here
 * a share of the paths goes to libuv's thread pool (`fs.stat` with a callback) before the main
 * thread stats the rest synchronously, so the two halves overlap. Results are plain numbers in one
 * Float64Array, no strings per file.
 */
import { lstatSync, readFileSync, stat, statSync, type Stats } from "node:fs";

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
export const PARALLEL_MIN = 2048;

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
 * The thread pool (`fs.stat` callbacks) from PARALLEL_MIN paths on. Each pooled result still
 * costs this thread a request, a callback and a Stats object (~2-3 µs in a cold process against
 * ~3 µs for a `statSync`), so the pool only saves the system calls, and only when a core is idle:
 * half of the paths through it was 10-25% faster than `statSync` alone on a quiet machine and
 * 15-30% slower when the cores were busy (its threads then take this thread's core). So it is
 * used only when a core is idle at the start of the pass (coreIdle). POOL_HEAD: the paths a
 * SplitPaths head holds, given to the pool before the rest is decoded.
 */
const POOL_HEAD = 1536;
/** The pool's share when a core is idle (coreIdle). */
const POOL_SHARE = 0.5;
/**
 * Pool requests in flight at once, the rest issued as earlier ones finish: at 112k skills (56k
 * paths a scope) tens of thousands of pending requests (a callback and a native request each)
 * would raise a cold search's peak RSS from ~165 to ~190 MiB.
 */
const POOL_WINDOW = 8192;

/**
 * Stats paths[from - base .. to - base) into rows from..to of `t` on this thread, inline (no
 * statOne/put call per path, locals only): a cold process runs this loop unoptimised, where each
 * call or closure-variable read costs about as much as the numbers it moves.
 */
function statRange(
  paths: readonly string[],
  base: number,
  t: StatTable,
  from: number,
  to: number,
  filesFrom: number,
  odd: number[],
): void {
  for (let i = from, o = from * STAT_FIELDS; i < to; i++, o += STAT_FIELDS) {
    let st: Stats | undefined;
    try {
      st = statSync(paths[i - base]!, NO_THROW);
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

/**
 * A path list in two parts: `head` ready now, the rest decoded by `rest()` while the thread pool
 * stats the head (the identity check splits its stored PATHS so: decoding them is ~2.5 ms at 11k).
 */
export interface SplitPaths {
  head: readonly string[];
  total: number;
  rest: () => readonly string[];
}

/** How much of a list of `n` paths its SplitPaths head should hold: the pool's first paths, or all. */
export const headShare = (n: number): number => (n < PARALLEL_MIN ? 1 : Math.min(0.5, POOL_HEAD / n));

/**
 * True when a core is idle right now besides this thread's: /proc/loadavg's count of runnable
 * tasks is below the core count. It counts this thread, and this process's JIT and GC threads
 * while they run (often, in a cold process), so it errs towards "busy", where the pool costs
 * most. An instantaneous sample, not the load average: on a shared machine the other work comes
 * and goes within a second. Where the file is missing (not Linux) the pool is assumed to help,
 * as it does on an idle machine.
 */
function coreIdle(): boolean {
  try {
    const f = readFileSync("/proc/loadavg", "latin1");
    const running = Number.parseInt(f.split(" ")[3] ?? "", 10);
    const cores = typeof navigator === "object" ? navigator.hardwareConcurrency : 0;
    return !(running > 0 && cores > 0) || running < cores;
  } catch {
    return true;
  }
}

/** Stats every path (following links); never throws, a failure reads as missing. `idle`: tests force either way. */
export async function statMany(
  list: readonly string[] | SplitPaths,
  filesFrom?: number,
  idle: () => boolean = coreIdle,
): Promise<StatResult> {
  const split = Array.isArray(list) ? null : (list as SplitPaths);
  const n = split ? split.total : (list as readonly string[]).length;
  const from = filesFrom ?? n;
  const t: StatTable = new Float64Array(n * STAT_FIELDS);
  const odd: number[] = [];
  if (n < PARALLEL_MIN) {
    const paths = split ? [...split.head, ...split.rest()] : (list as readonly string[]);
    statRange(paths, 0, t, 0, n, from, odd);
    return { table: t, odd };
  }
  const head = split ? split.head : (list as readonly string[]);
  const h = split ? head.length : n;
  // With an idle core half the paths go to the pool, the head at once (it works while the rest
  // decodes); without one, none (the main thread pays for each pooled result anyway).
  const pooled = idle() ? Math.floor(n * POOL_SHARE) : 0;
  let done = 0;
  let issued = 0;
  let tail: readonly string[] = [];
  let wake: (() => void) | null = null;
  const launch = () => {
    const i = issued++;
    stat(i < h ? head[i]! : tail[i - h]!, (err, st) => {
      put(t, i, err ? undefined : st);
      if (i >= from && kindAt(t, i) !== Kind.File) odd.push(i);
      if (issued < pooled) launch();
      if (++done === pooled && wake) wake();
    });
  };
  // Callbacks (which issue the rest) run only once this thread yields, after the tail is decoded.
  while (issued < Math.min(h, pooled, POOL_WINDOW)) launch();
  if (split) tail = split.rest();
  while (issued < Math.min(pooled, POOL_WINDOW)) launch();
  if (pooled < h) statRange(head, 0, t, pooled, h, from, odd);
  statRange(tail, h, t, Math.max(pooled, h), n, from, odd);
  if (done < pooled) await new Promise<void>((resolve) => (wake = resolve));
  return { table: t, odd };
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
