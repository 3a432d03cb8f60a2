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
    browse: () => load(import("./browse.ts")),
    inspect: () => load(import("./inspect.ts")),
    check: () => load(import("./check.ts")),
    lint: () => load(import("./lint.ts")),
    enable: () => load(import("./enable.ts")),
    disable: () => load(import("./disable.ts")),
    prompt: () => load(import("./prompt.ts")),
  },
});
