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
  const src = join(dir, "hello.ts");
  writeFileSync(src, 'console.log("hello");\n');
  const outfile = join(dir, process.platform === "win32" ? "hello.exe" : "hello");
  const p = Bun.spawnSync(
    [process.execPath, "build", "--compile", "--format=esm", "--bytecode", "--minify",
      "--no-compile-autoload-dotenv", "--no-compile-autoload-bunfig", src, "--outfile", outfile],
    { cwd: dir, stdout: "ignore", stderr: "pipe" },
  );
  if (p.exitCode !== 0) throw new Error(`hello-world build failed: ${p.stderr.toString()}`);
  return outfile;
}
