/**
 * @module cli/commands/mcp
 * `lemon mcp …` (cli.md §3): one lazily loaded file per subcommand.
 */
import { defineLemonCommand, type LemonCommand } from "../../command.ts";

const load = (p: Promise<{ default: LemonCommand }>) => p.then((m) => m.default);

export default defineLemonCommand({
  meta: { name: "mcp", description: "Configure MCP servers: lemon's own files and imports from other tools" },
  subCommands: {
    add: () => load(import("./add.ts")),
    list: () => load(import("./list.ts")),
    enable: () => load(import("./enable.ts")),
    disable: () => load(import("./disable.ts")),
    remove: () => load(import("./remove.ts")),
    status: () => load(import("./status.ts")),
  },
});
