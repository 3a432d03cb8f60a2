// install.md §4.8 against skills.md §2.1: `--agent <label>` installs into exactly the root
// discovery reads for that label in the same context, so what lemon installs it also lists. With
// LEMON_HOME / LEMON_AGENT_DIR set, another tool's home root is read only through its override;
// without one the label is UNAVAILABLE instead of writing a skill lemon would then not see.
import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { createContext } from "../../../src/core/context.ts";
import { AGENT_LABELS, destinationRoot } from "../../../src/core/skills/install/destination.ts";
import { resolveRoots } from "../../../src/core/skills/roots.ts";
import type { Scope } from "../../../src/core/paths.ts";
import { sandbox, type Sandbox } from "../../support/sandbox.ts";

/** Each context a user can be in, by the variables that move or remove roots. */
function contexts(box: Sandbox): [string, Record<string, string | undefined>][] {
  return [
    ["plain", {}],
    ["LEMON_HOME", { LEMON_HOME: join(box.root, "lemonhome") }],
    ["LEMON_AGENT_DIR", { LEMON_AGENT_DIR: join(box.root, "agentdir") }],
    [
      "LEMON_HOME plus overrides",
      {
        LEMON_HOME: join(box.root, "lemonhome"),
        LEMON_CLAUDE_SKILLS_DIR: join(box.root, "claude"),
        LEMON_CODEX_SKILLS_DIR: "~/cx",
      },
    ],
    ["an override set to the empty string", { LEMON_OMP_SKILLS_DIR: "", LEMON_HARNESS_SKILLS_DIR: "" }],
  ];
}

/** The root discovery reads for a label in a scope: the first of that label (for the project: at C). */
function discovered(box: Sandbox, env: Record<string, string | undefined>, scope: Scope, label: string) {
  const ctx = createContext({ cwd: box.project, env: { ...box.env, ...env } });
  const roots = resolveRoots(ctx)[scope].filter((r) => r.label === label);
  return scope === "project" ? roots.find((r) => r.path.startsWith(join(box.project, "."))) : roots[0];
}

describe("--agent destination = the root discovery reads", () => {
  test("every label, scope and context: the same path, or UNAVAILABLE where discovery reads none", async () => {
    await using box = await sandbox();
    for (const [name, env] of contexts(box))
      for (const scope of ["global", "project"] as const)
        for (const label of AGENT_LABELS) {
          const ctx = createContext({ cwd: box.project, env: { ...box.env, ...env } });
          let dest: string;
          try {
            dest = destinationRoot(ctx, scope, label);
          } catch (e) {
            expect({ name, scope, label, code: (e as { code: string }).code }).toEqual({
              name,
              scope,
              label,
              code: "UNAVAILABLE",
            });
            expect({ name, scope, label, read: discovered(box, env, scope, label) }).toEqual({
              name,
              scope,
              label,
              read: undefined,
            });
            continue;
          }
          expect({ name, scope, label, dest }).toEqual({
            name,
            scope,
            label,
            dest: discovered(box, env, scope, label)?.path ?? "(not read)",
          });
        }
  });

  test("the module option skillRoots moves a label for discovery and install alike", async () => {
    await using box = await sandbox();
    const ctx = createContext({
      cwd: box.project,
      env: { ...box.env, LEMON_HOME: join(box.root, "lemonhome") },
      skillRoots: { claude: join(box.root, "opt-claude"), codex: null },
    });
    expect(destinationRoot(ctx, "global", "claude")).toBe(join(box.root, "opt-claude"));
    expect(resolveRoots(ctx).global.find((r) => r.label === "claude")?.path).toBe(join(box.root, "opt-claude"));
    expect(() => destinationRoot(ctx, "global", "codex")).toThrow("switched off");
  });
});

describe("lemon skill install --agent claude with LEMON_HOME set", () => {
  test("without LEMON_CLAUDE_SKILLS_DIR: UNAVAILABLE naming the variable, nothing written", async () => {
    await using box = await sandbox();
    await box.skill(join(box.root, "src"), "hello");
    const env = { LEMON_HOME: join(box.root, "lemonhome") };
    const r = await box.cli(["skill", "install", join(box.root, "src", "hello"), "--agent", "claude", "--approve"], {
      env,
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("error [UNAVAILABLE]: --agent claude is not available:");
    expect(r.stderr).toContain("LEMON_CLAUDE_SKILLS_DIR");
    expect(existsSync(join(box.home, ".claude"))).toBe(false);
    expect(existsSync(join(box.root, "lemonhome", "agent", "skills.lock.json"))).toBe(false);
  });

  test("with LEMON_CLAUDE_SKILLS_DIR: installed there and listed from there", async () => {
    await using box = await sandbox();
    await box.skill(join(box.root, "src"), "hello");
    const env = { LEMON_HOME: join(box.root, "lemonhome"), LEMON_CLAUDE_SKILLS_DIR: join(box.home, ".claude/skills") };
    const r = await box.cli(["skill", "install", join(box.root, "src", "hello"), "--agent", "claude", "--approve"], {
      env,
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`  path    ${join(box.home, ".claude", "skills", "hello")}\n`);
    const list = await box.cli(["skill", "list", "--global", "--json"], { env });
    expect((list.json().skills as { key: string; root_label: string }[]).map((s) => [s.key, s.root_label])).toEqual([
      ["hello", "claude"],
    ]);
  });
});
