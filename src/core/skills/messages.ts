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
  yamlKeyNotString: "invalid YAML frontmatter: mapping keys must be strings",
  symlinkEscape: "SKILL.md is a symlink that resolves outside the skill directory",
  keyInvalid: (problem: string) => `${problem}; rename the directory`,
  duplicateKey: (winner: string) => `shadowed by ${winner}`,
  duplicateRealPath: (first: string) => `same directory as ${first}; visited once`,
  scanLimit: (n: number) => `scan stopped after ${n} directory entries`,
  rootUnreadable: (reason: string) => `skill root cannot be read (${reason})`,
  dirUnreadable: (reason: string) => `directory cannot be read (${reason})`,
  invalidSettings: (reason: string) => `invalid skills.json: ${reason}`,
  configUnreadable: (reason: string) => `config.toml is ignored: ${reason}`,
  configNotToml: (line: number | null) =>
    `config.toml is ignored: invalid TOML${line !== null ? ` (line ${line})` : ""}`,
  configUnknownKey: (key: string) => `unknown config key '${key}' is ignored`,
  // lint (skills.md §15.1 fixes the codes; the texts are ours)
  lintInvalidKey: (key: string) => `key '${key}' should match ^[a-z0-9][a-z0-9._-]*$ and be at most 64 characters`,
  lintSymlink: (link: string) => `symlink inside the skill directory: ${link}`,
  lintNoSkillFile: "directory has no SKILL.md",
  lintNoFrontmatter: "SKILL.md has no frontmatter",
  lintNoName: "frontmatter has no name",
  lintNameMismatch: (name: string, key: string) => `name '${name}' differs from the key '${key}'`,
  lintNoDescription: "frontmatter has no description",
  lintShortDescription: "description is shorter than 20 characters",
  lintUnknownField: (f: string) => `unknown field '${f}'`,
  lintRefTraversal: (p: string) => `reference '${p}' escapes the skill directory`,
  lintRefMissing: (p: string) => `reference '${p}' does not exist`,
  lintEmptyBody: "SKILL.md body is empty",
  lintBodyTooLong: (n: number) => `body exceeds ${n} characters`,
  lintAuditWarn: (findings: string[]) => `audit: ${findings.join("; ")}`,
  lintAuditBlock: (findings: string[]) => `audit blocked: ${findings.join("; ")}`,
  lintDirUnreadable: (path: string, code: string) => `${path} cannot be listed (${code})`,
} as const;
