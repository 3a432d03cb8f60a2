/**
 * @module cli/top-usage
 * The top-level usage page, alone in a dependency-free module: `main.ts` prints it for a bare
 * `--help` without loading the CLI proper (hot path), and `usage.ts` re-exports it for `run.ts`.
 */
export const TOP_USAGE = `lemon — skills and MCP toolkit for coding agents

USAGE lemon <command> [OPTIONS]

COMMANDS

  skill    Find, inspect, lint, enable and disable agent skills (SKILL.md)
  mcp      Manage MCP server configuration
  version  Print the version
  help     Show usage for a command

OPTIONS

  --json       Print one JSON document
  --cwd=<path> Project directory
  --quiet      Suppress informational output
  --no-color   Disable colour
  -h, --help   Show usage
  --version    Print the version

Use lemon <command> --help for more information about a command.
`;
