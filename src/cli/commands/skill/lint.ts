/**
 * @module cli/commands/skill/lint
 * `lemon skill lint [PATH …] [--strict] [--json] [--no-audit]` (skills.md §15.1), check-style.
 */
import { defineLemonCommand } from "../../command.ts";
import { cliLemon } from "../../context.ts";
import { printJson } from "../../output.ts";
import { cell } from "../../../core/text.ts";

export default defineLemonCommand({
  meta: { name: "lint", description: "Lint skill bundles (frontmatter, body, references, security audit)" },
  args: {
    path: { type: "positional", description: "Skill directories or parents of skill directories", required: false },
    strict: { type: "boolean", description: "Treat warnings as failures" },
    audit: { type: "boolean", description: "Run the security audit", default: true, negativeDescription: "Skip the security audit" },
  },
  variadic: true,
  async run({ args, io }) {
    const lemon = cliLemon(io, args);
    const paths = args._.map(String);
    const report = await lemon.skills.lint(paths, { strict: Boolean(args.strict), audit: args.audit !== false });
    if (args.json) {
      printJson(io, { ...report });
      return report.ok ? 0 : 1;
    }
    for (const r of report.results) {
      io.out(`${cell(r.key)}  ${r.valid ? "ok" : "FAIL"}  ${cell(r.path)}\n`);
      for (const i of r.issues) io.out(`  ${i.severity}  ${i.code}  ${cell(i.message)}\n`);
    }
    const s = report.summary;
    io.out(`${s.skills} skill(s), ${s.errors} error(s), ${s.warnings} warning(s)\n`);
    return report.ok ? 0 : 1;
  },
});
