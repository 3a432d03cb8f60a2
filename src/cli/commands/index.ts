/**
 * @module cli/commands
 * The top-level command table. Each group loads lazily so `--version` and `--help` parse nothing.
 * Commands of the contract that this version does not build answer UNAVAILABLE (cli.md §1.2).
 */
import { defineGroup, lazy } from "../command.ts";
import { TOP_DESCRIPTION } from "../top-usage.ts";

export const root = defineGroup({
  name: "lemon",
  description: TOP_DESCRIPTION,
  commands: {
    skill: { load: lazy(() => import("./skill/index.ts")) },
    mcp: { load: lazy(() => import("./mcp/index.ts")) },
    tool: { load: lazy(() => import("./tool/index.ts")) },
    blueprints: { unavailable: "Skill and automation bundles" },
    automations: { unavailable: "Scheduled agent runs" },
  },
});
