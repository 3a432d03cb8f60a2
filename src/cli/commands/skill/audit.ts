/**
 * @module cli/commands/skill/audit
 * `lemon skill audit <key|PATH> [--force] [--json]` (cli.md §2.6, install.md §7.5), check-style:
 * the report is printed even for `block`, which exits 1.
 */
import { defineCommand } from "../../command.ts";
import { cliLemon, explainMissing } from "../../context.ts";
import { printDiagnostics, printJson } from "../../output.ts";
import { auditJson, cell, formatFinding } from "../../../core/index.ts";

export default defineCommand({
  name: "audit",
  description: "Run the security audit on an installed skill or a skill directory",
  args: [{ name: "target", description: "Skill key, or the path of a skill directory", required: true }],
  flags: { force: { type: "boolean", description: "Ignore the audit cache" } },
  async run({ flags, args, io }) {
    const lemon = cliLemon(io, flags);
    const report = await lemon.skills
      .audit(args.target, { force: flags.force })
      .catch((e) => explainMissing(lemon, args.target, e));
    if (flags.json) printJson(io, auditJson(report));
    else {
      io.out(`${cell(report.key)}: ${report.verdict} (sha256 ${report.bundle_hash})\n`);
      for (const f of report.findings) io.out(`${cell(formatFinding(f))}\n`);
      printDiagnostics(io, flags.quiet, report.diagnostics);
    }
    return report.verdict === "block" ? 1 : 0;
  },
});
