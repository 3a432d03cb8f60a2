// Keys that render alike are one spoofed skill: a directory name the prompt sanitiser would strip
// or change (skills.md §6.1), or that holds invisible, control or format characters, names no skill.
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { createLemon } from "../../src/core/index.ts";
import { sandbox, type Sandbox } from "../support/sandbox.ts";

const DESC = "Deploy the application to the production servers.";

async function twoDeploys(box: Sandbox, spoof: string) {
  const root = join(box.project, ".lemon/skill");
  await box.skill(root, "deploy", { name: "deploy", description: DESC });
  await box.skill(root, spoof, { name: "deploy", description: DESC });
  return root;
}

const SPOOFS: [string, string, string][] = [
  ["zero-width space", "dep\u200bloy", "dep\\u200bloy"],
  ["zero-width joiner", "deploy\u200d", "deploy\\u200d"],
  ["bidi override", "\u202edeploy", "\\u202edeploy"],
  ["Unicode tag character", "deploy\u{e0041}", "deploy\\u{e0041}"],
  ["C1 control", "deploy\u0085", "deploy\\u0085"],
  ["C0 control", "dep\u0001loy", "dep\\u0001loy"],
  ["TAB", "dep\tloy", "dep\\u0009loy"],
  ["soft hyphen (format)", "dep\u00adloy", "dep\\u00adloy"],
  ["Hangul filler", "deploy\u3164", "deploy\\u3164"],
  ["no-break space", "dep\u00a0loy", "dep\\u00a0loy"],
  ["trailing space", "deploy ", "deploy\\u0020"],
];

describe("a skill key must be safe text the prompt shows unchanged", () => {
  for (const [what, spoof, escaped] of SPOOFS) {
    test(`${what}: invalid (invalid_key, raw key escaped), never in the prompt`, async () => {
      await using box = await sandbox();
      const root = await twoDeploys(box, spoof);
      const lemon = createLemon({ cwd: box.project, env: box.env, curator: false });
      const list = await lemon.skills.list({ all: true });
      expect(list.skills.map((s) => s.key)).toEqual(["deploy"]);
      expect(list.invalid).toHaveLength(1);
      expect(list.invalid[0]).toMatchObject({ key: spoof, code: "invalid_key", path: join(root, spoof) });
      expect(list.invalid[0]!.message).toContain(`'${escaped}'`);
      const prompt = await lemon.renderPrompt();
      expect(prompt.split('<skill key="deploy">')).toHaveLength(2);
      const diag = list.diagnostics.find((d) => d.code === "invalid_key")!;
      expect(diag).toMatchObject({ level: "error", path: join(root, spoof, "SKILL.md"), key: spoof });
    });
  }

  test("relevance never returns the spoofed key", async () => {
    await using box = await sandbox();
    await twoDeploys(box, "dep\u200bloy");
    await using lemon = createLemon({ cwd: box.project, env: box.env, curator: false });
    const hits = await lemon.skills.findRelevant("deploy the application to production", { maxResults: 5 });
    expect(hits.map((h) => h.key)).toEqual(["deploy"]);
  });

  test("CLI: one deploy in prompt and list; --all, check, inspect show the key escaped; toggles refuse", async () => {
    await using box = await sandbox();
    await twoDeploys(box, "dep\u200bloy");
    const prompt = await box.cli(["skill", "prompt"]);
    expect(prompt.stdout.split('<skill key="deploy">')).toHaveLength(2);
    const list = await box.cli(["skill", "list"]);
    expect(list.stdout.split("\n").filter((l) => l.startsWith("deploy"))).toHaveLength(1);
    const all = await box.cli(["skill", "list", "--all"]);
    const row = all.stdout.split("\n").find((l) => l.includes("invalid"))!;
    expect(row).toStartWith("dep\\u200bloy  invalid");
    expect(row).toContain("invalid_key: skill key 'dep\\u200bloy' ");
    const check = await box.cli(["skill", "check"]);
    const checkRow = check.stdout.split("\n").find((l) => l.includes("invalid"));
    expect(checkRow).toStartWith("dep\\u200bloy  invalid  invalid_key: ");
    const inspect = await box.cli(["skill", "inspect", "dep\u200bloy"]);
    const invalidError = "error [INVALID_REQUEST]: skill 'dep\\u200bloy' is invalid: invalid_key: ";
    expect(inspect.stderr).toStartWith(invalidError);
    const disable = await box.cli(["skill", "disable", "dep\u200bloy", "--local", "--force"]);
    expect(disable.code).toBe(2);
    expect(disable.stderr).toContain("'dep\\u200bloy'");
    const real = await box.cli(["skill", "disable", "deploy", "--local", "--json"]);
    expect(real.json()).toMatchObject({ ok: true, key: "deploy", enabled: false });
  });

  test("keys that render unchanged stay valid: non-ASCII letters, inner spaces, punctuation", async () => {
    await using box = await sandbox();
    const root = join(box.project, ".lemon/skill");
    for (const key of ["café", "my skill", "a&b", "日本語", "x".repeat(128)]) await box.skill(root, key);
    await box.skill(root, "y".repeat(129), { name: "long", description: DESC });
    const lemon = createLemon({ cwd: box.project, env: box.env, curator: false });
    const list = await lemon.skills.list({ all: true });
    const valid = ["a&b", "café", "my skill", "x".repeat(128), "日本語"];
    expect(list.skills.map((s) => s.key).sort()).toEqual(valid.sort());
    expect(list.invalid.map((s) => [s.key, s.code])).toEqual([["y".repeat(129), "invalid_key"]]);
  });
});
