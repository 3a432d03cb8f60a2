/**
 * @module cli/commands/skill/prompt
 * `lemon skill prompt [--relevant <query>] [--tools a,b]` (cli.md §2.8): the stable listing and,
 * with `--relevant`, a blank line and the per-turn relevant block for that query.
 */
import { defineCommand } from "../../command.ts";
import { toolsFlag } from "../../args.ts";
import { cliLemon } from "../../context.ts";
import { printDiagnostics, printJson } from "../../output.ts";
import { isDisplayable } from "../../../core/index.ts";

export default defineCommand({
  name: "prompt",
  description: "Print the skill listing an agent puts in its system prompt",
  flags: {
    relevant: { type: "string", description: "Also render the relevant block for this request", value: "query" },
    ...toolsFlag,
  },
  async run({ flags, io }) {
    const lemon = cliLemon(io, flags);
    try {
      const { skills, diagnostics } = await lemon.skills.list();
      const listing = await lemon.renderPrompt();
      const query = flags.relevant ?? null;
      const relevant = query === null ? null : lemon.renderRelevant(await lemon.skills.findRelevant(query));
      if (flags.json)
        return printJson(io, { ok: true, listing, relevant, listing_count: skills.filter(isDisplayable).length });
      printDiagnostics(io, flags.quiet, diagnostics);
      io.out(listing);
      if (relevant !== null) io.out(`\n${relevant}`);
    } finally {
      await lemon.close();
    }
  },
});
