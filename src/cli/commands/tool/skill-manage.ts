/**
 * @module cli/commands/tool/skill-manage
 * `lemon tool skill_manage '<json>'` (cli.md §2.18, skills.md §9). Write approvals (`[skills]
 * write_approval`) follow cli.md §1.3: `--approve`, a terminal prompt, or refused.
 */
import { LemonError, type ToolCallContext, type ToolResult } from "../../../core/index.ts";
import { defineCommand } from "../../command.ts";
import {
  callContext,
  PARAMS_ARG,
  printResult,
  readParams,
  reportApprovals,
  TOOL_FLAGS,
  toolLemon,
} from "./run-tool.ts";

type Manage = (params: unknown, ctx?: ToolCallContext) => Promise<ToolResult<unknown>>;

export default defineCommand({
  name: "skill_manage",
  description: "Create, edit, patch, pin, archive or report the agent's own skills",
  args: PARAMS_ARG,
  flags: TOOL_FLAGS,
  async run({ flags, args, io }) {
    const { lemon, approvals } = toolLemon(io, flags);
    try {
      const params = readParams(io, lemon.context.cwd, args.params);
      // The executor is the module's (skills.md §9); the same call an embedder makes.
      const manage = (lemon as { skillManage?: Manage }).skillManage;
      if (manage === undefined) {
        throw new LemonError("UNAVAILABLE", "'lemon tool skill_manage' is not available in this version");
      }
      const result = await manage(params, callContext(flags));
      reportApprovals(io, flags.quiet, approvals);
      return printResult(io, flags.json, result);
    } finally {
      await lemon.close();
    }
  },
});
