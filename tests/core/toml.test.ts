// The one TOML reader (src/core/toml.ts): worded failures that never quote the input.
import { expect, test } from "bun:test";
import { parseSkillText } from "../../src/core/skills/index.ts";
import { parseToml, parseTomlDetailed } from "../../src/core/toml.ts";

const SECRET = "sk-live-0123456789abcdef";

test("a syntax error names its line, never the text of it", async () => {
  for (const parse of [parseToml, parseTomlDetailed]) {
    const r = await parse(`a = 1\nb = 2\ntoken = "${SECRET}\n`);
    expect(r.ok).toBe(false);
    if (r.ok) continue;
    expect([r.problem, r.line]).toEqual(["syntax", 3]);
    expect(r.reason).toBe("invalid TOML (line 3)");
    expect(JSON.stringify(r)).not.toContain(SECRET);
  }
});

test("a redefined key is a duplicate_key naming the key", async () => {
  const r = await parseToml(`name = "a"\nname = "${SECRET}"\n`);
  expect(r).toMatchObject({ ok: false, problem: "duplicate_key", reason: "duplicate key 'name'" });
});

test("valid TOML parses natively and in detail alike", async () => {
  const text = 'a = 1\n[t]\nb = ["x", "y"]\n';
  expect(await parseToml(text)).toEqual({ ok: true, value: { a: 1, t: { b: ["x", "y"] } } });
  expect(await parseTomlDetailed(text)).toEqual({ ok: true, value: { a: 1, t: { b: ["x", "y"] } } });
});

test("TOML frontmatter errors say where, not what the header holds", async () => {
  const r = await parseSkillText(`+++\nname = "a"\ndescription = "${SECRET}\n+++\nbody\n`);
  expect(JSON.stringify(r)).not.toContain(SECRET);
  expect(JSON.stringify(r)).toContain("invalid TOML frontmatter: syntax error at line 2");
});
