/**
 * @module cli/context
 * Builds the core instance once per CLI run from the process facts in `io` and the common flags.
 */
import { cell, createLemon, LemonError, sanitizeMessage, type Lemon, type LemonOptions } from "../core/index.ts";
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

/** The path of an entry whose `data` is a Diagnostic (cli.md §1.4), shown before its message. */
function pathOf(data: unknown): string | null {
  const path = typeof data === "object" && data !== null ? (data as { path?: unknown }).path : undefined;
  return typeof path === "string" ? path : null;
}

/**
 * The core's warnings and errors as diagnostics on stderr (cli.md §1.2: `warn: [<path>: ]<message>`),
 * each said once per call, none with `quiet`: e.g. a search snapshot that cannot be written, which
 * skills.md §7.3 says is used from memory "with a diagnostic".
 */
export function stderrLog(io: CliIo, quiet: boolean): CoreLog {
  const said = new Set<string>();
  return (e) => {
    if (quiet || (e.level !== "warn" && e.level !== "error")) return;
    const path = pathOf(e.data);
    const line = `${e.level}: ${path !== null ? `${cell(path)}: ` : ""}${sanitizeMessage(e.message)}\n`;
    if (said.has(line)) return;
    said.add(line);
    io.err(line);
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
