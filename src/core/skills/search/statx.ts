/**
 * @module skills/search/statx
 * statx(2) through bun:ffi on Linux, for the identity check's stat pass (stat-many.ts): one system
 * call per path into one reused buffer, no Stats object, so a cold check costs little more than
 * the system calls (scripts/bench/relevance-turns.ts measures it against stat-floor.c). The struct
 * statx layout is the same on every Linux architecture. Used only when its numbers agree with
 * `fs.statSync`'s on real paths (checked once per process): the identity digest must not depend
 * on which way a path was stat'ed.
 */
import { statSync, type Stats } from "node:fs";

/** Numbers per path, as stat-many.ts stores them: size, mtimeMs, ctimeMs, ino, dev, kind (0 missing). */
export type StatxInto = (path: string, out: Float64Array, at: number) => boolean;

const AT_FDCWD = -100;
const STATX_BASIC_STATS = 0x7ff;
const S_IFMT = 0o170000;
const S_IFREG = 0o100000;
const S_IFDIR = 0o040000;
/** Longer paths (in UTF-8 bytes) go through fs.statSync. */
const PATH_MAX = 4096;

let loaded: Promise<StatxInto | null> | null = null;

/** The statx reader, or null where it is unavailable or disagrees with fs.statSync. */
export function statxReader(probe: readonly string[]): Promise<StatxInto | null> {
  return (loaded ??= load(probe).catch(() => null));
}

async function load(probe: readonly string[]): Promise<StatxInto | null> {
  if (process.platform !== "linux" || typeof Bun === "undefined") return null;
  const { dlopen, FFIType, ptr } = await import("bun:ffi");
  type Call = (dirfd: number, path: number, flags: number, mask: number, buf: number) => number;
  let call: Call | null = null;
  for (const name of ["libc.so.6", "libc.so"]) {
    try {
      const lib = dlopen(name, {
        statx: { args: [FFIType.i32, FFIType.ptr, FFIType.i32, FFIType.u32, FFIType.ptr], returns: FFIType.i32 },
      });
      call = lib.symbols.statx as unknown as Call;
      break;
    } catch {
      // Not this name (musl, another libc).
    }
  }
  if (!call) return null;
  const statx = call;
  const buf = new ArrayBuffer(256);
  const u32 = new Uint32Array(buf);
  const i32 = new Int32Array(buf);
  const u16 = new Uint16Array(buf);
  const bufPtr = ptr(new Uint8Array(buf));
  const name = new Uint8Array(PATH_MAX + 1);
  const namePtr = ptr(name);
  const encoder = new TextEncoder();
  const into: StatxInto = (path, out, at) => {
    const { read, written } = encoder.encodeInto(path, name);
    if (read !== path.length || written >= PATH_MAX) return false;
    name[written] = 0;
    if (statx(AT_FDCWD, namePtr, 0, STATX_BASIC_STATS, bufPtr) !== 0) {
      out.fill(-1, at, at + 5);
      out[at + 5] = 0;
      return true;
    }
    const mode = u16[14]! & S_IFMT;
    out[at] = u32[11]! * 2 ** 32 + u32[10]!;
    out[at + 1] = (i32[29]! * 2 ** 32 + u32[28]!) * 1000 + u32[30]! / 1e6;
    out[at + 2] = (i32[25]! * 2 ** 32 + u32[24]!) * 1000 + u32[26]! / 1e6;
    out[at + 3] = u32[9]! * 2 ** 32 + u32[8]!;
    // glibc's makedev(major, minor), as fs.statSync reports st_dev.
    const major = u32[34]!;
    const minor = u32[35]!;
    out[at + 4] =
      (major & 0xfff) * 256 + Math.floor(major / 4096) * 2 ** 44 + (minor & 0xff) + Math.floor(minor / 256) * 2 ** 20;
    out[at + 5] = mode === S_IFREG ? 1 : mode === S_IFDIR ? 2 : 3;
    return true;
  };
  return agrees(into, probe) ? into : null;
}

/** True when statx and fs.statSync give the same numbers for a few existing paths. */
function agrees(into: StatxInto, probe: readonly string[]): boolean {
  const mine = new Float64Array(6);
  let compared = 0;
  for (const p of [process.execPath, ...probe.slice(0, 4)]) {
    let st: Stats | undefined;
    try {
      st = statSync(p, { throwIfNoEntry: false });
    } catch {
      continue;
    }
    if (!st || !into(p, mine, 0)) continue;
    const kind = st.isFile() ? 1 : st.isDirectory() ? 2 : 3;
    const theirs = [st.size, st.mtimeMs, st.ctimeMs, st.ino, st.dev, kind];
    if (theirs.some((v, k) => v !== mine[k])) return false;
    compared++;
  }
  return compared > 0;
}
