/**
 * @module fsx/cleanup
 * What this process holds on disk right now (lock directories, temp files), so a signal can
 * release it before the process dies (skills.md §1.3 rule 2). The core never exits: the CLI
 * passes its process and exit function to `installSignalCleanup`, and handlers are attached only
 * while something is held, so a long-running command keeps its own SIGINT behaviour otherwise.
 * No imports: the CLI reaches this module at start-up, and each holder brings its own remover.
 */
export type CleanupSignal = "SIGINT" | "SIGTERM" | "SIGHUP";

/** 128 + the signal number, what a shell reports for a process the signal killed. */
export const SIGNAL_EXIT_CODES: Readonly<Record<CleanupSignal, number>> = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 };

/** The part of `process` the handlers need, so tests and embedders can pass their own. */
export interface SignalTarget {
  on(signal: CleanupSignal, listener: () => void): unknown;
  off(signal: CleanupSignal, listener: () => void): unknown;
}

/** Path → a synchronous remover: a signal handler cannot wait for promises. */
const held = new Map<string, () => void>();
let target: { proc: SignalTarget; exit: (code: number) => void } | null = null;
const listeners = new Map<CleanupSignal, () => void>();

function attach(): void {
  if (target === null || listeners.size > 0) return;
  for (const signal of Object.keys(SIGNAL_EXIT_CODES) as CleanupSignal[]) {
    const listener = () => {
      cleanupHeldSync();
      target?.exit(SIGNAL_EXIT_CODES[signal]);
    };
    listeners.set(signal, listener);
    target.proc.on(signal, listener);
  }
}

function detach(): void {
  if (target === null) return;
  for (const [signal, listener] of listeners) target.proc.off(signal, listener);
  listeners.clear();
}

/** Records a lock directory or temp file this process created; `remove` runs on a signal until released. */
export function holdPath(path: string, remove: () => void): void {
  held.set(path, remove);
  attach();
}

export function releasePath(path: string): void {
  held.delete(path);
  if (held.size === 0) detach();
}

/** True when this process created `path` (a lock directory) and has not released it. */
export function isHeld(path: string): boolean {
  return held.has(path);
}

/** Removes everything held, synchronously. */
export function cleanupHeldSync(): void {
  for (const remove of held.values()) {
    try {
      remove();
    } catch {
      // Best effort: the process is about to exit, and a left-over lock is recovered as stale.
    }
  }
  held.clear();
  detach();
}

/**
 * Lets held locks and temp files be released on SIGINT/SIGTERM/SIGHUP, then `exit(130|143|129)`.
 * Returns a function that uninstalls. Called once by the CLI with `process` and `process.exit`.
 */
export function installSignalCleanup(proc: SignalTarget, exit: (code: number) => void): () => void {
  detach();
  target = { proc, exit };
  if (held.size > 0) attach();
  return () => {
    detach();
    target = null;
  };
}
