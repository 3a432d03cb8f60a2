/**
 * @module cli/commands/skill/search
 * `lemon skill search <query> [--max-local N] [--max-online N] [--no-online]` (cli.md §2.9).
 * Online search is not built yet: without --no-online the online section is empty and a warning
 * says so (stderr in human mode, `warnings` in JSON).
 */
import { defineLemonCommand } from "../../command.ts";
import { intFlag, toolsArg } from "../../args.ts";
import { cliLemon } from "../../context.ts";
import { info, printJson } from "../../output.ts";
import { queryFrom, relevantTable } from "./relevant.ts";

export default defineLemonCommand({
  meta: { name: "search", description: "Search local skills (and online sources)" },
  args: {
    query: { type: "positional", description: "What to look for", required: true },
    "max-local": { type: "string", description: "Most local results (default 5)", valueHint: "N" },
    "max-online": { type: "string", description: "Most online results (default 5)", valueHint: "N" },
    online: { type: "boolean", description: "Search online sources", default: true, negativeDescription: "Local skills only" },
    ...toolsArg,
  },
  variadic: true,
  async run({ args, io }) {
    const query = queryFrom(args);
    const maxLocal = intFlag("max-local", args["max-local"], 5);
    const maxOnline = intFlag("max-online", args["max-online"], 5);
    const lemon = cliLemon(io, args);
    try {
      const r = await lemon.skills.search(query, { maxLocal, maxOnline, online: args.online !== false });
      if (args.json) {
        printJson(io, { ok: true, query, local: r.local, online: r.online, warnings: r.warnings });
        return 0;
      }
      for (const w of r.warnings) info(io, Boolean(args.quiet), `warning: ${w.source}: ${w.message}`);
      io.out("Local skills\n");
      io.out(r.local.length === 0 ? "No local skills found.\n" : relevantTable(r.local));
      io.out("\nOnline skills\n");
      io.out("No online skills found.\n");
      return 0;
    } finally {
      await lemon.close();
    }
  },
});
