/**
 * @module cli/commands/tool/read-skill
 * `lemon tool read_skill '<json>'` (cli.md §2.18, skills.md §8).
 */
import { defineCommand } from "../../command.ts";
import { callContext, PARAMS_ARG, printResult, readParams, TOOL_FLAGS, toolLemon } from "./run-tool.ts";

export default defineCommand({
  name: "read_skill",
  description: "Load a skill in the view an agent asks for (full, summary, section, file)",
  args: PARAMS_ARG,
  flags: TOOL_FLAGS,
  async run({ flags, args, io }) {
    const { lemon } = toolLemon(io, flags);
    try {
      const params = readParams(io, lemon.context.cwd, args.params);
      return printResult(io, flags.json, await lemon.readSkill(params, callContext(flags)));
    } finally {
      await lemon.close();
    }
  },
});
