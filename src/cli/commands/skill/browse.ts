/**
 * @module cli/commands/skill/browse
 * `lemon skill browse [--active|--not-ready|--all]` (cli.md §2.2).
 */
import { defineCommand } from "../../command.ts";
import { usageError } from "../../args.ts";
import { isDisplayable } from "../../../core/index.ts";
import { cliLemon } from "../../context.ts";
import { formatTable, hint, printDiagnostics, printJson, printNoSkills, truncate } from "../../output.ts";

export default defineCommand({
  name: "browse",
  description: "Browse skills by activation state",
  flags: {
    active: { type: "boolean", description: "Only active skills" },
    "not-ready": { type: "boolean", description: "Only skills with missing requirements" },
    all: { type: "boolean", description: "Every effective skill, disabled and unavailable ones included" },
  },
  async run({ flags, io }) {
    const picked = [flags.active, flags["not-ready"], flags.all].filter(Boolean).length;
    if (picked > 1) throw usageError("use only one of --active, --not-ready, --all");
    const filter = flags.active ? "active" : flags["not-ready"] ? "not_ready" : flags.all ? "all" : "displayable";
    const lemon = cliLemon(io, flags);
    const { skills, diagnostics } = await lemon.skills.list();
    const shown = skills.filter((e) =>
      filter === "all"
        ? true
        : filter === "displayable"
          ? isDisplayable(e)
          : e.activation_state === filter && !e.hidden,
    );
    if (flags.json) return printJson(io, { ok: true, filter, skills: shown });
    printDiagnostics(io, flags.quiet, diagnostics);
    if (shown.length === 0) {
      if (printNoSkills(io, diagnostics)) hint(io, flags.quiet, "use --all to include disabled and unavailable skills");
      return;
    }
    io.out(
      formatTable(
        ["KEY", "ACTIVATION", "TRUST", "DESCRIPTION"],
        shown.map((e) => [e.key, e.activation_state, e.trust_level ?? "untrusted", truncate(e.description, 60)]),
      ),
    );
  },
});
