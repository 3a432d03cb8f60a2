/**
 * @module scripts/bench/example-project
 * The example project this repository ships: the skills of its own `.lemon/skill`, named here so
 * benches and tests copy exactly those. The clone's `.lemon/` also collects whatever someone ran
 * in it (a skill an agent wrote, usage sidecars, `mcp.json`); copying the directory whole would
 * let those leftovers change counts and break `npm test`.
 */
import { cpSync, mkdirSync } from "node:fs";
import { join, resolve } from "node:path";

const REPO = resolve(import.meta.dir, "..", "..");

/** The bundled example skills (git-tracked under `.lemon/skill/`); tests/readme.test.ts checks the list. */
export const EXAMPLE_SKILLS = ["api-design", "bun-file-io", "lemon-skill-authoring"] as const;

/** The repository's own skill root, where the bundled skills live. */
export const EXAMPLE_SKILL_ROOT = join(REPO, ".lemon", "skill");

/** Copies the bundled skills, and nothing else, into `<project>/.lemon/skill`; returns that root. */
export function copyExampleSkills(project: string): string {
  const root = join(project, ".lemon", "skill");
  mkdirSync(root, { recursive: true });
  for (const key of EXAMPLE_SKILLS) cpSync(join(EXAMPLE_SKILL_ROOT, key), join(root, key), { recursive: true });
  return root;
}
