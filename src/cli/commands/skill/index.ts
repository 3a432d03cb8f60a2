/**
 * @module cli/commands/skill
 * `lemon skill …`: one lazily loaded file per subcommand.
 */
import { defineLemonCommand } from "../../command.ts";
import type { LemonCommand } from "../../command.ts";

const load = (p: Promise<{ default: LemonCommand }>) => p.then((m) => m.default);

export default defineLemonCommand({
  meta: { name: "skill", description: "Find, inspect, lint, enable and disable agent skills" },
  subCommands: {
    list: () => load(import("./list.ts")),
  },
});
