// `lemon tool read_skill|skill_manage <params>` (cli.md §2.18).
import { describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { describeRequest } from "../../src/cli/approve.ts";
import { runCli } from "../../src/cli/run.ts";
import { sandbox, type Sandbox } from "../support/sandbox.ts";

const MAIN = join(import.meta.dir, "../../src/cli/main.ts");

async function setup(box: Sandbox) {
  const root = join(box.project, ".lemon/skill");
  await box.skill(
    root,
    "demo",
    { name: "demo", description: "A demo skill for the tool command." },
    "# Demo\n\n## Run\n\nrun it\n",
  );
  await box.skill(root, "tooly", {
    name: "tooly",
    description: "Needs the browser tool.",
    requires_tools: ["browser"],
  });
}

describe("lemon tool read_skill", () => {
  test("human: the tool's text on stdout, exit 0", async () => {
    await using box = await sandbox();
    await setup(box);
    const r = await box.cli(["tool", "read_skill", '{"key":"demo","view":"section","section":"run"}']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("");
    expect(r.stdout.startsWith("# Skill: demo\nKey: demo\n")).toBe(true);
    expect(r.stdout.endsWith("\n\n## Section: Run\nrun it\n")).toBe(true);
  });

  test("--json: ok, isError, text, details; a failed call prints its result on stdout and exits 1", async () => {
    await using box = await sandbox();
    await setup(box);
    const ok = await box.cli(["tool", "read_skill", '{"key":"demo","view":"summary"}', "--json"]);
    expect(ok.code).toBe(0);
    const doc = JSON.parse(ok.stdout);
    expect(Object.keys(doc)).toEqual(["ok", "isError", "text", "details"]);
    expect(doc.ok).toBe(true);
    expect(doc.isError).toBe(false);
    expect(doc.text.startsWith("# Skill: demo")).toBe(true);
    expect(doc.details).toMatchObject({ key: "demo", view: "summary", scope: "project" });
    const miss = await box.cli(["--json", "tool", "read_skill", '{"key":"nope"}']);
    expect(miss.code).toBe(1);
    expect(miss.stderr).toBe("");
    expect(JSON.parse(miss.stdout)).toEqual({
      ok: false,
      isError: true,
      text: "Skill not found: nope\n\nAvailable skills:\n- demo: A demo skill for the tool command.\n- tooly: Needs the browser tool.",
      details: { error: "not_found", key: "nope", suggestions: ["demo", "tooly"] },
    });
    const human = await box.cli(["tool", "read_skill", '{"key":""}']);
    expect([human.code, human.stdout]).toEqual([1, "Parameter 'key' must be a non-empty string.\n"]);
  });

  test("human output drops escape sequences and control characters of a hostile skill; --json keeps them escaped", async () => {
    await using box = await sandbox();
    const evil = "# Evil\n\n\u001b]0;pwned\u0007\u001b[2J\u001b[31mred\u001b[0m bell\u0007 back\b\tkept\n";
    await box.skill(join(box.project, ".lemon/skill"), "evil", { name: "evil", description: "A hostile skill." }, evil);
    const human = await box.cli(["tool", "read_skill", '{"key":"evil"}']);
    expect(human.code).toBe(0);
    expect(human.stdout).not.toMatch(/[\u0000-\u0008\u001b\u007f]/);
    expect(human.stdout.endsWith("# Evil\n\nred bell back\tkept\n")).toBe(true);
    const json = await box.cli(["tool", "read_skill", '{"key":"evil"}', "--json"]);
    expect(JSON.parse(json.stdout).text.endsWith(evil)).toBe(true);
  });

  test("@file, relative to the current directory, and --cwd", async () => {
    await using box = await sandbox();
    await setup(box);
    await box.write("params.json", '{"key":"demo","view":"summary"}');
    const r = await box.cli(["tool", "read_skill", "@params.json", "--cwd", box.project], { cwd: box.root });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Key: demo");
    const missing = await box.cli(["tool", "read_skill", "@nope.json"]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("error [INVALID_PARAMS]: @nope.json: cannot be read (ENOENT)");
    mkdirSync(join(box.root, "adir"));
    const dir = await box.cli(["tool", "read_skill", `@${join(box.root, "adir")}`]);
    expect(dir.code).toBe(2);
    expect(dir.stderr).toContain("not a regular file");
  });

  test("@FIFO is refused at once as not a regular file, never waited on (a real process)", async () => {
    await using box = await sandbox();
    await setup(box);
    const fifo = join(box.root, "p");
    expect(Bun.spawnSync(["mkfifo", fifo]).exitCode).toBe(0);
    const child = Bun.spawn([process.execPath, MAIN, "tool", "read_skill", `@${fifo}`], {
      cwd: box.project,
      env: box.env,
      stdout: "pipe",
      stderr: "pipe",
    });
    // A bound on a hang, not a timing assertion: the child must finish on its own.
    const outcome = await Promise.race([child.exited, Bun.sleep(20_000).then(() => "hung" as const)]);
    if (outcome === "hung") child.kill("SIGKILL");
    expect(outcome).toBe(2);
    expect(await new Response(child.stderr).text()).toContain(`@${fifo}: not a regular file`);
  }, 30_000);

  test("bad parameters never reach the tool: invalid JSON, a non-object, nothing at all (exit 2)", async () => {
    await using box = await sandbox();
    await setup(box);
    const bad = await box.cli(["tool", "read_skill", "{key:demo}", "--json"]);
    expect(bad.code).toBe(2);
    expect(bad.stdout).toBe("");
    const err = JSON.parse(bad.stderr).error;
    expect(err.code).toBe("INVALID_PARAMS");
    expect(err.message).toStartWith("params: invalid JSON");
    for (const params of ["[1]", '"demo"', "null", "3"]) {
      const r = await box.cli(["tool", "read_skill", params]);
      expect([params, r.code]).toEqual([params, 2]);
      expect(r.stderr).toContain("params: must be a JSON object");
    }
    const none = await box.cli(["tool", "read_skill"]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("missing argument <PARAMS>");
    const which = await box.cli(["tool", "nope", "{}"]);
    expect(which.code).toBe(2);
    expect(which.stderr).toContain("unknown command 'tool nope'");
  });

  test("--tools decides requires_tools; --session and --agent reach the usage record", async () => {
    await using box = await sandbox();
    await setup(box);
    const without = await box.cli(["tool", "read_skill", '{"key":"tooly","view":"summary","include_status":true}']);
    expect(without.stdout).toContain("- Unchecked tools: browser");
    const missing = await box.cli([
      "tool",
      "read_skill",
      '{"key":"tooly","view":"summary","include_status":true}',
      "--tools",
      "read,edit",
    ]);
    expect(missing.stdout).toContain("Activation: not_ready");
    expect(missing.stdout).toContain("- Missing tools: browser");
    const r = await box.cli(["tool", "read_skill", '{"key":"demo"}', "--session", "sess-1", "--agent", "agent-7"]);
    expect(r.code).toBe(0);
    const usage = JSON.parse(await Bun.file(join(box.project, ".lemon/skills.usage.json")).text());
    expect(usage.skills.demo).toMatchObject({ load_count: 1, last_view: "full", last_session_key: "sess-1" });
  });

  test("stdin with '-' (a real child process)", async () => {
    await using box = await sandbox();
    await setup(box);
    const p = Bun.spawnSync([process.execPath, MAIN, "tool", "read_skill", "-", "--json"], {
      cwd: box.project,
      env: box.env,
      stdin: new TextEncoder().encode('{"key":"demo","view":"file","path":"SKILL.md","max_chars":3}'),
    });
    expect(p.exitCode).toBe(0);
    const doc = JSON.parse(p.stdout.toString());
    expect(doc.details).toMatchObject({ view: "file", file: "SKILL.md", truncated: true });
    expect(doc.text).toMatch(/\n## File: SKILL\.md\n---\n\n\[truncated: showing 3 of \d+ characters\]$/);
  });
});

describe("lemon tool skill_manage", () => {
  test("runs the module's skill_manage: a report, then a created skill read back", async () => {
    await using box = await sandbox();
    await setup(box);
    const content = "---\nname: made\ndescription: Made by the tool command test.\n---\n# Made\n\nSteps.\n";
    const made = await box.cli([
      "tool",
      "skill_manage",
      JSON.stringify({ action: "create", name: "made", content }),
      "--json",
    ]);
    const doc = JSON.parse(made.stdout);
    expect([made.code, doc.ok, doc.isError]).toEqual([0, true, false]);
    const read = await box.cli(["tool", "read_skill", '{"key":"made"}']);
    expect(read.stdout.endsWith(`## Content\n${content}`)).toBe(true);
    const bad = await box.cli(["tool", "skill_manage", '{"action":"explode"}', "--json"]);
    expect(bad.code).toBe(1);
    expect(JSON.parse(bad.stdout).isError).toBe(true);
  });

  test("[skills] write_approval: refused without a terminal (with the way to approve), granted by --approve", async () => {
    await using box = await sandbox();
    await setup(box);
    await box.write(join(box.agentDir, "config.toml"), "[skills]\nwrite_approval = true\n");
    const content = "---\nname: gated\ndescription: Needs approval to be written.\n---\n# Gated\n\nSteps.\n";
    const params = JSON.stringify({ action: "create", name: "gated", content });
    const refused = await box.cli(["tool", "skill_manage", params]);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe("Operation aborted\n");
    expect(refused.stderr).toBe("hint: approval required; re-run with --approve after reviewing the request\n");
    expect(await Bun.file(join(box.project, ".lemon/skill/gated/SKILL.md")).exists()).toBe(false);
    const quiet = await box.cli(["tool", "skill_manage", params, "--quiet"]);
    expect([quiet.code, quiet.stderr]).toEqual([1, ""]);
    const granted = await box.cli(["tool", "skill_manage", params, "--approve"]);
    expect(granted.code).toBe(0);
    expect(await Bun.file(join(box.project, ".lemon/skill/gated/SKILL.md")).text()).toBe(content);
  });

  test("on a terminal a write is a [y/N] question: no answer aborts, y writes", async () => {
    await using box = await sandbox();
    await setup(box);
    await box.write(join(box.agentDir, "config.toml"), "[skills]\nwrite_approval = true\n");
    const content = "---\nname: asked\ndescription: Written after a yes on the terminal.\n---\n# Asked\n\nSteps.\n";
    const params = JSON.stringify({ action: "create", name: "asked", content });
    const run = async (answer: string | null) => {
      let out = "";
      let err = "";
      const io = {
        out: (t: string) => void (out += t),
        err: (t: string) => void (err += t),
        env: box.env,
        cwd: box.project,
        interactive: true,
        readLine: async () => answer,
      };
      const code = await runCli(["tool", "skill_manage", params], io);
      return { code, out, err };
    };
    const question = "Allow skill_manage to create skill 'asked' in the project scope? [y/N] ";
    for (const answer of [null, "", "n", "yes please"]) {
      const no = await run(answer);
      expect([no.code, no.out, no.err]).toEqual([1, "Operation aborted\n", `${question}Aborted.\n`]);
    }
    const yes = await run("Y");
    expect([yes.code, yes.err]).toEqual([0, question]);
    expect(await Bun.file(join(box.project, ".lemon/skill/asked/SKILL.md")).text()).toBe(content);
  });

  test("the shared prompt names the action, skill, scope and file of a skill_write, each one clean line", () => {
    expect(
      describeRequest({
        kind: "skill_write",
        action: "write_file",
        scope: "global",
        name: "demo",
        filePath: "references/\u001b[2Jx\nmd",
      }),
    ).toBe("Allow skill_manage to write_file skill 'demo' in the global scope (file references/x md)? [y/N] ");
  });
});
