/**
 * @module cli/commands/skill/check
 * `lemon skill check [KEY] [--tools a,b]` (cli.md §2.4, skills.md §15.2), check-style.
 */
import { defineCommand } from "../../command.ts";
import { toolsFlag } from "../../args.ts";
import { cliLemon } from "../../context.ts";
import { formatTable, printDiagnostics, printJson } from "../../output.ts";
import { escapeKey } from "../../../core/index.ts";

export default defineCommand({
  name: "check",
  description: "Check readiness and validity of one or every skill",
  args: [{ name: "key", description: "Skill key (default: every skill)" }],
  flags: toolsFlag,
  async run({ flags, args, io }) {
    const lemon = cliLemon(io, flags);
    const report = await lemon.skills.check(args.key);
    if (flags.json) {
      printJson(io, { ok: report.ok, checks: report.checks, diagnostics: report.diagnostics });
      return report.ok ? 0 : 1;
    }
    const rows = report.checks.map((c) => {
      const missing = [...c.missing.bins, ...c.missing.env, ...c.missing.tools];
      const detail = c.invalid
        ? `${c.invalid.code}: ${c.invalid.message}`
        : missing.length > 0
          ? `missing ${missing.join(", ")}`
          : "";
      // Escaped: a valid key is unchanged, an invalid one shows the characters the column would strip.
      return [escapeKey(c.key), c.state, detail];
    });
    if (rows.length === 0) io.out("No skills found.\n");
    else io.out(formatTable(["KEY", "STATE", "DETAIL"], rows));
    // update_available is null: only an `update --check` could know, and installs do not exist yet.
    if (rows.length > 0) io.out("updates: unknown (this version records no installs to check against)\n");
    // Invalid skills are rows above; every other warn/error (an unreadable skills.json) goes to stderr.
    const shownAsRows = new Set(report.checks.flatMap((c) => (c.invalid ? [c.invalid.path] : [])));
    printDiagnostics(
      io,
      flags.quiet,
      report.diagnostics.filter((d) => d.path === undefined || !shownAsRows.has(d.path)),
      true,
    );
    return report.ok ? 0 : 1;
  },
});
