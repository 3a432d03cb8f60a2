/**
 * @module cli/commands/skill/search
 * `lemon skill search <query> [--max-local N] [--max-online N] [--no-online]` (cli.md §2.9).
 * Online search is not built yet: the online section says so (a warning on stderr, `warnings` in
 * JSON) instead of claiming that nothing was found.
 */
import { defineCommand } from "../../command.ts";
import { toolsFlag } from "../../args.ts";
import { cliLemon } from "../../context.ts";
import { info, printJson } from "../../output.ts";
import { relevantTable } from "./relevant.ts";

export default defineCommand({
  name: "search",
  description: "Search local skills (online sources are not available in this version)",
  args: [{ name: "query", description: "What to look for (several words allowed)", required: true, variadic: true }],
  flags: {
    "max-local": { type: "integer", description: "Most local results (default 5)", value: "n" },
    "max-online": {
      type: "integer",
      description: "Most online results (no effect: online search is not available yet)",
      value: "n",
    },
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
      for (const w of r.warnings) info(io, flags.quiet, `warn: ${w.source}: ${w.message}`);
      io.out("Local skills\n");
      io.out(r.local.length === 0 ? "No local skills found.\n" : relevantTable(r.local));
      if (!flags.online) return;
      io.out("\nOnline skills\n");
      io.out(r.warnings.length > 0 ? "Not available in this version.\n" : "No online skills found.\n");
    } finally {
      await lemon.close();
    }
  },
});
