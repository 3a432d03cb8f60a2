/**
 * @module cli/commands/skill/lint
 * `lemon skill lint [PATH …] [--strict] [--json] [--no-audit]` (skills.md §15.1), check-style.
 */
import { defineCommand } from "../../command.ts";
import { cliLemon } from "../../context.ts";
import { formatRows, printJson } from "../../output.ts";
import { escapeKey } from "../../../core/index.ts";

export default defineCommand({
  name: "lint",
  description: "Lint skill bundles (frontmatter, body, references, security audit)",
  args: [
    {
      name: "path",
      description: "Skill directories or parents of skill directories (default: every skill)",
      variadic: true,
    },
  ],
  flags: {
    strict: { type: "boolean", description: "Treat warnings as failures" },
    audit: { type: "boolean", defaultOn: true, description: "Skip the security audit" },
  },
  async run({ flags, words, io }) {
    const lemon = cliLemon(io, flags);
    const report = await lemon.skills.lint([...words], { strict: flags.strict, audit: flags.audit });
    if (flags.json) {
      printJson(io, { ...report });
      return report.ok ? 0 : 1;
    }
    // Columns line up across the whole report: key, verdict and path; severity, code and message.
    // Keys escaped: a column strips invisible characters, which may be why a key is invalid.
    const heads = formatRows(report.results.map((r) => [escapeKey(r.key), r.valid ? "ok" : "FAIL", r.path])).split(
      "\n",
    );
    const issues = formatRows(
      report.results.flatMap((r) => r.issues.map((i) => [i.severity, i.code, i.message])),
      "  ",
    ).split("\n");
    let next = 0;
    report.results.forEach((r, i) => {
      io.out(`${heads[i]}\n`);
      for (let n = 0; n < r.issues.length; n++) io.out(`${issues[next++]}\n`);
    });
    const s = report.summary;
    io.out(`${s.skills} skill(s), ${s.errors} error(s), ${s.warnings} warning(s)\n`);
    return report.ok ? 0 : 1;
  },
});
