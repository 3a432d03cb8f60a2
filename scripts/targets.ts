/**
 * @module scripts/targets
 * The one list of what a release holds: the platform targets `build.ts` compiles and the workers
 * and CLI entry every binary embeds as extra entrypoints (DESIGN.md §5, §6). `build.ts`,
 * `scripts/npm/` and the tests derive everything (entrypoints, defines, package names) from here.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";

export type TargetName =
  | "linux-x64"
  | "linux-x64-baseline"
  | "linux-arm64"
  | "linux-x64-musl"
  | "linux-arm64-musl"
  | "darwin-x64"
  | "darwin-arm64"
  | "windows-x64";

export interface Target {
  name: TargetName;
  /** Bun's compile target, always `bun-` + name. */
  bun: `bun-${TargetName}`;
  /** npm `os` / `cpu` of the platform package. */
  os: "linux" | "darwin" | "win32";
  cpu: "x64" | "arm64";
  /** Linux C library the binary links against; null off Linux. */
  libc: "glibc" | "musl" | null;
  /** True for the build for x64 CPUs without AVX2. */
  baseline: boolean;
  /** File name of the binary inside `dist/lemon-<name>/`. */
  exe: "lemon" | "lemon.exe";
}

function target(name: TargetName, os: Target["os"], cpu: Target["cpu"], libc: Target["libc"]): Target {
  return {
    name,
    bun: `bun-${name}`,
    os,
    cpu,
    libc,
    baseline: name.endsWith("-baseline"),
    exe: os === "win32" ? "lemon.exe" : "lemon",
  };
}

export const TARGETS: readonly Target[] = [
  target("linux-x64", "linux", "x64", "glibc"),
  target("linux-x64-baseline", "linux", "x64", "glibc"),
  target("linux-arm64", "linux", "arm64", "glibc"),
  target("linux-x64-musl", "linux", "x64", "musl"),
  target("linux-arm64-musl", "linux", "arm64", "musl"),
  target("darwin-x64", "darwin", "x64", null),
  target("darwin-arm64", "darwin", "arm64", null),
  target("windows-x64", "win32", "x64", null),
];

export function findTarget(name: string): Target | undefined {
  return TARGETS.find((t) => t.name === name);
}

/** True when the running machine uses musl (Alpine): glibc's loader is absent, musl's present. */
function hostIsMusl(): boolean {
  if (process.platform !== "linux") return false;
  const report = process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined;
  if (report?.header?.glibcVersionRuntime) return false;
  return existsSync(`/lib/ld-musl-${process.arch === "arm64" ? "aarch64" : "x86_64"}.so.1`);
}

/** The target matching the machine running the build (used by `--single` and the smoke test). */
export function hostTarget(): Target {
  const os = process.platform === "win32" ? "windows" : process.platform;
  const name = `${os}-${process.arch}${hostIsMusl() ? "-musl" : ""}`;
  const t = findTarget(name);
  if (!t)
    throw new Error(`no build target for this machine (${name}); known: ${TARGETS.map((x) => x.name).join(", ")}`);
  return t;
}

/** An extra entrypoint of the compiled binary, embedded under its path relative to `src/`. */
export interface Embedded {
  /** Source path relative to the repository root. */
  source: string;
  /** Build-time constant holding the embedded path, e.g. `LEMON_WORKER_SNAPSHOT`. */
  define: string;
}

export interface Worker extends Embedded {
  name: string;
}

/**
 * Every worker the core starts with `new Worker(...)`. A worker that is not an entrypoint of the
 * compile builds fine and fails at run time, so this list is the single source of truth;
 * `src/core/workers/spec.ts` reads the matching defines.
 */
export const WORKERS: readonly Worker[] = [
  { name: "snapshot", source: "src/core/workers/snapshot.worker.ts", define: "LEMON_WORKER_SNAPSHOT" },
  { name: "mcp-stdio", source: "src/core/workers/mcp-stdio.worker.ts", define: "LEMON_WORKER_MCP_STDIO" },
];

/** The tiny executable entry: answers `--version` (and top-level `--help`) before loading the CLI. */
export const MAIN_ENTRY = "src/cli/main.ts";

/** The CLI proper, a separate entrypoint imported by path so `--version` never parses it. */
export const CLI_ENTRY: Embedded = { source: "src/cli/entry.ts", define: "LEMON_CLI_ENTRY" };

/** The common root of all entrypoints; files are embedded relative to it. */
export const EMBED_ROOT = "src";

/**
 * The path under which Bun's compiler embeds a source file, as `import()` and `new Worker()` accept
 * it inside the binary: relative to the common root of the entrypoints (DESIGN.md §5).
 */
export function embeddedPath(source: string): string {
  const prefix = `${EMBED_ROOT}/`;
  if (!source.startsWith(prefix)) throw new Error(`${source} is outside ${EMBED_ROOT}/`);
  return `./${source.slice(prefix.length)}`;
}

/**
 * The workers whose source file exists in `root`. Workers land one at a time; a listed worker whose
 * file is not written yet is reported by the build instead of failing it.
 */
export function presentWorkers(root: string): { present: Worker[]; missing: Worker[] } {
  const present: Worker[] = [];
  const missing: Worker[] = [];
  for (const w of WORKERS) (existsSync(join(root, w.source)) ? present : missing).push(w);
  return { present, missing };
}
