/**
 * @module cli/io
 * The streams and process facts a CLI run may touch, so tests run the CLI in-process.
 */

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

// Bun's console writes natively; node:fs writeSync and node:tty each cost milliseconds to load at
// start-up, more than a whole `lemon mcp list`. Text without a final newline (prompts) is rare and
// goes through the Node stream.
function write(stream: "stdout" | "stderr", text: string): void {
  if (text === "") return;
  if (text.endsWith("\n")) (stream === "stdout" ? console.log : console.error)(text.slice(0, -1));
  else process[stream].write(text);
}

function isatty(fd: number): boolean {
  const tty = require("node:tty") as typeof import("node:tty");
  return tty.isatty(fd);
}

export function processIo(): CliIo {
  let out: boolean | undefined;
  let inp: boolean | undefined;
  return {
    out: (t) => write("stdout", t),
    err: (t) => write("stderr", t),
    env: process.env,
    cwd: process.cwd(),
    get stdoutIsTTY() {
      return (out ??= isatty(1));
    },
    get stdinIsTTY() {
      return (inp ??= isatty(0));
    },
    readLine: async () => {
      if (!isatty(0)) return null;
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
