/**
 * @module cli/commands/skill/discover
 * `lemon skill discover <query> [--max N]` (cli.md §2.10, install.md §11): online sources only.
 * A source that fails is a warning on stderr (or in `warnings`), never the command's failure.
 */
import { defineCommand } from "../../command.ts";
import { cliLemon } from "../../context.ts";
import { formatTable, info, printJson, truncate } from "../../output.ts";
import type { CliIo } from "../../io.ts";
import type { DiscoveryResult, DiscoveryWarning } from "../../../core/index.ts";

/** `ID  SOURCE  SCORE  DESCRIPTION`, shared with `skill search`. */
export function onlineTable(results: readonly DiscoveryResult[]): string {
  return formatTable(
    ["ID", "SOURCE", "SCORE", "DESCRIPTION"],
    results.map((r) => [r.id, r.source, String(r.score), truncate(r.description, 60)]),
  );
}

export function printWarnings(io: CliIo, quiet: boolean, warnings: readonly DiscoveryWarning[]): void {
  for (const w of warnings) info(io, quiet, `warn: ${w.source}: ${w.message}`);
}

export default defineCommand({
  name: "discover",
  description: "Search online skill sources (GitHub, the registry, well-known indexes)",
  args: [{ name: "query", description: "What to look for (several words allowed)", required: true, variadic: true }],
  flags: {
    max: { type: "integer", description: "Most results (default 10, at most 100)", value: "n" },
  },
  async run({ flags, args, io }) {
    const lemon = cliLemon(io, flags);
    try {
      const r = await lemon.skills.discover(args.query, flags.max !== undefined ? { max: flags.max } : {});
      if (flags.json) return printJson(io, { ok: true, query: args.query, results: r.results, warnings: r.warnings });
      printWarnings(io, flags.quiet, r.warnings);
      io.out(r.results.length === 0 ? "No online skills found.\n" : onlineTable(r.results));
    } finally {
      await lemon.close();
    }
  },
});
