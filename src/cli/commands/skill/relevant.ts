/**
 * @module cli/commands/skill/relevant
 * `lemon skill relevant <query> [--max N] [--tools a,b] [--refresh] [--render]` (cli.md §2.7).
 * Words after the first positional are part of the query, so quoting is optional.
 */
import { defineLemonCommand } from "../../command.ts";
import { intFlag, toolsArg } from "../../args.ts";
import { cliLemon } from "../../context.ts";
import { formatTable, printJson, truncate } from "../../output.ts";
import { normaliseMaxResults } from "../../../core/skills/search/relevance.ts";
import type { SkillEntry } from "../../../core/skills/entry.ts";
import { stateLabel } from "./list.ts";

/** `RANK  KEY  SCOPE  STATE  DESCRIPTION`, shared with `skill search`. */
export function relevantTable(entries: readonly SkillEntry[]): string {
  return formatTable(
    ["RANK", "KEY", "SCOPE", "STATE", "DESCRIPTION"],
    entries.map((e, i) => [String(i + 1), e.key, e.scope, stateLabel(e), truncate(e.description, 60)]),
  );
}

/** The query: every positional word, joined by single spaces. */
export function queryFrom(args: { _: string[] }): string {
  return args._.join(" ");
}

export default defineLemonCommand({
  meta: { name: "relevant", description: "Find the skills most relevant to a request" },
  args: {
    query: { type: "positional", description: "What the agent was asked to do", required: true },
    max: { type: "string", description: "Most results (default 3, at most 50)", valueHint: "N" },
    ...toolsArg,
    refresh: { type: "boolean", description: "Rebuild the search snapshot first" },
    render: { type: "boolean", description: "Print the <relevant-skills> block an agent receives" },
  },
  variadic: true,
  async run({ args, io }) {
    const query = queryFrom(args);
    const max = intFlag("max", args.max, 3);
    const lemon = cliLemon(io, args);
    try {
      const results = await lemon.skills.findRelevant(query, { maxResults: max, refresh: Boolean(args.refresh) });
      if (args.json) {
        printJson(io, {
          ok: true,
          query,
          max_results: normaliseMaxResults(max),
          results: results.map((skill, i) => ({ rank: i + 1, skill })),
        });
      } else if (args.render) io.out(lemon.renderRelevant(results));
      else if (results.length === 0) io.out("No relevant skills.\n");
      else io.out(relevantTable(results));
      return 0;
    } finally {
      await lemon.close();
    }
  },
});
