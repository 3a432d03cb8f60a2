#!/usr/bin/env bun
/**
 * @module scripts/npm/pack
 * Turns `dist/` (from `bun build.ts`) into the npm packages (DESIGN.md §6):
 *
 * - `lemon-skills-<target>`: `dist/lemon-<target>/` as build.ts wrote it, the binary only;
 * - `lemon-skills`: `src/`, `exports`, runtime dependencies, `optionalDependencies` on every
 *   platform package, and the dependency-free Node launcher as the `lemon` bin.
 *
 *   bun scripts/npm/pack.ts [--dist DIR] [--pack] [--allow-missing]
 *
 * Writes `dist/npm/lemon-skills/`; `--pack` also runs `npm pack` for every package into `dist/npm/`.
 * Fails when a target of the table has not been built, unless `--allow-missing`.
 */
import { cp, mkdir, rm, writeFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import pkg from "../../package.json" with { type: "json" };
import { TARGETS, type Target } from "../targets.ts";

const REPO = resolve(import.meta.dir, "..", "..");

/** The rows the launcher needs at run time, as data: the launcher cannot import TypeScript. */
function targetRows(targets: readonly Target[]) {
  return targets.map(({ name, os, cpu, libc, baseline, exe }) => ({ name, os, cpu, libc, baseline, exe }));
}

function mainPackageJson(built: Target[]): string {
  const doc = {
    name: pkg.name,
    version: pkg.version,
    description: pkg.description,
    license: pkg.license,
    type: pkg.type,
    bin: { lemon: "bin/lemon.cjs" },
    exports: pkg.exports,
    files: ["src/", "bin/"],
    engines: pkg.engines,
    dependencies: pkg.dependencies,
    optionalDependencies: Object.fromEntries(built.map((t) => [`${pkg.name}-${t.name}`, pkg.version])),
  };
  return JSON.stringify(doc, null, 2) + "\n";
}

function npmPack(dir: string, dest: string): void {
  const p = Bun.spawnSync(["npm", "pack", "--pack-destination", dest], { cwd: dir, stdout: "pipe", stderr: "pipe" });
  if (p.exitCode !== 0) throw new Error(`npm pack in ${dir} failed: ${p.stderr.toString().trim()}`);
  console.log(`packed  ${p.stdout.toString().trim().split("\n").pop()}`);
}

async function main(argv: string[]): Promise<number> {
  let dist = join(REPO, "dist");
  let pack = false;
  let allowMissing = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--dist") dist = resolve(argv[++i] ?? "");
    else if (a === "--pack") pack = true;
    else if (a === "--allow-missing") allowMissing = true;
    else {
      console.error(
        `pack: unknown option '${a}'; usage: bun scripts/npm/pack.ts [--dist DIR] [--pack] [--allow-missing]`,
      );
      return 2;
    }
  }
  const built = TARGETS.filter(
    (t) =>
      existsSync(join(dist, `lemon-${t.name}`, t.exe)) && existsSync(join(dist, `lemon-${t.name}`, "package.json")),
  );
  const missing = TARGETS.filter((t) => !built.includes(t));
  for (const t of missing) console.error(`missing target ${t.name}: run 'bun build.ts --target ${t.name}'`);
  if (missing.length > 0 && !allowMissing) return 1;

  const out = join(dist, "npm");
  const main = join(out, pkg.name);
  await rm(main, { recursive: true, force: true });
  await mkdir(join(main, "bin"), { recursive: true });
  await cp(join(REPO, "src"), join(main, "src"), { recursive: true });
  await cp(join(import.meta.dir, "launcher.cjs"), join(main, "bin", "lemon.cjs"));
  await cp(join(import.meta.dir, "platform.cjs"), join(main, "bin", "platform.cjs"));
  await writeFile(join(main, "bin", "targets.json"), JSON.stringify(targetRows(built), null, 2) + "\n");
  await writeFile(join(main, "package.json"), mainPackageJson(built));
  console.log(`wrote   ${main} (optional platform packages: ${built.map((t) => t.name).join(", ") || "none"})`);

  if (pack) {
    npmPack(main, out);
    for (const t of built) npmPack(join(dist, `lemon-${t.name}`), out);
  }
  return 0;
}

if (import.meta.main) process.exit(await main(process.argv.slice(2)));
