/**
 * @module cli/io
 * The streams and process facts a CLI run may touch, so tests run the CLI in-process.
 * Writes go through fd writes, not Node streams: setting those up costs ~30 ms on a hot path.
 */
import { writeSync } from "node:fs";

export interface CliIo {
  out(text: string): void;
  err(text: string): void;
  env: Record<string, string | undefined>;
  cwd: string;
  stdoutIsTTY: boolean;
  stdinIsTTY: boolean;
  /** Reads one line from the terminal for y/N prompts; null when there is no terminal. */
  readLine?: () => Promise<string | null>;
}

function writeAll(fd: number, text: string): void {
  const buf = Buffer.from(text, "utf8");
  let off = 0;
  while (off < buf.length) {
    try {
      off += writeSync(fd, buf, off, buf.length - off);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "EAGAIN") continue;
      if ((err as NodeJS.ErrnoException).code === "EPIPE") return;
      throw err;
    }
  }
}

export function processIo(): CliIo {
  return {
    out: (t) => writeAll(1, t),
    err: (t) => writeAll(2, t),
    env: process.env,
    cwd: process.cwd(),
    stdoutIsTTY: Boolean(process.stdout.isTTY),
    stdinIsTTY: Boolean(process.stdin.isTTY),
    readLine: async () => {
      if (!process.stdin.isTTY) return null;
      for await (const line of console) return line;
      return null;
    },
  };
}

/** Captured streams for tests and embedders. */
export function memoryIo(opts: { env?: Record<string, string | undefined>; cwd?: string; answers?: string[] } = {}) {
  let stdout = "";
  let stderr = "";
  const answers = [...(opts.answers ?? [])];
  const io: CliIo = {
    out: (t) => (stdout += t),
    err: (t) => (stderr += t),
    env: opts.env ?? {},
    cwd: opts.cwd ?? "/",
    stdoutIsTTY: false,
    stdinIsTTY: opts.answers !== undefined,
    readLine: async () => answers.shift() ?? null,
  };
  return { io, stdout: () => stdout, stderr: () => stderr };
}
