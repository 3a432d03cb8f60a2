/**
 * @module scripts/bench/binary
 * The compiled lemon of this checkout that the process benchmarks run: `--bin PATH` when given,
 * else `dist/lemon-<host target>/lemon`, built first when missing (or with `--rebuild`).
 */
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { hostTarget } from "../targets.ts";

const REPO = resolve(import.meta.dir, "..", "..");

/** The binary to measure; exits 2 with `<bench>: …` when the build fails. */
export function hostBinary(o: { bin: string | null; rebuild: boolean }, bench: string): string {
  if (o.bin) return o.bin;
  const t = hostTarget();
  const bin = join(REPO, "dist", `lemon-${t.name}`, t.exe);
  if (o.rebuild || !existsSync(bin)) {
    console.error(`building ${bin} …`);
    const p = Bun.spawnSync([process.execPath, "build.ts", "--single", "--no-archive"], {
      cwd: REPO,
      stdout: "inherit",
      stderr: "inherit",
    });
    if (p.exitCode !== 0) {
      console.error(`${bench}: bun build.ts --single failed`);
      process.exit(2);
    }
  }
  return bin;
}
