#!/usr/bin/env bun
/**
 * @module build
 * Compiles the `lemon` binary per target (DESIGN.md §6).
 *
 *   bun build.ts                      every target in scripts/targets.ts
 *   bun build.ts --single             only the host target
 *   bun build.ts --target linux-arm64 one target (repeatable)
 *   options: --outdir DIR (default dist), --no-archive (binary and package.json only)
 *
 * Per target: `dist/lemon-<name>/` (binary + platform package.json), `dist/lemon-<name>.tar.gz`
 * (`.zip` for Windows when `zip` exists) and `<archive>.sha256` in `sha256sum` format.
 * Cross targets need Bun to fetch that target's runtime once (into ~/.bun/install/cache); a target
 * that cannot be built is reported as failed, and the exit code is non-zero only when the host
 * target or an explicitly requested target failed.
 */
import { mkdir, rm, writeFile } from "node:fs/promises";
import { basename, join, resolve } from "node:path";
import pkg from "./package.json" with { type: "json" };
import {
  CLI_ENTRY,
  EMBED_ROOT,
  MAIN_ENTRY,
  TARGETS,
  embeddedPath,
  findTarget,
  hostTarget,
  presentWorkers,
  type Target,
} from "./scripts/targets.ts";

export interface BuildOptions {
  /** Repository root holding src/ and package.json. */
  root: string;
  /** Output directory; `dist/` of the root by default. */
  outdir: string;
  archive: boolean;
}

export interface BuildResult {
  target: Target;
  ok: boolean;
  /** Absolute path of the binary when ok. */
  binary?: string;
  archive?: string;
  error?: string;
}

/** The build-time constants of one target; strings are JSON-quoted as `define` expects. */
export function definesFor(t: Target, root: string): Record<string, string> {
  const defines: Record<string, string> = {
    LEMON_VERSION: JSON.stringify(pkg.version),
    LEMON_TARGET: JSON.stringify(t.name),
    [CLI_ENTRY.define]: JSON.stringify(embeddedPath(CLI_ENTRY.source)),
  };
  for (const w of presentWorkers(root).present) defines[w.define] = JSON.stringify(embeddedPath(w.source));
  return defines;
}

function platformPackageJson(t: Target): string {
  const doc = {
    name: `${pkg.name}-${t.name}`,
    version: pkg.version,
    description: `The lemon binary for ${t.name}`,
    license: pkg.license,
    os: [t.os],
    cpu: [t.cpu],
    ...(t.libc ? { libc: [t.libc] } : {}),
    files: [t.exe],
    preferUnplugged: true,
  };
  return JSON.stringify(doc, null, 2) + "\n";
}

async function sha256File(path: string): Promise<string> {
  const hasher = new Bun.CryptoHasher("sha256");
  // Stream: binaries are ~100 MB and several targets build in one run.
  for await (const chunk of Bun.file(path).stream()) hasher.update(chunk);
  return hasher.digest("hex");
}

function run(cmd: string[], cwd: string): void {
  const p = Bun.spawnSync(cmd, { cwd, stdout: "ignore", stderr: "pipe" });
  if (p.exitCode !== 0) throw new Error(`${cmd.join(" ")} failed (${p.exitCode}): ${p.stderr.toString().trim()}`);
}

/**
 * Archives with the system tools: Bun.Archive in Bun 1.4 stores entries 0644 and would drop the
 * executable bit.
 */
async function archive(t: Target, dir: string, outdir: string): Promise<string> {
  const stem = `lemon-${t.name}`;
  const useZip = t.os === "win32" && Bun.which("zip") !== null;
  const file = join(outdir, `${stem}${useZip ? ".zip" : ".tar.gz"}`);
  await rm(file, { force: true });
  if (useZip) run(["zip", "-q", "-X", file, t.exe], dir);
  else run(["tar", "-czf", file, t.exe], dir);
  await writeFile(`${file}.sha256`, `${await sha256File(file)}  ${basename(file)}\n`);
  return file;
}

export async function buildTarget(t: Target, opts: BuildOptions): Promise<BuildResult> {
  const dir = join(opts.outdir, `lemon-${t.name}`);
  const binary = join(dir, t.exe);
  const workers = presentWorkers(opts.root);
  const entrypoints = [MAIN_ENTRY, CLI_ENTRY.source, ...workers.present.map((w) => w.source)].map((p) =>
    join(opts.root, p),
  );
  try {
    await rm(dir, { recursive: true, force: true });
    await mkdir(dir, { recursive: true });
    const out = await Bun.build({
      entrypoints,
      // Pinned so embedded paths stay `./cli/entry.ts`, `./core/workers/…` whatever the entry set.
      root: join(opts.root, EMBED_ROOT),
      // Nothing of the cwd is read at start (issue 9 §2.4): no .env, no bunfig.toml preload, no
      // tsconfig.json or package.json (Bun's defaults for those two, pinned). core/context.ts
      // trusts the whole environment of a binary that has LEMON_TARGET defined because of this.
      compile: {
        target: t.bun,
        outfile: binary,
        autoloadDotenv: false,
        autoloadBunfig: false,
        autoloadTsconfig: false,
        autoloadPackageJson: false,
      },
      // ESM + bytecode: CommonJS bytecode freezes import.meta.url and rejects top-level await.
      format: "esm",
      bytecode: true,
      minify: true,
      // Each lazily imported command and library becomes its own chunk, so a command loads only
      // its own code at start-up (one bundle of everything costs ~6 ms before any work).
      splitting: true,
      define: definesFor(t, opts.root),
    });
    if (!out.success) return { target: t, ok: false, error: out.logs.map(String).join("\n") || "build failed" };
    await writeFile(join(dir, "package.json"), platformPackageJson(t));
    const arch = opts.archive ? await archive(t, dir, opts.outdir) : undefined;
    return { target: t, ok: true, binary, ...(arch ? { archive: arch } : {}) };
  } catch (err) {
    // Resolution and syntax errors throw an AggregateError instead of returning success: false.
    const e = err as { message?: string; errors?: unknown[] };
    const detail =
      Array.isArray(e.errors) && e.errors.length > 0 ? e.errors.map(String).join("\n") : String(e.message ?? err);
    return { target: t, ok: false, error: detail };
  }
}

interface Cli {
  targets: Target[];
  explicit: Set<string>;
  outdir: string;
  archive: boolean;
}

function parseCli(argv: string[], root: string): Cli {
  const named: Target[] = [];
  let single = false;
  let outdir = join(root, "dist");
  let archive = true;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const value = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${a} needs a value`);
      return v;
    };
    if (a === "--single") single = true;
    else if (a === "--no-archive") archive = false;
    else if (a === "--outdir") outdir = resolve(value());
    else if (a === "--target") {
      const name = value();
      const t = findTarget(name);
      if (!t) throw new Error(`unknown target '${name}'; known: ${TARGETS.map((x) => x.name).join(", ")}`);
      named.push(t);
    } else
      throw new Error(
        `unknown option '${a}'; usage: bun build.ts [--single | --target NAME …] [--outdir DIR] [--no-archive]`,
      );
  }
  const targets = single ? [hostTarget()] : named.length > 0 ? named : [...TARGETS];
  const explicit = new Set(single || named.length > 0 ? targets.map((t) => t.name) : []);
  return { targets, explicit, outdir, archive };
}

async function main(): Promise<number> {
  const root = import.meta.dir;
  let cli: Cli;
  try {
    cli = parseCli(process.argv.slice(2), root);
  } catch (err) {
    console.error(`build: ${(err as Error).message}`);
    return 2;
  }
  const log = (line: string) => console.log(line);
  const { present, missing } = presentWorkers(root);
  log(`lemon ${pkg.version}: workers ${present.map((w) => w.name).join(", ") || "(none)"}`);
  for (const w of missing) log(`  skip worker ${w.name}: ${w.source} does not exist yet`);
  const host = hostTarget().name;
  let failed = false;
  for (const t of cli.targets) {
    const started = performance.now();
    const r = await buildTarget(t, { root, outdir: cli.outdir, archive: cli.archive });
    const secs = ((performance.now() - started) / 1000).toFixed(1);
    if (r.ok) log(`ok      ${t.name}  ${r.archive ?? r.binary}  (${secs}s)`);
    else {
      const fatal = t.name === host || cli.explicit.has(t.name);
      failed ||= fatal;
      log(`FAILED  ${t.name}${fatal ? "" : " (not the host target; skipped)"}\n${r.error?.replace(/^/gm, "        ")}`);
    }
  }
  return failed ? 1 : 0;
}

if (import.meta.main) process.exit(await main());
