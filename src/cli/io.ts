/**
 * @module cli/io
 * The streams and process facts a CLI run may touch, so tests run the CLI in-process.
 */
import { installSignalCleanup, processEnv } from "../core/index.ts";

export interface CliIo {
  out(text: string): void;
  err(text: string): void;
  env: Record<string, string | undefined>;
  /** The process's working directory; null when it has been removed (only `--cwd` can help). */
  cwd: string | null;
  /**
   * A user can answer a prompt: stdin and stderr are terminals (processIo asks the process). Absent
   * means no: a run that is not told otherwise never waits for an answer.
   */
  interactive?: boolean;
  /** One line typed by the user, or null at end of input. */
  readLine?: () => Promise<string | null>;
}

/**
 * A write to stdout or stderr failed (closed pipe, full disk): the run ends with exit 1
 * (cli.md §1.2) instead of carrying on as if the output had been delivered.
 */
export class OutputError extends Error {
  override readonly name = "OutputError";
  constructor(
    readonly stream: "stdout" | "stderr",
    readonly errno: string,
  ) {
    super(`cannot write to ${stream}: ${errno}`);
  }
}

const pause = new Int32Array(new SharedArrayBuffer(4));

/**
 * Synchronous, complete and checked: console.log drops write errors, so a full disk or a closed
 * pipe would still exit 0. node:fs is loaded by the command's own work before anything prints.
 */
function writeAll(fd: 1 | 2, text: string): void {
  if (text === "") return;
  const fs = require("node:fs") as typeof import("node:fs");
  const bytes = Buffer.from(text, "utf8");
  let done = 0;
  while (done < bytes.length) {
    try {
      done += fs.writeSync(fd, bytes, done);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? "EIO";
      // A non-blocking pipe that is full: wait for the reader instead of failing the run.
      if (code === "EAGAIN") Atomics.wait(pause, 0, 0, 1);
      else throw new OutputError(fd === 1 ? "stdout" : "stderr", code);
    }
  }
}

/** One stream: after its first failure nothing more is attempted on it. */
function stream(fd: 1 | 2): (text: string) => void {
  let failed: OutputError | null = null;
  return (text) => {
    if (failed) throw failed;
    try {
      writeAll(fd, text);
    } catch (err) {
      if (err instanceof OutputError) failed = err;
      throw err;
    }
  };
}

function currentDir(): string | null {
  try {
    return process.cwd();
  } catch {
    return null;
  }
}

function isatty(fd: number): boolean {
  return (require("node:tty") as typeof import("node:tty")).isatty(fd);
}

async function stdinLine(): Promise<string | null> {
  for await (const line of console) return line;
  return null;
}

export function processIo(): CliIo {
  installSignalCleanup(process, (code) => process.exit(code));
  return {
    out: stream(1),
    err: stream(2),
    env: processEnv(),
    cwd: currentDir(),
    // Asked when a command needs it: most runs never prompt.
    get interactive() {
      return isatty(0) && isatty(2);
    },
    readLine: stdinLine,
  };
}

/**
 * Captured streams for tests and embedders. `answers` makes it a pretend terminal that types one
 * answer per prompt (null once they run out); without it nothing is interactive.
 */
export function memoryIo(
  opts: { env?: Record<string, string | undefined>; cwd?: string; answers?: readonly string[] } = {},
) {
  let stdout = "";
  let stderr = "";
  const answers = [...(opts.answers ?? [])];
  const io: CliIo = {
    out: (t) => (stdout += t),
    err: (t) => (stderr += t),
    env: opts.env ?? {},
    cwd: opts.cwd ?? "/",
    interactive: opts.answers !== undefined,
    readLine: async () => answers.shift() ?? null,
  };
  return { io, stdout: () => stdout, stderr: () => stderr };
}
