/**
 * @module cli/commands/skill/prompt
 * `lemon skill prompt [--relevant <query>] [--tools a,b]` (cli.md §2.8): the stable listing and,
 * with `--relevant`, a blank line and the per-turn relevant block for that query.
 */
import { defineLemonCommand } from "../../command.ts";
import { toolsArg } from "../../args.ts";
import { cliLemon } from "../../context.ts";
import { printDiagnostics, printJson } from "../../output.ts";
import { isDisplayable } from "../../../core/skills/entry.ts";

export default defineLemonCommand({
  meta: { name: "prompt", description: "Print the skill listing an agent puts in its system prompt" },
  args: {
    relevant: { type: "string", description: "Also render the relevant block for this request", valueHint: "query" },
    ...toolsArg,
  },
  async run({ args, io }) {
    const lemon = cliLemon(io, args);
    const { skills, diagnostics } = await lemon.skills.list();
    const listing = await lemon.renderPrompt();
    const query = typeof args.relevant === "string" ? args.relevant : null;
    const relevant = query === null ? null : lemon.renderRelevant(await lemon.skills.findRelevant(query));
    await lemon.close();
    if (args.json) {
      printJson(io, { ok: true, listing, relevant, listing_count: skills.filter(isDisplayable).length });
      return 0;
    }
    printDiagnostics(io, Boolean(args.quiet), diagnostics);
    io.out(listing);
    if (relevant !== null) io.out(`\n${relevant}`);
    return 0;
  },
});
