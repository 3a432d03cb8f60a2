/**
 * @module cli/top-usage
 * The top-level usage page, alone in a dependency-free module: `main.ts` prints it for a bare
 * `--help` without loading the CLI proper (hot path); `run.ts` prints the same text. Tests
 * check it names every common flag and every built top-level command with its group's own
 * description (tests/cli/mcp-help.test.ts), so the two cannot drift apart.
 */
export const TOP_DESCRIPTION = "lemon — skills and MCP toolkit for coding agents";

export const TOP_USAGE = `${TOP_DESCRIPTION}

USAGE lemon <command> [OPTIONS]

COMMANDS

  skill    Find, install, update and remove agent skills; inspect, lint, audit and curate them
  mcp      Configure, trust, test and call MCP servers; list their tools and status
  tool     Invoke an agent tool (read_skill, skill_manage)
  version  Print the version
  help     Show usage for a command: lemon help <command> …

COMMON OPTIONS (anywhere on the line)

  --cwd <path>       Project directory (default: the current directory)
  --json             Print one JSON document
  --approve, --yes   Pre-approve this command's approval requests
  --quiet            Suppress informational output on stderr
  --no-color         Disable colour
  -h, --help         Show usage
  --version          Print the version

Run 'lemon <command> --help' for a command's options.
`;
