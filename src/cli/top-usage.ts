/**
 * @module cli/top-usage
 * The top-level usage page, alone in a dependency-free module: `main.ts` prints it for a bare
 * `--help` without loading the CLI proper (hot path); `run.ts` prints the same text. A test
 * checks it names every top-level command and common flag.
 */
export const TOP_DESCRIPTION = "lemon — skills and MCP toolkit for coding agents";

export const TOP_USAGE = `${TOP_DESCRIPTION}

USAGE lemon <command> [OPTIONS]

COMMANDS

  skill    Find, inspect, lint, enable and disable agent skills (SKILL.md)
  mcp      Configure MCP servers: lemon's own files and imports from other tools
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
