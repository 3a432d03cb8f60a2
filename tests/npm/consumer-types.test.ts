// The published entries type-check inside a consumer project (issue 9 §2.15): a project made by
// `bun init` (strict) that depends on lemon-skills and imports all three entries must compile
// with this repository's tsc. Before the fix it failed with TS2307 on `../prompts/skills-listing.md`.
import { describe, expect, test } from "bun:test";
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const REPO = join(import.meta.dir, "..", "..");

/** `bun init`'s tsconfig.json of Bun 1.4 (strict). */
const BUN_INIT_TSCONFIG = {
  compilerOptions: {
    lib: ["ESNext"],
    target: "ESNext",
    module: "Preserve",
    moduleDetection: "force",
    jsx: "react-jsx",
    allowJs: true,
    moduleResolution: "bundler",
    allowImportingTsExtensions: true,
    verbatimModuleSyntax: true,
    noEmit: true,
    strict: true,
    skipLibCheck: true,
    noFallthroughCasesInSwitch: true,
    noUncheckedIndexedAccess: true,
    noImplicitOverride: true,
  },
};

const CONSUMER = `import { createLemon, LemonError, type Lemon, type SkillEntry } from "lemon-skills";
import * as skills from "lemon-skills/skills";
import * as mcp from "lemon-skills/mcp";

export async function firstKeys(cwd: string): Promise<string[]> {
  await using lemon: Lemon = createLemon({ cwd, availableTools: ["read"] });
  const found: SkillEntry[] = await lemon.skills.findRelevant("parse a CSV file", { maxResults: 3 });
  const listing: string = await lemon.renderPrompt();
  const check = lemon.mcp.validate([{ name: "git", type: "stdio", command: "git" }]);
  if (!check.ok && listing === "") throw new LemonError("INVALID_REQUEST", "unexpected");
  return found.map((e) => e.key);
}

export const entries = [Object.keys(skills).length, Object.keys(mcp).length];
`;

describe("published types", () => {
  test("a strict consumer project compiles against all three entries", async () => {
    const dir = realpathSync(await mkdtemp(join(tmpdir(), "lemon-consumer-")));
    try {
      await mkdir(join(dir, "node_modules", "@types"), { recursive: true });
      await symlink(REPO, join(dir, "node_modules", "lemon-skills"));
      await symlink(join(REPO, "node_modules", "@types", "bun"), join(dir, "node_modules", "@types", "bun"));
      const pkg = { name: "consumer", type: "module", private: true, dependencies: { "lemon-skills": `file:${REPO}` } };
      await writeFile(join(dir, "package.json"), JSON.stringify(pkg, null, 2));
      await writeFile(join(dir, "tsconfig.json"), JSON.stringify(BUN_INIT_TSCONFIG, null, 2));
      await writeFile(join(dir, "index.ts"), CONSUMER);
      const tsc = join(REPO, "node_modules", "typescript", "bin", "tsc");
      const p = Bun.spawnSync([process.execPath, tsc, "-p", dir], { cwd: dir, stdout: "pipe", stderr: "pipe" });
      expect(p.stdout.toString() + p.stderr.toString()).toBe("");
      expect(p.exitCode).toBe(0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
