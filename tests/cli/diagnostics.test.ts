// Human output shows the warn/error diagnostics a command meets on stderr (cli.md §1.2):
// `warn: <path>: <message>`, at most 20, then `… and <n> more; see --json`; nothing with --quiet.
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { sandbox } from "../support/sandbox.ts";

const warnLines = (stderr: string) => stderr.split("\n").filter((l) => /^(warn|error): /.test(l));

describe("diagnostics in human output (cli.md §1.2)", () => {
  test("browse and prompt print an unparsable SKILL.md with its path; --quiet silences it", async () => {
    await using box = await sandbox();
    await box.skill(join(box.project, ".lemon", "skill"), "good");
    const bad = await box.skill(join(box.project, ".lemon", "skill"), "bad", "---\nname: bad\n");
    for (const argv of [
      ["skill", "browse"],
      ["skill", "prompt"],
    ]) {
      const r = await box.cli(argv);
      expect([argv, r.code]).toEqual([argv, 0]);
      const lines = warnLines(r.stderr);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toBe(`error: ${bad}: frontmatter is not closed`);
      expect(warnLines((await box.cli([...argv, "--quiet"])).stderr)).toEqual([]);
    }
  });

  test("a .lemon that is a file is a warning of skill and mcp listings, not silence", async () => {
    await using box = await sandbox();
    const state = join(box.project, ".lemon");
    await box.write(state, "not a directory\n");
    const line = `warn: ${state}: not a directory: lemon's state files there are ignored`;
    for (const argv of [
      ["skill", "list"],
      ["mcp", "list"],
      ["mcp", "list", "--all"],
    ]) {
      const r = await box.cli(argv);
      expect([argv, r.code, warnLines(r.stderr)]).toEqual([argv, 0, [line]]);
      const json = JSON.parse((await box.cli([...argv, "--json"])).stdout);
      expect(json.diagnostics.map((d: { code: string }) => d.code)).toContain("state_dir_not_directory");
    }
  });

  test("at most 20 lines, then a pointer to --json", async () => {
    await using box = await sandbox();
    for (let i = 0; i < 23; i++)
      await box.skill(join(box.project, ".lemon", "skill"), `bad${String(i).padStart(2, "0")}`, "---\n");
    const r = await box.cli(["skill", "browse"]);
    expect(warnLines(r.stderr)).toHaveLength(20);
    expect(r.stderr).toContain("… and 3 more; see --json\n");
    expect(r.stdout).toBe("No skills found.\n");
  });

  test("mcp list names the file of an invalid mcp.json, --all the source of a bad LEMON_MCP_SERVERS", async () => {
    await using box = await sandbox();
    const file = await box.write(join(box.project, ".lemon", "mcp.json"), '{"servers": [], "servers": []}');
    const r = await box.cli(["mcp", "list"]);
    expect(r.code).toBe(0);
    expect(warnLines(r.stderr).some((l) => l.startsWith(`error: ${file}: `) || l.startsWith(`warn: ${file}: `))).toBe(
      true,
    );
    const all = await box.cli(["mcp", "list", "--all"], { env: { LEMON_MCP_SERVERS: "[not json" } });
    expect(warnLines(all.stderr).some((l) => /^(warn|error): lemon:env: /.test(l))).toBe(true);
    expect(warnLines((await box.cli(["mcp", "list", "--quiet"])).stderr)).toEqual([]);
  });
});
