/**
 * @module scripts/bench/measure
 * What every benchmark measures with: percentiles and a true peak RSS through GNU time.
 */
import { existsSync } from "node:fs";

/** Nearest-rank percentile. */
export function pct(values: readonly number[], p: number): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
}

/**
 * GNU time, or null where it is missing. Linux hands a spawning process's RSS high-water mark to
 * the child it forks, so through Bun.spawnSync a child's max RSS never reads below this (~30 MB)
 * process's own; GNU time is a small process of its own, and the child it forks reports its true
 * peak.
 */
export function gnuTime(): string | null {
  const bin = "/usr/bin/time";
  if (!existsSync(bin)) return null;
  const p = Bun.spawnSync([bin, "-f", "%M", "true"], { stdout: "ignore", stderr: "pipe" });
  return p.exitCode === 0 && /^\d+\s*$/.test(p.stderr.toString()) ? bin : null;
}

/** Peak RSS in MiB of one run of `argv` through GNU time (`%M` is KiB), or null if the run failed. */
export function peakRssMb(time: string, argv: string[], cwd: string, env: Record<string, string>): number | null {
  const p = Bun.spawnSync([time, "-f", "%M", ...argv], { cwd, env, stdin: "ignore", stdout: "ignore", stderr: "pipe" });
  const kib = Number.parseInt(p.stderr.toString().trim().split("\n").pop() ?? "", 10);
  return p.exitCode === 0 && Number.isFinite(kib) ? kib / 1024 : null;
}

export interface Sample {
  wallMs: number;
  cpuMs: number;
  rssMb: number;
}

export interface Run {
  sample: Sample;
  ok: boolean;
  stdout: string;
  stderr: string;
}

/** One run of `argv`: wall time, CPU (user + sys) and max RSS (see gnuTime for its floor). */
export function spawnSample(argv: string[], cwd: string, env: Record<string, string>, capture: boolean): Run {
  const out = capture ? "pipe" : "ignore";
  const started = performance.now();
  const p = Bun.spawnSync(argv, { cwd, env, stdin: "ignore", stdout: out, stderr: out });
  const wallMs = performance.now() - started;
  const u = p.resourceUsage;
  // cpuTime is in microseconds, maxRSS in bytes.
  const cpuMs = Number(u.cpuTime.user + u.cpuTime.system) / 1000;
  return {
    sample: { wallMs, cpuMs, rssMb: u.maxRSS / (1024 * 1024) },
    ok: p.exitCode === 0,
    stdout: p.stdout?.toString() ?? "",
    stderr: p.stderr?.toString() ?? "",
  };
}
