#!/usr/bin/env -S bun --no-env-file --config=/dev/null --tsconfig-override=/dev/null
/**
 * @module cli/main
 * The executable entry. The shebang keeps Bun from reading the current directory's `.env` (a
 * cloned repository could set LEMON_AGENT_DIR or LEMON_MCP_SERVERS), `bunfig.toml` (its `preload`
 * runs code before lemon) and `tsconfig.json` (its `paths` redirect lemon's own imports); the
 * compiled binary turns the first two off at build time and resolves nothing at run time.
 * A bare `--version` or `--help` is answered before the CLI proper loads; in the compiled binary
 * the CLI is a separate entrypoint imported by its embedded path (`LEMON_CLI_ENTRY`, define'd by
 * build.ts) so its bytes are not even parsed for those two. Started as `bun src/cli/main.ts`, Bun
 * has already applied the cwd's files; lemon then ignores location variables a `.env` defines
 * (core/context.ts processEnv), but a `bunfig.toml` preload or `tsconfig.json` paths of an
 * untrusted directory have run: use the bin (`npx lemon`), `npm run lemon` or the binary there.
 */
import { TOP_USAGE } from "./top-usage.ts";

declare const LEMON_VERSION: string | undefined;
declare const LEMON_CLI_ENTRY: string | undefined;

const argv = process.argv.slice(2);
// Only the exact one-flag forms: anything else (`--help --json`, `version --json`) goes through
// runCli, which owns the full rules, so both paths print the same thing.
/** Bun.write, not process.stdout: setting up Node's stdout stream costs more than the rest. */
async function answer(text: string): Promise<never> {
  try {
    await Bun.write(Bun.stdout, text);
  } catch {
    process.exit(1); // a closed pipe or a full disk (cli.md §1.2); nothing else to say it with
  }
  process.exit(0);
}
if (argv.length === 1 && argv[0] === "--version" && typeof LEMON_VERSION === "string")
  await answer(`lemon ${LEMON_VERSION}\n`);
if (argv.length === 1 && (argv[0] === "--help" || argv[0] === "-h")) await answer(TOP_USAGE);
const entry = typeof LEMON_CLI_ENTRY === "string" ? LEMON_CLI_ENTRY : "./entry.ts";
const { runCli, processIo } = (await import(entry)) as typeof import("./entry.ts");
process.exit(await runCli(argv, processIo()));
