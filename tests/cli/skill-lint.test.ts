import { describe, expect, test } from "bun:test";
import { mkdir, symlink } from "node:fs/promises";
import { join } from "node:path";
import { lemonAsNobody } from "../support/unprivileged.ts";
import { sandbox, type Sandbox } from "../support/sandbox.ts";

interface Issue {
  code: string;
  severity: string;
  message: string;
  file: string;
  line: number;
}
interface Result {
  key: string;
  path: string;
  valid: boolean;
  issues: Issue[];
}

async function lint(box: Sandbox, ...args: string[]) {
  const r = await box.cli(["skill", "lint", ...args, "--json", "--no-audit"]);
  const doc = r.json() as { ok: boolean; strict: boolean; results: Result[]; summary: Record<string, number> };
  return {
    code: r.code,
    doc,
    codes: (key: string) => doc.results.find((x) => x.key === key)!.issues.map((i) => i.code),
  };
}

describe("lemon skill lint (skills.md §15.1)", () => {
  test("a clean skill passes with no issues", async () => {
    await using box = await sandbox();
    await box.skill(join(box.root, "skills"), "clean", {
      name: "clean",
      description: "A perfectly clean skill for lint tests.",
    });
    const r = await lint(box, join(box.root, "skills/clean"));
    expect(r.code).toBe(0);
    expect(r.doc).toEqual({
      ok: true,
      strict: false,
      results: [{ key: "clean", path: join(box.root, "skills/clean"), valid: true, issues: [] }],
      summary: { skills: 1, errors: 0, warnings: 0, infos: 0 },
    });
  });

  test("overlapping PATHs lint each skill once", async () => {
    await using box = await sandbox();
    await box.skill(join(box.root, "skills"), "clean", {
      name: "clean",
      description: "A perfectly clean skill for lint tests.",
    });
    const r = await lint(box, join(box.root, "skills"), join(box.root, "skills/clean"));
    expect(r.doc.results.map((x) => x.key)).toEqual(["clean"]);
    expect(r.doc.summary.skills).toBe(1);
  });

  test("every manifest and body rule has its code and severity", async () => {
    await using box = await sandbox();
    const dir = join(box.root, "skills");
    await box.skill(dir, "nofm", "# no frontmatter\n\nbody\n");
    await box.skill(dir, "Bad_Key", "---\nname: other\ndescription: short\nfoo: 1\nlicense: MIT\n---\nbody\n");
    await box.skill(
      dir,
      "multi",
      "---\nname: multi\ndescription: |\n  first line of the description\n  second line of it\ntags: [ok, 3]\n---\nbody\n",
    );
    await box.skill(dir, "empty", "---\nname: empty\ndescription: This one has an empty body.\n---\n\n  \n");
    await box.skill(
      dir,
      "long",
      "---\nname: long\ndescription: This one has a very long body.\n---\n" + "x".repeat(100_001),
    );
    await box.skill(
      dir,
      "refs",
      "---\nname: refs\ndescription: References that go wrong somehow.\nreferences:\n  - docs/missing.md\n  - ../../etc/passwd\n  - {url: 'https://example.com'}\n---\nbody\n",
    );
    await box.skill(dir, "broken", "---\nname: [x\n---\n");
    await box.skill(dir, "invalid", "---\nname: invalid\nplatforms: [beos]\n---\nbody\n");
    await box.write(join(dir, "bin/SKILL.md"), new Uint8Array([0xff, 0xfe]));
    await box.write(join(dir, "big/SKILL.md"), "x".repeat(1024 * 1024 + 1));
    await mkdir(join(dir, "nofile"));
    await box.skill(dir, "linked", { name: "linked", description: "Has a symlink inside its bundle." });
    await symlink("/etc/hostname", join(dir, "linked", "escape"));
    const r = await lint(box, dir);
    expect(r.code).toBe(1);
    expect(r.codes("nofm")).toEqual(["missing_frontmatter", "missing_name", "missing_description"]);
    expect(r.codes("Bad_Key")).toEqual(["invalid_key", "name_mismatch", "short_description", "unknown_field"]);
    expect(r.codes("multi")).toEqual(["description_multiline", "list_item_dropped"]);
    expect(r.codes("empty")).toEqual(["empty_body"]);
    expect(r.codes("long")).toEqual(["body_too_long"]);
    expect(r.codes("refs")).toEqual(["reference_missing", "reference_path_traversal"]);
    expect(r.codes("broken")).toEqual(["parse_error"]);
    expect(r.codes("invalid")).toEqual(["invalid_manifest"]);
    expect(r.codes("bin")).toEqual(["invalid_utf8"]);
    expect(r.codes("big")).toEqual(["file_too_large"]);
    expect(r.codes("nofile")).toEqual(["missing_skill_file"]);
    expect(r.codes("linked")).toEqual(["symlink_in_bundle"]);
    const sev = (key: string, code: string) =>
      r.doc.results.find((x) => x.key === key)!.issues.find((i) => i.code === code)!.severity;
    expect(sev("nofm", "missing_frontmatter")).toBe("warn");
    expect(sev("Bad_Key", "name_mismatch")).toBe("info");
    expect(sev("multi", "description_multiline")).toBe("info");
    expect(sev("refs", "reference_path_traversal")).toBe("error");
    expect(r.doc.results.find((x) => x.key === "invalid")!.issues[0]!.message).toBe(
      "platforms contains an unknown platform",
    );
    expect(r.doc.results.find((x) => x.key === "Bad_Key")!.issues.find((i) => i.code === "unknown_field")!.line).toBe(
      4,
    );
    expect(
      r.doc.results
        .filter((x) => x.valid)
        .map((x) => x.key)
        .sort(),
    ).toEqual(["Bad_Key", "long", "multi", "nofm"]);
  });

  test("leniency of skills.md §4.3 item 7 is reported: value_coerced warns, requires.env is unknown_field", async () => {
    await using box = await sandbox();
    const dir = join(box.root, "skills");
    await box.skill(
      dir,
      "real",
      "---\nname: real\ndescription: A skill written the way real ones are.\nversion: 1.10\nrequires:\n  env: [TOKEN]\n---\nbody\n",
    );
    await box.skill(
      dir,
      "empty-req",
      "---\nname: empty-req\ndescription: A skill whose requires is an empty list.\nrequires: []\n---\nbody\n",
    );
    const r = await lint(box, dir);
    expect(r.code).toBe(0);
    const issues = (key: string) =>
      r.doc.results.find((x) => x.key === key)!.issues.map((i) => [i.code, i.severity, i.message, i.line]);
    expect(issues("real")).toEqual([
      ["value_coerced", "warn", 'version: the number 1.10 is taken as the string "1.10"', 4],
      ["unknown_field", "info", "unknown field 'requires.env'", 5],
    ]);
    expect(issues("empty-req")).toEqual([["value_coerced", "warn", "requires: an empty list counts as absent", 4]]);
    const list = await box.cli(["skill", "list", "--json"], { env: { LEMON_CLAUDE_SKILLS_DIR: dir } });
    const skills = list.json().skills as { key: string }[];
    expect(skills.map((s) => s.key)).toEqual(["empty-req", "real"]);
  });

  test("--strict fails on warnings; categories are linted one level down", async () => {
    await using box = await sandbox();
    const dir = join(box.root, "root");
    await box.skill(join(dir, "cat"), "warned", "---\nname: warned\ndescription: tiny\n---\nbody\n");
    const loose = await lint(box, dir);
    expect(loose.code).toBe(0);
    expect(loose.doc.results.map((x) => x.key)).toEqual(["warned"]);
    const strict = await lint(box, dir, "--strict");
    expect(strict.code).toBe(1);
    expect(strict.doc.strict).toBe(true);
  });

  test("without PATH every discovered skill of the cwd is linted, invalid ones included", async () => {
    await using box = await sandbox();
    await box.skill(join(box.project, ".lemon/skill"), "good", {
      name: "good",
      description: "A good discovered skill here.",
    });
    await box.skill(join(box.project, ".claude/skills"), "bad", "---\nname: bad\n");
    const r = await lint(box);
    expect(r.doc.results.map((x) => [x.key, x.valid])).toEqual([
      ["good", true],
      ["bad", false],
    ]);
    expect(r.codes("bad")).toEqual(["parse_error"]);
  });

  test("human output and bad paths", async () => {
    await using box = await sandbox();
    await box.skill(join(box.root, "s"), "one", "---\nname: one\ndescription: tiny\n---\nbody\n");
    const h = await box.cli(["skill", "lint", join(box.root, "s/one"), "--no-audit"]);
    expect(h.code).toBe(0);
    expect(h.stdout).toBe(
      `one  ok  ${join(box.root, "s/one")}\n  warn  short_description  description is shorter than 20 characters\n1 skill(s), 0 error(s), 1 warning(s)\n`,
    );
    const missing = await box.cli(["skill", "lint", join(box.root, "nowhere")]);
    expect(missing.code).toBe(2);
  });

  test("a FIFO named SKILL.md is skill_file_unreadable at once, never a hang (skills.md §2.2)", async () => {
    if (process.platform === "win32") return;
    await using box = await sandbox();
    const dir = join(box.root, "skills");
    await mkdir(join(dir, "fifo"), { recursive: true });
    expect(Bun.spawnSync(["mkfifo", join(dir, "fifo", "SKILL.md")]).exitCode).toBe(0);
    await box.skill(dir, "fine", { name: "fine", description: "A fine skill beside the FIFO one." });
    const r = await lint(box, dir);
    expect(r.code).toBe(1);
    expect(r.codes("fifo")).toEqual(["skill_file_unreadable"]);
    expect(r.doc.results.find((x) => x.key === "fifo")!.issues[0]!.message).toBe("SKILL.md is not a regular file");
    expect(r.codes("fine")).toEqual([]);
    // Discovered (no PATH): listed as invalid by the catalog and linted without blocking.
    await mkdir(join(box.project, ".lemon/skill/pipe"), { recursive: true });
    expect(Bun.spawnSync(["mkfifo", join(box.project, ".lemon/skill/pipe/SKILL.md")]).exitCode).toBe(0);
    const all = await lint(box);
    expect(all.codes("pipe")).toEqual(["skill_file_unreadable"]);
  });

  test("a discovered skill directory that can be searched but not listed is directory_unreadable, not a crash", async () => {
    if (process.getuid?.() !== 0) return;
    await using box = await sandbox();
    const skill = join(box.project, ".lemon/skill/s");
    await box.skill(join(box.project, ".lemon/skill"), "s", {
      name: "s",
      description: "A skill whose directory cannot be listed.",
    });
    const { chmod } = await import("node:fs/promises");
    await chmod(skill, 0o311);
    await chmod(join(skill, "SKILL.md"), 0o644);
    await chmod(box.root, 0o755);
    const r = lemonAsNobody(["skill", "lint", "--json", "--no-audit"], { cwd: box.project, env: { ...box.env } });
    await chmod(skill, 0o755);
    expect(r.stderr.toString()).toBe("");
    expect(r.exitCode).toBe(1);
    const doc = JSON.parse(r.stdout.toString());
    expect(doc.results[0].issues.map((i: { code: string }) => i.code)).toEqual(["directory_unreadable"]);
  });

  test("an unlistable PATH is directory_unreadable", async () => {
    if (process.getuid?.() !== 0) return;
    await using box = await sandbox();
    const dir = join(box.root, "locked");
    await mkdir(dir, { mode: 0o000 });
    const { chmod } = await import("node:fs/promises");
    await chmod(box.root, 0o755);
    const r = lemonAsNobody(["skill", "lint", dir, "--json", "--no-audit"], { cwd: box.root, env: { ...box.env } });
    expect(r.exitCode).toBe(1);
    const doc = JSON.parse(r.stdout.toString());
    expect(doc.results[0].issues[0].code).toBe("directory_unreadable");
  });
});

describe("lint runs the security audit unless --no-audit", () => {
  test("a blocked bundle is an audit_block error; --no-audit skips it", async () => {
    await using box = await sandbox();
    const fixture = join(import.meta.dir, "../fixtures/audit/attacks/de-base64-pipe");
    const withAudit = await box.cli(["skill", "lint", fixture, "--json"]);
    expect(withAudit.code).toBe(1);
    const issues = (withAudit.json().results as Result[])[0]!.issues;
    expect(issues.map((i) => i.code)).toContain("audit_block");
    expect(issues.find((i) => i.code === "audit_block")!.message).toStartWith("audit blocked: ");
    const without = await box.cli(["skill", "lint", fixture, "--json", "--no-audit"]);
    expect((without.json().results as Result[])[0]!.issues.map((i) => i.code)).not.toContain("audit_block");
  });

  test("the module's skills.audit resolves keys and paths", async () => {
    await using box = await sandbox();
    const { createLemon } = await import("../../src/core/index.ts");
    await box.skill(join(box.project, ".lemon/skill"), "fine", {
      name: "fine",
      description: "An ordinary harmless skill for audits.",
    });
    const lemon = createLemon({ cwd: box.project, env: box.env });
    const byKey = await lemon.skills.audit("fine");
    expect(byKey.verdict).toBe("pass");
    expect(byKey.key).toBe("fine");
    const byPath = await lemon.skills.audit(join(import.meta.dir, "../fixtures/audit/attacks/de-base64-pipe"));
    expect(byPath.verdict).toBe("block");
    await expect(lemon.skills.audit("ghost")).rejects.toMatchObject({ code: "NOT_FOUND" });
  });
});

describe("lint hardening (adversarial trial)", () => {
  test("a SKILL.md symlink leaving its bundle is symlink_escape and is never parsed or echoed", async () => {
    await using box = await sandbox();
    const outside = await box.write(
      "outside/creds.md",
      "---\nname: LEAKED-NAME\ndescription: LEAKED-DESCRIPTION of the outside file\nreferences: [LEAKED-REF.md]\n---\nLEAKED-BODY\n",
    );
    const broken = await box.write("outside/broken.md", "---\nname: [LEAKED-YAML\n---\n");
    const skills = join(box.root, "skills");
    await box.link(outside, join(skills, "leak/SKILL.md"));
    await box.link(broken, join(skills, "leak2/SKILL.md"));
    await box.write(
      join(skills, "inside/real.md"),
      "---\nname: inside\ndescription: Linked to a file inside its own bundle.\n---\nbody\n",
    );
    await box.link("real.md", join(skills, "inside/SKILL.md"));
    for (const path of [join(skills, "leak"), join(skills, "leak2"), skills]) {
      const r = await box.cli(["skill", "lint", path, "--json", "--no-audit"]);
      expect(r.code).toBe(1);
      expect(r.stdout + r.stderr).not.toContain("LEAKED");
      const doc = r.json() as { results: Result[] };
      for (const res of doc.results.filter((x) => x.key.startsWith("leak"))) {
        expect(res.issues.map((i) => i.code)).toEqual(["symlink_in_bundle", "symlink_escape"]);
        expect(res.issues[1]).toMatchObject({
          severity: "error",
          file: "SKILL.md",
          message: "SKILL.md is a symlink that resolves outside the skill directory",
        });
      }
    }
    const all = await lint(box, skills);
    expect(all.codes("inside")).toEqual(["symlink_in_bundle"]);
    // The catalog says the same about the same file.
    await box.link(outside, join(box.project, ".lemon/skill/leak/SKILL.md"));
    const found = await lint(box);
    expect(found.codes("leak")).toEqual(["symlink_in_bundle", "symlink_escape"]);
    const check = await box.cli(["skill", "check", "leak", "--json"]);
    expect(check.stdout + check.stderr).not.toContain("LEAKED");
    const inspect = await box.cli(["skill", "inspect", "leak", "--json"]);
    expect(inspect.stderr).toContain("symlink_escape");
    expect(inspect.stdout + inspect.stderr).not.toContain("LEAKED");
  });

  test("a directory name that is not safe text is an invalid_key error naming the key escaped", async () => {
    await using box = await sandbox();
    const skills = join(box.root, "skills");
    await box.skill(skills, "dep\u200bloy", { name: "deploy", description: "Deploy the application to production." });
    const r = await lint(box, skills);
    expect(r.code).toBe(1);
    const res = r.doc.results[0]!;
    expect(res.valid).toBe(false);
    expect(res.issues[0]).toMatchObject({ code: "invalid_key", severity: "error", file: "." });
    expect(res.issues[0]!.message).toContain("'dep\\u200bloy'");
    expect(res.issues[1]!.message).toBe("name 'deploy' differs from the key 'dep\\u200bloy'");
    const human = await box.cli(["skill", "lint", skills, "--no-audit"]);
    expect(human.stdout).toStartWith("dep\\u200bloy  FAIL  ");
  });

  test("a YAML complex key is a parse_error, and nothing is printed on stderr (a real process)", async () => {
    await using box = await sandbox();
    const skills = join(box.root, "skills");
    await box.skill(skills, "complex", "---\nname: complex\n? [a, b]: x\n---\nbody\n");
    // main.ts exits right after the command, before a process warning's next-tick print: an embedder
    // (or a longer command) lives on, so the script waits a turn of the event loop like one.
    const src = join(import.meta.dir, "../../src/cli");
    const script = await box.write(
      "run-lint.ts",
      `import { runCli } from ${JSON.stringify(join(src, "run.ts"))};\n` +
        `import { processIo } from ${JSON.stringify(join(src, "io.ts"))};\n` +
        `const code = await runCli(process.argv.slice(2), processIo());\n` +
        "await new Promise((r) => setImmediate(r));\nprocess.exit(code);\n",
    );
    const p = Bun.spawnSync([process.execPath, script, "skill", "lint", skills, "--json", "--no-audit"], {
      cwd: box.project,
      env: box.env,
      stdin: "ignore",
    });
    expect(p.stderr.toString()).toBe("");
    expect(p.exitCode).toBe(1);
    const issue = JSON.parse(p.stdout.toString()).results[0].issues[0];
    const message = "invalid YAML frontmatter: mapping keys must be strings";
    expect(issue).toMatchObject({ code: "parse_error", message });
  });

  test("a PATH with no SKILL.md within 3 levels is refused at once, as audit refuses it", async () => {
    await using box = await sandbox();
    const tree = join(box.root, "tree");
    for (let i = 0; i < 30; i++) await box.write(join(tree, `d${i}`, "sub", "notes.md"), "nothing\n");
    await box.write(join(tree, "a/b/c/SKILL.md"), "---\nname: c\n---\ntoo deep for lint\n");
    const r = await box.cli(["skill", "lint", tree, "--json", "--no-audit"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(JSON.parse(r.stderr).error).toMatchObject({
      code: "INVALID_REQUEST",
      message: `not a skill directory: ${tree} (no SKILL.md in it or up to 2 levels below)`,
    });
    const human = await box.cli(["skill", "lint", tree, "--no-audit"]);
    expect(human.stderr).toStartWith("error [INVALID_REQUEST]: not a skill directory: ");
    // Two levels below still counts (PATH/category/skill), and so does the audit's rule.
    await box.skill(join(tree, "cat"), "ok", { name: "ok", description: "A skill one category level down." });
    const fine = await lint(box, tree);
    expect(fine.doc.results.map((x) => x.key)).toContain("ok");
    // A root of links into a store (a common layout) is a parent of skills, not refused.
    await box.skill(join(box.root, "store"), "linked", { name: "linked", description: "A skill reached by a link." });
    await box.link(join(box.root, "store/linked"), join(box.root, "links/linked"));
    await box.link(join(box.root, "store"), join(box.root, "links2/cat"));
    expect((await lint(box, join(box.root, "links"))).doc.results.map((x) => x.key)).toEqual(["linked"]);
    expect((await lint(box, join(box.root, "links2"))).doc.results.map((x) => x.key)).toEqual(["linked"]);
  });
});
