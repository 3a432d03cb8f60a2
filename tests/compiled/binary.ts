// The host binary for the compiled-binary tests, built once per test run (test files share this
// process) from a throwaway copy of the tree that is deleted before the binary first runs, so the
// binary and the workers bundled into it cannot lean on the source tree.
import { cp, mkdtemp, rm, symlink } from "node:fs/promises";
import { realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { hostTarget } from "../../scripts/targets.ts";

const repo = join(import.meta.dir, "..", "..");

/** Everything a build reads; dist/, .git and node_modules (linked instead) stay behind. */
const SKIP = new Set(["node_modules", "dist", ".git", "coverage"]);

let built: Promise<{ work: string; binary: string }> | null = null;

async function build(): Promise<{ work: string; binary: string }> {
  const work = realpathSync(await mkdtemp(join(tmpdir(), "lemon-compiled-")));
  const tree = join(work, "tree");
  await cp(repo, tree, {
    recursive: true,
    filter: (src) => {
      const rel = relative(repo, src);
      return rel === "" || !SKIP.has(rel.split(/[\\/]/)[0]!);
    },
  });
  await symlink(join(repo, "node_modules"), join(tree, "node_modules"), "junction");
  const out = join(work, "out");
  const run = Bun.spawnSync([process.execPath, "build.ts", "--single", "--no-archive", "--outdir", out], {
    cwd: tree,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: "1" },
    stdout: "pipe",
    stderr: "pipe",
  });
  if (run.exitCode !== 0) throw new Error(`build.ts --single failed:\n${run.stdout}\n${run.stderr}`);
  await rm(tree, { recursive: true, force: true });
  const host = hostTarget();
  // Removed when the test process exits; both test files may still be using it until then.
  process.once("exit", () => Bun.spawnSync(["rm", "-rf", work]));
  return { work, binary: join(out, `lemon-${host.name}`, host.exe) };
}

/** The path of the compiled host binary. */
export async function compiledBinary(): Promise<string> {
  built ??= build();
  return (await built).binary;
}
