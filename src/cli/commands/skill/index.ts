/**
 * @module cli/commands/skill
 * `lemon skill …`: one lazily loaded file per subcommand (a chunk of its own in the binary).
 */
import { defineLemonCommand, type LemonCommand } from "../../command.ts";

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
    relevant: () => load(import("./relevant.ts")),
    search: () => load(import("./search.ts")),
    audit: () => load(import("./audit.ts")),
  },
});
