/**
 * @module cli/commands/skill/relevant
 * `lemon skill relevant <query> [--max N] [--tools a,b] [--refresh] [--render]` (cli.md §2.7).
 * Words after the first positional are part of the query, so quoting is optional.
 */
import { defineCommand } from "../../command.ts";
import { toolsFlag } from "../../args.ts";
import { cliLemon, stderrLog } from "../../context.ts";
import { formatTable, printJson, truncate } from "../../output.ts";
import { normaliseMaxResults, type SkillEntry } from "../../../core/index.ts";
import { stateLabel } from "./list.ts";

/** `RANK  KEY  SCOPE  STATE  DESCRIPTION`, shared with `skill search`. */
export function relevantTable(entries: readonly SkillEntry[]): string {
  return formatTable(
    ["RANK", "KEY", "SCOPE", "STATE", "DESCRIPTION"],
    entries.map((e, i) => [String(i + 1), e.key, e.scope, stateLabel(e), truncate(e.description, 60)]),
  );
}

export default defineCommand({
  name: "relevant",
  description: "Find the skills most relevant to a request",
  args: [
    {
      name: "query",
      description: "What the agent was asked to do (several words allowed)",
      required: true,
      variadic: true,
    },
  ],
  flags: {
    max: { type: "integer", description: "Most results (default 3, at most 50)", value: "n" },
    ...toolsFlag,
    refresh: { type: "boolean", description: "Rebuild the search snapshot first" },
    render: { type: "boolean", description: "Print the <relevant-skills> block an agent receives" },
  },
  async run({ flags, args, io }) {
    const query = args.query;
    // Human output carries the core's warnings on stderr, as `skill list` does its diagnostics;
    // the JSON document has no place for them (cli.md §2.7) and stays alone.
    const lemon = cliLemon(io, flags, flags.json ? undefined : stderrLog(io, flags.quiet === true));
    try {
      const results = await lemon.skills.findRelevant(query, { maxResults: flags.max ?? 3, refresh: flags.refresh });
      if (flags.json) {
        const max_results = normaliseMaxResults(flags.max);
        return printJson(io, {
          ok: true,
          query,
          max_results,
          results: results.map((skill, i) => ({ rank: i + 1, skill })),
        });
      }
      if (flags.render) io.out(lemon.renderRelevant(results));
      else if (results.length === 0) io.out("No relevant skills.\n");
      else io.out(relevantTable(results));
    } finally {
      await lemon.close();
    }
  },
});
