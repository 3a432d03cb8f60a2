#!/usr/bin/env bun
/**
 * @module cli/main
 * The executable entry. `--version` is answered before the CLI proper loads; in the compiled
 * binary the CLI is a separate entrypoint imported by path so its bytes are not even parsed here.
 */
declare const LEMON_VERSION: string | undefined;
declare const LEMON_CLI_ENTRY: string | undefined;

const argv = process.argv.slice(2);
if (argv.length === 1 && argv[0] === "--version" && typeof LEMON_VERSION === "string") {
  console.log(`lemon ${LEMON_VERSION}`);
  process.exit(0);
}
const entry = typeof LEMON_CLI_ENTRY === "string" ? LEMON_CLI_ENTRY : "./entry.ts";
const { runCli, processIo } = (await import(entry)) as typeof import("./entry.ts");
process.exit(await runCli(argv, processIo()));
export {};
