/**
 * @module cli/progress
 * Progress of slow fetches on stderr (install.md §3: only a clone past one second reports any),
 * shared by `skill install` and `skill update`: redrawn in place on a terminal, one line each
 * with `--verbose` (on a terminal or a pipe), nothing otherwise or with `--quiet`.
 */
import { cell } from "../core/index.ts";
import type { CliIo } from "./io.ts";

export interface Progress {
  /** Undefined when nothing would be shown, so the core skips producing the lines. */
  onProgress: ((line: string) => void) | undefined;
  /** Clears a live line that was drawn; call before anything else goes to stderr. */
  done(): void;
}

export function progress(io: CliIo, flags: { verbose: boolean; quiet: boolean }): Progress {
  if (flags.quiet) return { onProgress: undefined, done: () => {} };
  if (flags.verbose) return { onProgress: (line) => io.err(`${cell(line)}\n`), done: () => {} };
  const tty = io.interactive ?? (require("node:tty") as typeof import("node:tty")).isatty(2);
  if (!tty) return { onProgress: undefined, done: () => {} };
  let shown = false;
  return {
    onProgress: (line) => {
      shown = true;
      io.err(`\r${cell(line, 120)}\x1b[K`);
    },
    done: () => {
      if (shown) io.err("\r\x1b[K");
    },
  };
}
