/**
 * @module scripts/bench/hello
 * The compiled hello-world every start-up benchmark compares against, built with the options
 * build.ts compiles lemon with so the baseline pays the same runtime costs. Built in a child
 * process: Linux carries a parent's RSS high-water mark into the children it spawns, so an
 * in-process Bun.build (hundreds of MB) would inflate every max RSS measured afterwards.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";

export function buildHello(dir: string): string {
  return buildProgram(dir, "hello", 'console.log("hello");\n');
}

/**
 * Any small program compiled exactly like hello-world: the benchmarks' floors (the least work a
 * command must do, measured as a process of its own) are built with it.
 */
export function buildProgram(dir: string, name: string, source: string): string {
  const src = join(dir, `${name}.ts`);
  writeFileSync(src, source);
  const outfile = join(dir, process.platform === "win32" ? `${name}.exe` : name);
  const p = Bun.spawnSync(
    [process.execPath, "build", "--compile", "--format=esm", "--bytecode", "--minify",
      "--no-compile-autoload-dotenv", "--no-compile-autoload-bunfig", src, "--outfile", outfile],
    { cwd: dir, stdout: "ignore", stderr: "pipe" },
  );
  if (p.exitCode !== 0) throw new Error(`${name} build failed: ${p.stderr.toString()}`);
  return outfile;
}
