/**
 * @module cli/commands/skill/audit
 * `lemon skill audit <key|PATH> [--force] [--json]` (cli.md §2.6, install.md §7.5), check-style:
 * the report is printed even for `block`, which exits 1.
 */
import { defineLemonCommand } from "../../command.ts";
import { cliLemon } from "../../context.ts";
import { printDiagnostics, printJson } from "../../output.ts";
import { cell } from "../../../core/text.ts";
import { auditJson, formatFinding } from "../../../core/skills/audit/index.ts";

export default defineLemonCommand({
  meta: { name: "audit", description: "Run the security audit on an installed skill or a skill directory" },
  args: {
    target: { type: "positional", description: "Skill key or path to a skill directory", required: true },
    force: { type: "boolean", description: "Ignore the audit cache" },
  },
  async run({ args, io }) {
    const lemon = cliLemon(io, args);
    const report = await lemon.skills.audit(String(args.target), { force: Boolean(args.force) });
    if (args.json) printJson(io, auditJson(report));
    else {
      io.out(`${cell(report.key)}: ${report.verdict} (sha256 ${report.bundleHash})\n`);
      for (const f of report.findings) io.out(`${cell(formatFinding(f))}\n`);
      printDiagnostics(io, Boolean(args.quiet), report.diagnostics);
    }
    return report.verdict === "block" ? 1 : 0;
  },
});
