#!/usr/bin/env bun
/**
 * @module cli/main
 * The executable entry. A bare `--version` or `--help` is answered before the CLI proper loads; in
 * the compiled binary the CLI is a separate entrypoint imported by its embedded path
 * (`LEMON_CLI_ENTRY`, define'd by build.ts) so its bytes are not even parsed for those two.
 */
import { TOP_USAGE } from "./top-usage.ts";

declare const LEMON_VERSION: string | undefined;
declare const LEMON_CLI_ENTRY: string | undefined;

const argv = process.argv.slice(2);
// Only the exact one-flag forms: anything else (`--help --json`, `version --json`) goes through
// runCli, which owns the full rules, so both paths print the same thing.
if (argv.length === 1 && argv[0] === "--version" && typeof LEMON_VERSION === "string") {
  console.log(`lemon ${LEMON_VERSION}`);
  process.exit(0);
}
if (argv.length === 1 && (argv[0] === "--help" || argv[0] === "-h")) {
  // Bun.write, not process.stdout: setting up Node's stdout stream costs more than the rest.
  await Bun.write(Bun.stdout, TOP_USAGE);
  process.exit(0);
}
const entry = typeof LEMON_CLI_ENTRY === "string" ? LEMON_CLI_ENTRY : "./entry.ts";
const { runCli, processIo } = (await import(entry)) as typeof import("./entry.ts");
process.exit(await runCli(argv, processIo()));
