/**
 * @module cli/commands/skill/prompt
 * `lemon skill prompt [--relevant <query>] [--tools a,b]` (cli.md §2.8). The relevant block
 * arrives with the relevance engine; until then `--relevant` is refused as unknown.
 */
import { defineLemonCommand } from "../../command.ts";
import { toolsArg } from "../../args.ts";
import { cliLemon } from "../../context.ts";
import { printJson } from "../../output.ts";
import { isDisplayable } from "../../../core/skills/entry.ts";

export default defineLemonCommand({
  meta: { name: "prompt", description: "Print the skill listing an agent puts in its system prompt" },
  args: { ...toolsArg },
  async run({ args, io }) {
    const lemon = cliLemon(io, args);
    const { skills } = await lemon.skills.list();
    const listing = await lemon.renderPrompt();
    if (args.json) {
      printJson(io, { ok: true, listing, relevant: null, listing_count: skills.filter(isDisplayable).length });
      return 0;
    }
    io.out(listing);
    return 0;
  },
});
