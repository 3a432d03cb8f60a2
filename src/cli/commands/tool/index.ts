/**
 * @module cli/commands/tool
 * `lemon tool read_skill|skill_manage <params>` (cli.md §2.18): lemon's agent tools for any agent
 * that can run a subprocess. One lazily loaded file per tool.
 */
import { defineGroup, lazy } from "../../command.ts";

export default defineGroup({
  name: "tool",
  description: "Invoke an agent tool (read_skill, skill_manage)",
  commands: {
    read_skill: { load: lazy(() => import("./read-skill.ts")) },
    skill_manage: { load: lazy(() => import("./skill-manage.ts")) },
  },
});
