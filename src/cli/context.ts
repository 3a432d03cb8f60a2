/**
 * @module cli/context
 * Builds the core instance once per CLI run from the process facts in `io` and the common flags.
 */
import { createLemon, type Lemon } from "../core/index.ts";
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
