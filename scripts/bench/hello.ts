/**
 * @module scripts/bench/hello
 * The compiled hello-world every start-up benchmark compares against, built with the options
 * build.ts compiles lemon with so the baseline pays the same runtime costs. Built in a child
 * process: Linux carries a parent's RSS high-water mark into the children it spawns, so an
 * in-process Bun.build (hundreds of MB) would inflate every max RSS measured afterwards.
 */
import { existsSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export function buildHello(dir: string): string {
  return buildProgram(dir, "hello", 'console.log("hello");\n');
}

/**
 * Any small program compiled exactly like hello-world: the benchmarks' floors (the least work a
 * command must do, measured as a process of its own) are built with it. `splitting` puts each
 * `import()` target in a chunk of its own that loads when called, as build.ts does for lemon.
 */
export function buildProgram(dir: string, name: string, source: string, opts: { splitting?: boolean } = {}): string {
  const src = join(dir, `${name}.ts`);
  writeFileSync(src, source);
  const outfile = join(dir, process.platform === "win32" ? `${name}.exe` : name);
  const p = Bun.spawnSync(
    [
      process.execPath,
      "build",
      "--compile",
      "--format=esm",
      "--bytecode",
      "--minify",
      ...(opts.splitting ? ["--splitting"] : []),
      "--no-compile-autoload-dotenv",
      "--no-compile-autoload-bunfig",
      src,
      "--outfile",
      outfile,
    ],
    { cwd: dir, stdout: "ignore", stderr: "pipe" },
  );
  if (p.exitCode !== 0) throw new Error(`${name} build failed: ${p.stderr.toString()}`);
  return outfile;
}

/**
 * The least a `skill list --json` of the skills under `root` (`<key>/SKILL.md`) must do: read each
 * SKILL.md, parse its frontmatter with Bun.YAML, print the whole as JSON.
 */
export function buildListFloor(dir: string, root: string): string {
  const files = readdirSync(root)
    .map((k) => join(root, k, "SKILL.md"))
    .filter((f) => existsSync(f))
    .sort();
  return buildProgram(
    dir,
    "list-floor",
    `import { readFileSync } from "node:fs";\n` +
      `const skills: unknown[] = [];\n` +
      `for (const path of ${JSON.stringify(files)}) {\n` +
      `  const m = /^---\\r?\\n([\\s\\S]*?)\\r?\\n---/.exec(readFileSync(path, "utf8"));\n` +
      `  skills.push({ path, frontmatter: m ? Bun.YAML.parse(m[1]!) : null });\n` +
      `}\n` +
      `console.log(JSON.stringify({ skills }, null, 2));\n`,
  );
}
