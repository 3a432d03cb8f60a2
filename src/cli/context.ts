/**
 * @module cli/context
 * Builds the core instance once per CLI run from the process facts in `io` and the common flags.
 */
import { createLemon, LemonError, type Lemon } from "../core/index.ts";
import type { CliIo } from "./io.ts";
import { parseToolsFlag } from "./args.ts";
import { projectDir } from "./project-dir.ts";

export function cliLemon(io: CliIo, args: Record<string, unknown>): Lemon {
  const tools = parseToolsFlag(args.tools);
  return createLemon({
    cwd: projectDir(io, args),
    env: io.env,
    curator: false,
    ...(tools ? { availableTools: tools } : {}),
  });
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
