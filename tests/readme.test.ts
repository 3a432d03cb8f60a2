// Keeps the README honest: every `npx lemon …` line in its sh blocks runs against a copy of the
// example project with the documented exit code, and the embedding example runs as written.
import { describe, expect, test } from "bun:test";
import { cpSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { sandbox } from "./support/sandbox.ts";

const REPO = resolve(import.meta.dir, "..");
const README = readFileSync(join(REPO, "README.md"), "utf8");

function blocks(lang: string): string[] {
  return [...README.matchAll(new RegExp("```" + lang + "\\n([\\s\\S]*?)```", "g"))].map((m) => m[1]!);
}

function lemonCommands(): string[][] {
  const out: string[][] = [];
  for (const b of blocks("sh")) {
    for (const raw of b.split("\n")) {
      const line = raw.replace(/\s+#.*$/, "").trim();
      if (!line.startsWith("npx lemon ")) continue;
      if (line.includes("&&")) continue; // the quickstart line is run by .ci/run itself
      out.push(line.slice("npx lemon ".length).split(/\s+/));
    }
  }
  return out;
}

// Commands whose documented outcome is a failed check (exit 1) on the example project.
const EXPECTED_EXIT: Record<string, number> = {};

describe("README", () => {
  const commands = lemonCommands();
  test("documents commands", () => {
    expect(commands.length).toBeGreaterThan(8);
  });
  for (const argv of commands) {
    test(`lemon ${argv.join(" ")}`, async () => {
      await using box = await sandbox();
      cpSync(join(REPO, ".lemon", "skill"), join(box.project, ".lemon", "skill"), { recursive: true });
      const r = await box.cli(argv);
      const expected = EXPECTED_EXIT[argv.join(" ")] ?? 0;
      if (r.code !== expected) throw new Error(`exit ${r.code}: ${r.stderr}`);
    });
  }

  test("the embedding example runs as written", async () => {
    await using box = await sandbox();
    cpSync(join(REPO, ".lemon", "skill"), join(box.project, ".lemon", "skill"), { recursive: true });
    const embed = blocks("ts")[0]!.replace('"/path/to/repo"', JSON.stringify(box.project));
    const dir = join(box.root, "app");
    mkdirSync(join(dir, "node_modules"), { recursive: true });
    symlinkSync(REPO, join(dir, "node_modules", "lemon-skills"));
    writeFileSync(join(dir, "main.ts"), embed + "\nconsole.log(JSON.stringify({ n: skills.length, d: diagnostics.length, ready: status?.ready, prompt: systemPrompt.length > 0, hint: turnHint.startsWith('<relevant-skills>') }));\n");
    const r = Bun.spawnSync([process.execPath, join(dir, "main.ts")], { cwd: dir, env: box.env });
    expect(r.stderr.toString()).toBe("");
    expect(JSON.parse(r.stdout.toString())).toEqual({ n: 3, d: 0, ready: true, prompt: true, hint: true });
  });
});
