/**
 * @module cli/context
 * Builds the core instance once per CLI run from the process facts in `io` and the common flags.
 */
import { createLemon, LemonError, sanitizeMessage, type Lemon, type LemonOptions } from "../core/index.ts";
import type { CliIo } from "./io.ts";
import { parseToolsFlag } from "./args.ts";
import { projectDir } from "./project-dir.ts";

/** Where the core's own log entries go; without one they are dropped. */
export type CoreLog = NonNullable<LemonOptions["log"]>;

export function cliLemon(io: CliIo, args: Record<string, unknown>, log?: CoreLog): Lemon {
  const tools = parseToolsFlag(args.tools);
  return createLemon({
    cwd: projectDir(io, args),
    env: io.env,
    curator: false,
    ...(tools ? { availableTools: tools } : {}),
    ...(log ? { log } : {}),
  });
}

/**
 * The core's warnings and errors as diagnostics on stderr (cli.md §1.2: `warn: <message>`), each
 * said once per call, none with `quiet`: e.g. a search snapshot that cannot be written, which
 * skills.md §7.3 says is used from memory "with a diagnostic".
 */
export function stderrLog(io: CliIo, quiet: boolean): CoreLog {
  const said = new Set<string>();
  return (e) => {
    if (quiet || (e.level !== "warn" && e.level !== "error") || said.has(e.message)) return;
    said.add(e.message);
    io.err(`${e.level}: ${sanitizeMessage(e.message)}\n`);
  };
}

/**
 * A key that is not found may name a SKILL.md that does not validate: say that, and why, instead
 * of "not found" (issue 10 §6). Any other error passes through.
 */
export async function explainMissing(lemon: Lemon, key: string, err: unknown): Promise<never> {
  if (!(err instanceof LemonError) || err.code !== "NOT_FOUND") throw err;
  const bad = (await lemon.skills.list({ all: true })).invalid.find((s) => s.key === key);
  if (bad === undefined) throw err;
  throw new LemonError("INVALID_REQUEST", `skill '${key}' is invalid: ${bad.code}: ${bad.message} (${bad.path})`, {
    hint: `run 'lemon skill lint ${bad.path}' for every problem`,
  });
}
