/**
 * @module cli/commands/skill/check
 * `lemon skill check [KEY] [--tools a,b]` (cli.md §2.4, skills.md §15.2), check-style.
 */
import { defineCommand } from "../../command.ts";
import { toolsFlag } from "../../args.ts";
import { cliLemon } from "../../context.ts";
import { formatTable, printDiagnostics, printJson } from "../../output.ts";
import { escapeKey, type SkillCheck } from "../../../core/index.ts";

/**
 * What the check knows about updates: only what a previous `update --check` recorded (skills.md
 * §15.2). A row with drift fields is a managed skill; the others have no install record.
 */
function updatesLine(checks: readonly SkillCheck[]): string {
  const managed = checks.filter((c) => c.locally_modified !== null || c.update_available !== null);
  if (managed.length === 0) return "updates: unknown (no skill here has an install record)";
  const available = managed.filter((c) => c.update_available === true).length;
  const unchecked = managed.filter((c) => c.update_available === null).length;
  const look = "run 'lemon skill update --all --check' to look upstream, with --local for project installs";
  if (unchecked === managed.length) return `updates: unknown, never checked (${look})`;
  const rest = unchecked > 0 ? `; ${unchecked} never checked (${look})` : "";
  return `updates: ${available} available as of the last check${rest}`;
}

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
      const details = c.invalid ? [`${c.invalid.code}: ${c.invalid.message}`] : [];
      if (missing.length > 0) details.push(`missing ${missing.join(", ")}`);
      if (c.override_valid === false) details.push("security override void: the files changed since approval");
      if (c.locally_modified === true) details.push("locally modified since install");
      if (c.update_available === true) details.push("update available");
      // Escaped: a valid key is unchanged, an invalid one shows the characters the column would strip.
      return [escapeKey(c.key), c.state, details.join("; ")];
    });
    if (rows.length === 0) io.out("No skills found.\n");
    else io.out(formatTable(["KEY", "STATE", "DETAIL"], rows));
    if (rows.length > 0) io.out(`${updatesLine(report.checks)}\n`);
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
