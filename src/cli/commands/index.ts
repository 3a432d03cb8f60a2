/**
 * @module cli/commands
 * The top-level command table. Each group loads lazily so `--version` and `--help` parse nothing.
 */
import type { LemonCommand } from "../command.ts";

export const commands: Record<string, () => Promise<LemonCommand>> = {
  skill: () => import("./skill/index.ts").then((m) => m.default),
  mcp: () => import("./mcp/index.ts").then((m) => m.default),
};
