/**
 * @module cli/commands/skill/browse
 * `lemon skill browse [--active|--not-ready|--all]` (cli.md §2.2).
 */
import { defineLemonCommand } from "../../command.ts";
import { invalidParams } from "../../../core/errors.ts";
import { isDisplayable } from "../../../core/skills/entry.ts";
import { cliLemon } from "../../context.ts";
import { formatTable, info, printDiagnostics, printJson, printNoSkills, truncate } from "../../output.ts";

export default defineLemonCommand({
  meta: { name: "browse", description: "Browse skills by activation state" },
  args: {
    active: { type: "boolean", description: "Only active skills" },
    "not-ready": { type: "boolean", description: "Only skills with missing requirements" },
    all: { type: "boolean", description: "Every effective skill, including disabled and unavailable ones" },
  },
  async run({ args, io }) {
    const picked = [args.active, args["not-ready"], args.all].filter(Boolean).length;
    if (picked > 1) throw invalidParams("use only one of --active, --not-ready, --all");
    const filter = args.active ? "active" : args["not-ready"] ? "not_ready" : args.all ? "all" : "displayable";
    const lemon = cliLemon(io, args);
    const { skills, diagnostics } = await lemon.skills.list();
    const shown = skills.filter((e) =>
      filter === "all" ? true : filter === "displayable" ? isDisplayable(e) : e.activation_state === filter && !e.hidden,
    );
    if (args.json) {
      printJson(io, { ok: true, filter, skills: shown });
      return 0;
    }
    printDiagnostics(io, Boolean(args.quiet), diagnostics);
    if (shown.length === 0) {
      if (printNoSkills(io, diagnostics)) info(io, Boolean(args.quiet), "hint: use --all to include disabled and unavailable skills");
      return 0;
    }
    io.out(
      formatTable(
        ["KEY", "ACTIVATION", "TRUST", "DESCRIPTION"],
        shown.map((e) => [e.key, e.activation_state, e.trust_level ?? "untrusted", truncate(e.description, 60)]),
      ),
    );
    return 0;
  },
});
