// `lemon skill update` and `lemon skill remove` (cli.md §2.13, §2.14) through the in-process CLI,
// against real git repositories and real directories: human lines and JSON, several keys with one
// failing, --check feeding `skill check`, the approval rules, the remove prompt and its refusals.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { memoryIo } from "../../src/cli/io.ts";
import { runCli } from "../../src/cli/run.ts";
import { singleSkillRepo, skillMd } from "../support/git-repos.ts";
import { sandbox, type Sandbox } from "../support/sandbox.ts";

/** The CLI on a pretend terminal (approve.ts PromptIo) that types `answers` one per prompt. */
async function onTerminal(box: Sandbox, argv: string[], answers: string[]) {
  const m = memoryIo({ env: box.env, cwd: box.project });
  const queue = [...answers];
  const io = Object.assign(m.io, { interactive: true, readLine: async () => queue.shift() ?? null });
  const code = await runCli(argv, io);
  return { code, stdout: m.stdout(), stderr: m.stderr() };
}

const short = (sha: string) => sha.slice(0, 12);

async function installed(box: Sandbox, source: string, ...more: string[]) {
  const r = await box.cli(["skill", "install", source, "--approve", ...more]);
  if (r.code !== 0) throw new Error(`install failed: ${r.stderr}`);
}

describe("lemon skill update (cli.md §2.13)", () => {
  test("one line per key: updated with 12-hex identities, then up to date", async () => {
    await using box = await sandbox();
    const repo = await singleSkillRepo(box.root, "tidy");
    const c1 = repo.head;
    await installed(box, repo.url);
    const c2 = await repo.commit({ "SKILL.md": skillMd("tidy", "second") });
    const r = await box.cli(["skill", "update", "tidy", "--approve"]);
    expect([r.code, r.stdout, r.stderr]).toEqual([0, `tidy: updated ${short(c1)} -> ${short(c2)}\n`, ""]);
    const again = await box.cli(["skill", "update", "tidy", "--json"]);
    expect(again.code).toBe(0);
    expect(again.json()).toEqual({ ok: true, results: [{ key: "tidy", status: "up_to_date", from: c2, to: c2 }] });
  });

  test("--check records what upstream says, and skill check then reports update_available", async () => {
    await using box = await sandbox();
    const repo = await singleSkillRepo(box.root, "tidy");
    await installed(box, repo.url);
    const before = (await box.cli(["skill", "check", "tidy", "--json"])).json();
    expect((before.checks as { update_available: unknown }[])[0]!.update_available).toBeNull();
    await repo.commit({ "SKILL.md": skillMd("tidy", "second") });
    const r = await box.cli(["skill", "update", "tidy", "--check"]);
    expect(r.stdout).toMatch(/^tidy: update available [0-9a-f]{12} -> [0-9a-f]{12}\n$/);
    const after = (await box.cli(["skill", "check", "tidy", "--json"])).json();
    expect((after.checks as { update_available: unknown }[])[0]!.update_available).toBe(true);
    expect(readFileSync(join(box.agentDir, "skill/tidy/SKILL.md"), "utf8")).not.toContain("second");
  });

  test("several keys: the report goes on and the failed key carries its error; exit 1", async () => {
    await using box = await sandbox();
    const repo = await singleSkillRepo(box.root, "tidy");
    await installed(box, repo.url);
    const human = await box.cli(["skill", "update", "tidy", "nope", "--approve"]);
    expect(human.code).toBe(1);
    expect(human.stdout).toBe(
      "tidy: up to date\nnope: error [NOT_FOUND]: Skill 'nope' has no install record; nothing to update\n",
    );
    const json = await box.cli(["skill", "update", "tidy", "nope", "--json"]);
    expect(json.code).toBe(1);
    expect(json.json()).toEqual({
      ok: false,
      results: [
        { key: "tidy", status: "up_to_date", from: repo.head, to: repo.head },
        { key: "nope", error: { code: "NOT_FOUND", message: "Skill 'nope' has no install record; nothing to update" } },
      ],
    });
    const all = await box.cli(["skill", "update", "--all", "--check", "--json"]);
    expect([all.code, (all.json().results as { key: string }[]).map((x) => x.key)]).toEqual([0, ["tidy"]]);
  });

  test("--all with nothing installed says so; an invalid lock file refuses the run", async () => {
    await using box = await sandbox();
    const none = await box.cli(["skill", "update", "--all"]);
    expect([none.code, none.stdout, none.stderr]).toEqual([0, "", "No installed skills to update.\n"]);
    await box.write(join(box.agentDir, "skills.lock.json"), "{oops");
    const bad = await box.cli(["skill", "update", "--all", "--check"]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toStartWith(
      `error [CONFLICT]: refusing to overwrite invalid ${join(box.agentDir, "skills.lock.json")}: `,
    );
  });

  test("argument errors exit 2", async () => {
    await using box = await sandbox();
    for (const argv of [
      ["skill", "update"],
      ["skill", "update", "a", "--all"],
      ["skill", "update", "--all", "--ref", "main"],
      ["skill", "update", "a", "--security-override", "ABC"],
    ]) {
      const r = await box.cli(argv);
      expect([argv.join(" "), r.code]).toEqual([argv.join(" "), 2]);
      expect(r.stderr).toStartWith("error [INVALID_PARAMS]: ");
    }
  });

  test("without a terminal or --approve an update that would change the skill is refused", async () => {
    await using box = await sandbox();
    const repo = await singleSkillRepo(box.root, "tidy");
    await installed(box, repo.url);
    await repo.commit({ "SKILL.md": skillMd("tidy", "second") });
    const r = await box.cli(["skill", "update", "tidy"]);
    expect([r.code, r.stdout]).toEqual([1, ""]);
    expect(r.stderr).toBe("error [FORBIDDEN]: approval required; re-run with --approve after reviewing the request\n");
    expect(readFileSync(join(box.agentDir, "skill/tidy/SKILL.md"), "utf8")).not.toContain("second");
  });

  test("local edits: CONFLICT, then --force", async () => {
    await using box = await sandbox();
    const repo = await singleSkillRepo(box.root, "tidy");
    await installed(box, repo.url);
    await writeFile(join(box.agentDir, "skill/tidy/SKILL.md"), skillMd("tidy", "mine"));
    await repo.commit({ "SKILL.md": skillMd("tidy", "theirs") });
    const r = await box.cli(["skill", "update", "tidy", "--approve"]);
    expect([r.code, r.stderr]).toEqual([
      1,
      "error [CONFLICT]: Skill 'tidy' has local modifications; re-run with --force to overwrite them\n",
    ]);
    expect((await box.cli(["skill", "update", "tidy", "--approve", "--force"])).code).toBe(0);
    expect(readFileSync(join(box.agentDir, "skill/tidy/SKILL.md"), "utf8")).toContain("theirs");
  });
});

describe("lemon skill remove (cli.md §2.14)", () => {
  async function local(box: Sandbox, key: string, ...more: string[]) {
    await box.skill(join(box.root, "src"), key);
    await installed(box, join(box.root, "src", key), ...more);
  }

  test("--approve removes it; JSON as the contract says", async () => {
    await using box = await sandbox();
    await local(box, "gone");
    const r = await box.cli(["skill", "remove", "gone", "--approve", "--json"]);
    expect([r.code, r.json()]).toEqual([0, { ok: true, key: "gone", scope: "global", removed: true }]);
    expect(existsSync(join(box.agentDir, "skill/gone"))).toBe(false);
    const list = (await box.cli(["skill", "list", "--json"])).json();
    expect((list.skills as { key: string }[]).map((s) => s.key)).not.toContain("gone");
  });

  test("the prompt on a terminal: exact text, No aborts, yes removes", async () => {
    await using box = await sandbox();
    await local(box, "asked");
    const dir = join(box.agentDir, "skill/asked");
    const no = await onTerminal(box, ["skill", "remove", "asked"], ["n"]);
    expect([no.code, no.stderr]).toEqual([1, `Remove skill 'asked' from ${dir}? [y/N] Aborted.\n`]);
    expect(existsSync(dir)).toBe(true);
    const yes = await onTerminal(box, ["skill", "uninstall", "asked"], ["y"]);
    expect(yes.code).toBe(0);
    expect(yes.stdout).toBe(`Removed 'asked' (global, ${dir})\n`);
    expect(existsSync(dir)).toBe(false);
  });

  test("without a terminal and without --approve nothing is removed", async () => {
    await using box = await sandbox();
    await local(box, "kept");
    const r = await box.cli(["skill", "remove", "kept"]);
    expect([r.code, r.stderr]).toEqual([
      1,
      "error [FORBIDDEN]: approval required; re-run with --approve after reviewing the request\n",
    ]);
    expect(existsSync(join(box.agentDir, "skill/kept/SKILL.md"))).toBe(true);
  });

  test("a pinned skill needs --force", async () => {
    await using box = await sandbox();
    await local(box, "pinned");
    await writeFile(
      join(box.agentDir, "skills.usage.json"),
      JSON.stringify({ version: 1, skills: { pinned: { lifecycle_state: "pinned" } } }),
    );
    const r = await box.cli(["skill", "remove", "pinned", "--approve"]);
    expect([r.code, r.stderr]).toEqual([1, "error [CONFLICT]: Skill 'pinned' is pinned; use --force\n"]);
    expect((await box.cli(["skill", "remove", "pinned", "--approve", "--force"])).code).toBe(0);
  });

  test("not managed by lemon, and not found", async () => {
    await using box = await sandbox();
    await box.skill(join(box.home, ".claude/skills"), "theirs");
    const r = await box.cli(["skill", "remove", "theirs", "--approve"]);
    expect([r.code, r.stderr]).toEqual([
      1,
      `error [FORBIDDEN]: Skill 'theirs' is not managed by lemon (found in ${join(box.home, ".claude/skills")})\n`,
    ]);
    const missing = await box.cli(["skill", "remove", "nothing", "--approve", "--json"]);
    expect(missing.code).toBe(1);
    expect(missing.json()).toEqual({ ok: false, error: { code: "NOT_FOUND", message: "Skill 'nothing' not found" } });
  });

  test("an --agent claude install is removed from ~/.claude/skills", async () => {
    await using box = await sandbox();
    await local(box, "forclaude", "--agent", "claude");
    const dir = join(box.home, ".claude/skills/forclaude");
    expect(existsSync(join(dir, "SKILL.md"))).toBe(true);
    const r = await box.cli(["skill", "remove", "forclaude", "--approve"]);
    expect([r.code, r.stdout]).toEqual([0, `Removed 'forclaude' (global, ${dir})\n`]);
    expect(existsSync(dir)).toBe(false);
  });

  test("a lemon process killed half-way through a remove: the next remove finds the skill whole", async () => {
    await using box = await sandbox();
    await local(box, "victim");
    const dir = join(box.agentDir, "skill/victim");
    const marker = join(box.root, "paused");
    const main = join(import.meta.dir, "../../src/cli/main.ts");
    const child = Bun.spawn([process.execPath, main, "skill", "remove", "victim", "--approve"], {
      cwd: box.project,
      env: {
        ...box.env,
        LEMON_TEST_HOOKS: "1",
        LEMON_TEST_PAUSE_AT: "uninstall-renamed",
        LEMON_TEST_PAUSE_MARKER: marker,
      },
      stdout: "ignore",
      stderr: "ignore",
    });
    for (let i = 0; i < 400 && !existsSync(marker); i++) await Bun.sleep(25);
    expect(existsSync(marker)).toBe(true);
    child.kill("SIGKILL");
    await child.exited;
    expect(existsSync(dir)).toBe(false);
    const denied = await box.cli(["skill", "remove", "victim"]);
    expect(denied.code).toBe(1);
    expect(existsSync(join(dir, "SKILL.md"))).toBe(true);
    const list = (await box.cli(["skill", "list", "--json"])).json();
    expect((list.skills as { key: string }[]).map((s) => s.key)).toContain("victim");
  }, 30_000);

  test("--local removes from the project scope", async () => {
    await using box = await sandbox();
    await local(box, "proj", "--local");
    const r = await box.cli(["skill", "remove", "proj", "--local", "--approve", "--json"]);
    expect(r.json()).toEqual({ ok: true, key: "proj", scope: "project", removed: true });
    expect(existsSync(join(box.project, ".lemon/skill/proj"))).toBe(false);
  });
});
