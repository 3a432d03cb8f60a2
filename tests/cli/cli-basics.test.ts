import { describe, expect, test } from "bun:test";
import pkg from "../../package.json" with { type: "json" };
import { sandbox } from "../support/sandbox.ts";

describe("CLI conventions (cli.md §1, §6)", () => {
  test("--version and version --json", async () => {
    await using box = await sandbox();
    const v = await box.cli(["--version"]);
    expect([v.code, v.stdout]).toEqual([0, `lemon ${pkg.version}\n`]);
    const j = await box.cli(["version", "--json"]);
    expect(j.json()).toMatchObject({ ok: true, version: pkg.version });
    expect(typeof j.json().platform).toBe("string");
  });

  test("no arguments prints usage on stderr and exits 2; --help exits 0", async () => {
    await using box = await sandbox();
    const none = await box.cli([]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("USAGE lemon <command>");
    const help = await box.cli(["--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("skill");
    const sub = await box.cli(["skill", "list", "--help"]);
    expect(sub.code).toBe(0);
    expect(sub.stdout).toContain("--all");
    expect(sub.stdout).not.toContain("\u001b[");
    const helpCmd = await box.cli(["help", "skill"]);
    expect(helpCmd.code).toBe(0);
    expect(helpCmd.stdout).toContain("list");
  });

  test("unknown command, unknown flag, missing value and missing argument are usage errors", async () => {
    await using box = await sandbox();
    const cmd = await box.cli(["frobnicate"]);
    expect(cmd.code).toBe(2);
    expect(cmd.stderr.split("\n")[0]).toBe("error [INVALID_PARAMS]: unknown command 'frobnicate'");
    const sub = await box.cli(["skill", "frob"]);
    expect(sub.code).toBe(2);
    const flag = await box.cli(["skill", "list", "--bogus"]);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toBe(
      "error [INVALID_PARAMS]: unknown option '--bogus'\nUSAGE lemon skill list [OPTIONS]\nrun 'lemon skill list --help' for details\n",
    );
    expect(flag.stdout).toBe("");
    const value = await box.cli(["skill", "list", "--cwd"]);
    expect(value.code).toBe(2);
    expect(value.stderr).toContain("option '--cwd' needs a value");
    const arg = await box.cli(["skill", "inspect"]);
    expect(arg.code).toBe(2);
    expect(arg.stderr).toContain("missing argument <KEY>");
    const extra = await box.cli(["skill", "list", "surplus"]);
    expect(extra.code).toBe(2);
    const group = await box.cli(["skill"]);
    expect(group.code).toBe(2);
  });

  test("JSON errors go to stderr as one envelope and nothing to stdout", async () => {
    await using box = await sandbox();
    const r = await box.cli(["skill", "list", "--bogus", "--json"]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(JSON.parse(r.stderr)).toEqual({
      ok: false,
      error: { code: "INVALID_PARAMS", message: "unknown option '--bogus'" },
    });
    const nf = await box.cli(["skill", "inspect", "nope", "--json"]);
    expect(nf.code).toBe(1);
    expect(JSON.parse(nf.stderr)).toEqual({
      ok: false,
      error: {
        code: "NOT_FOUND",
        message: "Skill 'nope' not found",
        hint: "run 'lemon skill list' or 'lemon skill search nope'",
      },
    });
  });

  test("human errors print the code, message and hint", async () => {
    await using box = await sandbox();
    const r = await box.cli(["skill", "inspect", "nope"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      "error [NOT_FOUND]: Skill 'nope' not found\nhint: run 'lemon skill list' or 'lemon skill search nope'\n",
    );
  });

  test("messages are sanitised: control, bidi and ANSI never reach the terminal", async () => {
    await using box = await sandbox();
    const r = await box.cli(["skill", "inspect", "evil\u001b[31mred\u202Ebidi\u0007"]);
    expect(r.code).toBe(1);
    expect(r.stderr).not.toMatch(/[\u0000-\u0008\u000B-\u001F\u007F\u202E]/);
    expect(r.stderr).toContain("evilredbidi");
  });

  test("--global and --local together are refused", async () => {
    await using box = await sandbox();
    expect((await box.cli(["skill", "list", "--global", "--local"])).code).toBe(2);
  });
});
