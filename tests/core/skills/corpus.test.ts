import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createLemon } from "../../../src/core/index.ts";
import { parseYamlReference } from "../../../src/core/skills/frontmatter.ts";
import { parsePlainYaml } from "../../../src/core/skills/yaml-fast.ts";
import { CORPUS_DIR, referenceCorpusAvailable } from "../../support/corpus.ts";
import { isDisplayable } from "../../../src/core/skills/entry.ts";
import { sandbox } from "../../support/sandbox.ts";

// Recorded counts for the real corpus (1,124 public skills in 10 source folders).
const EXPECTED = { valid: 1111, invalid: 1, shadowed: 12 };

describe.skipIf(!referenceCorpusAvailable())("the real corpus as a global root", () => {
  test("every skill is valid, invalid with a clear message, or shadowed", async () => {
    await using box = await sandbox();
    const lemon = createLemon({
      cwd: box.project,
      env: { ...box.env, LEMON_AGENT_DIR: join(box.root, "agent"), LEMON_CLAUDE_SKILLS_DIR: CORPUS_DIR },
      curator: false,
    });
    const list = await lemon.skills.list({ all: true });
    const counts = { valid: list.skills.length, invalid: list.invalid.length, shadowed: list.shadowed.length };
    expect(counts.valid + counts.invalid + counts.shadowed).toBe(1124);
    expect(counts).toEqual(EXPECTED);
    // The only invalid one is the description over 1,024 characters the spec mentions.
    expect(list.invalid.map((i) => [i.key, i.code, i.message])).toEqual([
      [
        "database-lookup",
        "invalid_manifest",
        "description must be a single-line string of at most 1024 characters without control or bidi characters",
      ],
    ]);
    expect(
      list.shadowed.every((s) => list.diagnostics.some((d) => d.code === "duplicate_key" && d.path === s.path)),
    ).toBe(true);
    // Listing budget for typical metadata (skills.md §6.3): descriptions under 900 characters
    // render within 1,200; the clamp bounds the rest (escaping can lengthen a 1,024-character text).
    const prompt = await lemon.renderPrompt();
    const typical = new Set(list.skills.filter((s) => s.description.length < 900).map((s) => s.key));
    const lines = prompt.split("\n").filter((l) => l.startsWith("<skill "));
    expect(lines).toHaveLength(list.skills.filter(isDisplayable).length);
    for (const line of lines) {
      const key = /^<skill key="([^"]*)"/.exec(line)![1]!;
      if (typical.has(key)) expect(line.length).toBeLessThanOrEqual(1200);
    }
  });

  test("the Bun.YAML fast path reads every corpus header exactly like the yaml package", async () => {
    await using box = await sandbox();
    const lemon = createLemon({
      cwd: box.project,
      env: { ...box.env, LEMON_AGENT_DIR: join(box.root, "a"), LEMON_CLAUDE_SKILLS_DIR: CORPUS_DIR },
    });
    const list = await lemon.skills.list({ all: true });
    let fast = 0;
    for (const path of [...list.skills.map((s) => s.path), ...list.shadowed.map((s) => s.path)]) {
      const text = readFileSync(join(path, "SKILL.md"), "utf8");
      const m = /^---[ \t]*\r?\n([\s\S]*?)\r?\n---/.exec(text);
      if (!m) continue;
      const f = parsePlainYaml(m[1]!);
      if (f === null) continue;
      fast++;
      expect(JSON.parse(JSON.stringify(f))).toEqual(JSON.parse(JSON.stringify(await parseYamlReference(m[1]!))));
    }
    expect(fast).toBeGreaterThan(1100);
  });
});
