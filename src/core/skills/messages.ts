/**
 * @module skills/messages
 * Every catalog message in one table. Messages the spec fixes are quoted from it verbatim;
 * the rest are ours and pinned by tests.
 */
export const MSG = {
  // skills.md §4.1 (spec)
  notClosed: "frontmatter is not closed",
  headerTooLarge: "frontmatter exceeds 65536 bytes",
  notMapping: "frontmatter must be a mapping",
  // ours
  invalidUtf8: "SKILL.md is not valid UTF-8",
  fileTooLarge: "SKILL.md exceeds 1048576 bytes",
  unreadable: (reason: string) => `SKILL.md cannot be read (${reason})`,
  notRegular: "SKILL.md is not a regular file",
  yamlError: (detail: string) => `invalid YAML frontmatter: ${detail}`,
  tomlError: (detail: string) => `invalid TOML frontmatter: ${detail}`,
  yamlAliases: "invalid YAML frontmatter: more than 100 aliases",
  duplicateKeyYaml: (key: string) => `invalid YAML frontmatter: duplicate key '${key}'`,
  symlinkEscape: "SKILL.md is a symlink that resolves outside the skill directory",
  duplicateKey: (winner: string) => `shadowed by ${winner}`,
  duplicateRealPath: (first: string) => `same directory as ${first}; visited once`,
  scanLimit: (n: number) => `scan stopped after ${n} directory entries`,
  rootUnreadable: (reason: string) => `skill root cannot be read (${reason})`,
  dirUnreadable: (reason: string) => `directory cannot be read (${reason})`,
  invalidSettings: (reason: string) => `invalid skills.json: ${reason}`,
} as const;
