/**
 * @module fsx/pid
 * Is the process that wrote a lock or temp file still the one running under its pid?
 * Used only when a lock is found held, never on the write path of a free file.
 */
import { readFileSync } from "node:fs";

export function pidAlive(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Start time of a running process in ms since the epoch, or null when this platform cannot tell. */
export function processStartMs(pid: number): number | null {
  if (process.platform === "linux") return linuxStartMs(pid);
  if (process.platform === "darwin" || process.platform === "freebsd") return psStartMs(pid);
  return null;
}

function linuxStartMs(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name (field 2) may hold spaces and parentheses: count fields after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ticks = Number(fields[19]);
    const btime = /^btime (\d+)$/m.exec(readFileSync("/proc/stat", "utf8"));
    if (!Number.isFinite(ticks) || btime === null) return null;
    // USER_HZ is 100 on every Linux ABI Bun runs on.
    return Number(btime[1]) * 1000 + ticks * 10;
  } catch {
    return null;
  }
}

function psStartMs(pid: number): number | null {
  try {
    const out = Bun.spawnSync(["ps", "-o", "lstart=", "-p", String(pid)], { stdout: "pipe", stderr: "ignore" });
    const ms = Date.parse(out.stdout.toString().trim());
    return Number.isFinite(ms) ? ms : null;
  } catch {
    return null;
  }
}

/**
 * Slack for the clocks involved: `started_at` is cut to seconds and Linux's boot time is whole
 * seconds, so a true owner can appear up to 2 s younger than its record. Erring this way
 * only ever keeps a lock, never takes a live one.
 */
const SLACK_MS = 2000;

/** True when `pid` runs but started after `startedAt` (ISO-8601): the pid was reused. */
export function pidReusedSince(pid: number, startedAt: string): boolean {
  const recorded = Date.parse(startedAt);
  if (!Number.isFinite(recorded)) return false;
  const start = processStartMs(pid);
  return start !== null && start > recorded + SLACK_MS;
}
