/**
 * @module cli/commands/skill/search
 * `lemon skill search <query> [--max-local N] [--max-online N] [--no-online]` (cli.md §2.9).
 * Local relevance and online discovery side by side; a failed online source is a warning on
 * stderr (`warnings` in JSON), so an empty online section next to warnings reads as "these
 * sources could not be asked", not as "nothing exists".
 */
import { defineCommand } from "../../command.ts";
import { toolsFlag } from "../../args.ts";
import { cliLemon } from "../../context.ts";
import { printJson } from "../../output.ts";
import { relevantTable } from "./relevant.ts";
import { onlineTable, printWarnings } from "./discover.ts";

export default defineCommand({
  name: "search",
  description: "Search local skills and online sources",
  args: [{ name: "query", description: "What to look for (several words allowed)", required: true, variadic: true }],
  flags: {
    "max-local": { type: "integer", description: "Most local results (default 5)", value: "n" },
    "max-online": { type: "integer", description: "Most online results (default 5, at most 100)", value: "n" },
    online: { type: "boolean", defaultOn: true, description: "Local skills only" },
    ...toolsFlag,
  },
  async run({ flags, args, io }) {
    const lemon = cliLemon(io, flags);
    try {
      const r = await lemon.skills.search(args.query, {
        maxLocal: flags["max-local"] ?? 5,
        maxOnline: flags["max-online"] ?? 5,
        online: flags.online,
      });
      if (flags.json)
        return printJson(io, { ok: true, query: args.query, local: r.local, online: r.online, warnings: r.warnings });
      printWarnings(io, flags.quiet, r.warnings);
      io.out("Local skills\n");
      io.out(r.local.length === 0 ? "No local skills found.\n" : relevantTable(r.local));
      if (!flags.online) return;
      io.out("\nOnline skills\n");
      io.out(r.online.length === 0 ? "No online skills found.\n" : onlineTable(r.online));
    } finally {
      await lemon.close();
    }
  },
});
