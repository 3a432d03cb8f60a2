import { describe, expect, test } from "bun:test";
import { chmod, mkdir, symlink } from "node:fs/promises";
import { join } from "node:path";
import { lemonAsNobody } from "../support/unprivileged.ts";
import { sandbox, type Sandbox } from "../support/sandbox.ts";

async function fixture(box: Sandbox) {
  const root = join(box.project, ".lemon/skill");
  await box.skill(root, "alpha", { name: "alpha", description: "Use alpha when you need the first letter of things." });
  await box.skill(root, "kube", {
    name: "kube",
    description: "Roll out Kubernetes deployments safely.",
    requires: { bins: ["no-such-kubectl"] },
  });
  await box.skill(root, "secret", {
    name: "secret",
    description: "A hidden helper skill for internal use.",
    hide: true,
  });
  await box.skill(root, "broken", "---\nname: broken\ndescription: [unclosed\n---\nbody\n");
  await box.skill(join(box.home, ".claude/skills"), "alpha", {
    name: "alpha",
    description: "The global alpha that gets shadowed.",
  });
  return root;
}

describe("lemon skill list (cli.md §2.1)", () => {
  test("human table with hidden marker and the documented columns", async () => {
    await using box = await sandbox();
    await fixture(box);
    const r = await box.cli(["skill", "list"]);
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^KEY\s+STATE\s+SCOPE\s+ROOT\s+DESCRIPTION$/);
    expect(lines.slice(1).map((l) => l.split(/\s{2,}/).slice(0, 4))).toEqual([
      ["alpha", "active", "project", "lemon"],
      ["kube", "not_ready", "project", "lemon"],
      ["secret", "active, hidden", "project", "lemon"],
    ]);
  });

  test("--json: entries, and shadowed/invalid only with --all", async () => {
    await using box = await sandbox();
    await fixture(box);
    const plain = (await box.cli(["skill", "list", "--json"])).json();
    expect(plain.ok).toBe(true);
    expect(plain.cwd).toBe(box.project);
    expect((plain.skills as { key: string }[]).map((s) => s.key)).toEqual(["alpha", "kube", "secret"]);
    expect(plain.shadowed).toEqual([]);
    expect(plain.invalid).toEqual([]);
    const all = (await box.cli(["skill", "list", "--all", "--json"])).json();
    expect(all.shadowed).toEqual([
      {
        key: "alpha",
        path: join(box.home, ".claude/skills/alpha"),
        shadowed_by: join(box.project, ".lemon/skill/alpha"),
        scope: "global",
        root_label: "claude",
      },
    ]);
    expect((all.invalid as { key: string; code: string }[]).map((i) => [i.key, i.code])).toEqual([
      ["broken", "parse_error"],
    ]);
    const human = await box.cli(["skill", "list", "--all"]);
    expect(human.stdout).toContain("shadowed");
    expect(human.stdout).toContain("invalid");
  });

  test("--global / --local and --cwd", async () => {
    await using box = await sandbox();
    await fixture(box);
    const g = (await box.cli(["skill", "list", "--global", "--json"])).json();
    expect((g.skills as { key: string; scope: string }[]).map((s) => `${s.key}:${s.scope}`)).toEqual(["alpha:global"]);
    const l = (await box.cli(["skill", "list", "--local", "--json"])).json();
    expect((l.skills as unknown[]).length).toBe(3);
    const other = join(box.root, "other");
    await mkdir(other);
    const c = await box.cli(["skill", "list", "--cwd", other, "--json"]);
    expect((c.json().skills as { key: string }[]).map((s) => s.key)).toEqual(["alpha"]);
  });

  test("empty: No skills found. and a hint", async () => {
    await using box = await sandbox();
    const r = await box.cli(["skill", "list"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("No skills found.\n");
    expect(r.stderr).toBe(`hint: create ${box.project}/.lemon/skill/<key>/SKILL.md\n`);
  });

  test("--tools feeds requires_tools", async () => {
    await using box = await sandbox();
    await box.skill(join(box.project, ".lemon/skill"), "t", {
      description: "needs the browser tool here",
      requires_tools: ["browser"],
    });
    const without = (await box.cli(["skill", "list", "--json"])).json().skills as {
      activation_state: string;
      unchecked_tools: string[];
    }[];
    expect(without[0]).toMatchObject({ activation_state: "active", unchecked_tools: ["browser"] });
    const withTools = (await box.cli(["skill", "list", "--tools", "read,bash", "--json"])).json().skills as {
      activation_state: string;
    }[];
    expect(withTools[0]!.activation_state).toBe("not_ready");
  });
});

describe("browse, inspect, check, enable/disable, prompt", () => {
  test("browse filters", async () => {
    await using box = await sandbox();
    await fixture(box);
    const keys = async (...f: string[]) =>
      ((await box.cli(["skill", "browse", ...f, "--json"])).json().skills as { key: string }[]).map((s) => s.key);
    expect(await keys()).toEqual(["alpha", "kube"]);
    expect(await keys("--active")).toEqual(["alpha"]);
    expect(await keys("--not-ready")).toEqual(["kube"]);
    expect(await keys("--all")).toEqual(["alpha", "kube", "secret"]);
    expect((await box.cli(["skill", "browse", "--json"])).json().filter).toBe("displayable");
    const human = await box.cli(["skill", "browse"]);
    expect(human.stdout.split("\n")[0]).toMatch(/^KEY\s+ACTIVATION\s+TRUST\s+DESCRIPTION$/);
  });

  test("inspect and its info alias", async () => {
    await using box = await sandbox();
    await fixture(box);
    const r = await box.cli(["skill", "info", "kube", "--json"]);
    expect(r.code).toBe(0);
    const s = r.json().skill as Record<string, unknown>;
    expect(s).toMatchObject({
      key: "kube",
      activation_state: "not_ready",
      lock: null,
      locally_modified: null,
      override_valid: null,
    });
    // The current bundle hash is computed on demand (skills.md §5.1), not "unknown".
    const { computeBundleHash } = await import("../../src/core/skills/bundle.ts");
    expect(s.current_bundle_hash).toBe(await computeBundleHash(join(box.project, ".lemon/skill/kube")));
    expect(s.current_bundle_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(s.manifest).toMatchObject({ requires: { bins: ["no-such-kubectl"], config: [] }, unknown_fields: [] });
    const h = await box.cli(["skill", "inspect", "kube"]);
    expect(h.stdout).toContain("no install record");
    expect(h.stdout).toContain("✗ no-such-kubectl");
    expect(h.stdout).toContain("Requirements");
    expect(h.stdout).toContain(`current      ${s.current_bundle_hash}`);
    const bad = await box.cli(["skill", "inspect", "broken"]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toStartWith("error [INVALID_REQUEST]: skill 'broken' is invalid: parse_error: ");
  });

  test("check: invalid makes it fail, not_ready alone does not, unknown key is NOT_FOUND", async () => {
    await using box = await sandbox();
    await fixture(box);
    const all = await box.cli(["skill", "check", "--json"]);
    expect(all.code).toBe(1);
    const doc = all.json();
    expect(doc.ok).toBe(false);
    const checks = doc.checks as { key: string; state: string; invalid: unknown }[];
    expect(checks.map((c) => `${c.key}:${c.state}`)).toEqual([
      "alpha:active",
      "broken:invalid",
      "kube:not_ready",
      "secret:active",
    ]);
    const kube = await box.cli(["skill", "check", "kube", "--json"]);
    expect(kube.code).toBe(0);
    expect(kube.json().checks).toEqual([
      {
        key: "kube",
        state: "not_ready",
        missing: { bins: ["no-such-kubectl"], env: [], tools: [] },
        unchecked_tools: [],
        invalid: null,
        locally_modified: null,
        update_available: null,
        override_valid: null,
      },
    ]);
    const broken = await box.cli(["skill", "check", "broken"]);
    expect(broken.code).toBe(1);
    expect(broken.stdout).toContain("parse_error");
    const missing = await box.cli(["skill", "check", "ghost"]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("error [NOT_FOUND]: Skill 'ghost' not found");
  });

  test("enable/disable JSON and effect", async () => {
    await using box = await sandbox();
    await fixture(box);
    const d = await box.cli(["skill", "disable", "alpha", "--json"]);
    expect(d.json()).toEqual({
      ok: true,
      key: "alpha",
      scope: "global",
      file: join(box.agentDir, "skills.json"),
      enabled: false,
      changed: true,
    });
    const again = await box.cli(["skill", "disable", "alpha", "--json"]);
    expect(again.json().changed).toBe(false);
    const list = (await box.cli(["skill", "list", "--json"])).json().skills as {
      key: string;
      activation_state: string;
    }[];
    expect(list.find((s) => s.key === "alpha")!.activation_state).toBe("disabled");
    const e = await box.cli(["skill", "enable", "alpha", "--local", "--json"]);
    expect(e.json()).toMatchObject({
      scope: "project",
      file: join(box.project, ".lemon/skills.json"),
      enabled: true,
      changed: true,
    });
    expect((await box.cli(["skill", "enable", "../x"])).code).toBe(2);
  });

  test("an invalid skills.json fails closed: stderr names it in human output, check exits 1", async () => {
    await using box = await sandbox();
    await fixture(box);
    const file = await box.write(join(box.agentDir, "skills.json"), '{"disabled":[],}');
    const list = await box.cli(["skill", "list"]);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/^alpha\s+disabled\s/m);
    expect(list.stderr).toContain(`error: ${file}: invalid skills.json: `);
    expect((await box.cli(["skill", "list", "--quiet"])).stderr).toBe("");
    const check = await box.cli(["skill", "check", "alpha"]);
    expect(check.code).toBe(1);
    expect(check.stdout).toMatch(/^alpha\s+disabled/m);
    expect(check.stderr).toContain(`error: ${file}: invalid skills.json: `);
    const json = await box.cli(["skill", "check", "alpha", "--json"]);
    expect(json.code).toBe(1);
    const doc = json.json();
    expect(doc.ok).toBe(false);
    expect(doc.diagnostics).toContainEqual(
      expect.objectContaining({ level: "error", code: "invalid_settings", path: file }),
    );
    expect(check.stdout).toContain("updates: unknown");
  });

  test("check reports config.toml: unknown keys as info, an unparsable file as error, values never quoted", async () => {
    await using box = await sandbox();
    await box.skill(join(box.project, ".lemon/skill"), "alpha", {
      name: "alpha",
      description: "Use alpha when you need the first letter.",
    });
    const file = await box.write(
      join(box.agentDir, "config.toml"),
      'colour = "red"\n[skills]\nwrite_approval = true\ntypo_key = 1\n[skills.curator]\nenabled = false\n[mcp]\ndisabled = false\n' +
        '[[mcp.servers]]\nname = "x"\nwhatever = 1\n[agents.reviewer]\ncommand = ["claude"]\nbogus = 2\n[blueprints.profiles.p]\nworkspace = "/w"\n',
    );
    const r = await box.cli(["skill", "check", "--json"]);
    expect(r.code).toBe(0);
    const config = (r.json().diagnostics as { level: string; code: string; message: string; path: string }[]).filter(
      (d) => d.path === file,
    );
    expect(config.map((d) => [d.level, d.code, d.message])).toEqual([
      ["info", "unknown_config_key", "unknown config key 'colour' is ignored"],
      ["info", "unknown_config_key", "unknown config key 'skills.typo_key' is ignored"],
      ["info", "unknown_config_key", "unknown config key 'agents.reviewer.bogus' is ignored"],
    ]);
    const human = await box.cli(["skill", "check"]);
    expect(human.stderr).toContain(`info: ${file}: unknown config key 'skills.typo_key' is ignored\n`);
    await box.write(file, '[skills]\nregistry_url = "https://secret.example/token"\nbroken = = 1\n');
    const bad = await box.cli(["skill", "check", "--json"]);
    expect(bad.code).toBe(0);
    const err = (bad.json().diagnostics as { level: string; code: string; message: string; path: string }[]).find(
      (d) => d.path === file,
    )!;
    expect(err).toEqual({
      level: "error",
      code: "invalid_config",
      message: "config.toml is ignored: invalid TOML (line 3)",
      path: file,
    });
    expect((await box.cli(["skill", "check"])).stderr).toContain(
      `error: ${file}: config.toml is ignored: invalid TOML (line 3)\n`,
    );
    const { createLemon } = await import("../../src/core/index.ts");
    const lemon = createLemon({ cwd: box.project, env: box.env, readConfigFile: false, curator: false });
    expect((await lemon.skills.check()).diagnostics.filter((d) => d.path === file)).toEqual([]);
  });

  test("enable/disable: unknown keys need --force; enabled is the effective state, with effective_by and a hint", async () => {
    await using box = await sandbox();
    await fixture(box);
    const projectFile = join(box.project, ".lemon/skills.json");
    const ghost = await box.cli(["skill", "disable", "ghost"]);
    expect(ghost.code).toBe(1);
    expect(ghost.stderr).toBe("error [NOT_FOUND]: skill 'ghost' not found; use --force to record it anyway\n");
    const forced = await box.cli(["skill", "disable", "ghost", "--force", "--json"]);
    expect(forced.json()).toEqual({
      ok: true,
      key: "ghost",
      scope: "global",
      file: join(box.agentDir, "skills.json"),
      enabled: false,
      changed: true,
    });
    // Invalid skills are discovered too.
    expect((await box.cli(["skill", "disable", "broken"])).code).toBe(0);
    // The project's file still disables it: the global enable reports the effective state.
    await box.cli(["skill", "disable", "alpha", "--local"]);
    const still = await box.cli(["skill", "enable", "alpha", "--json"]);
    expect(still.json()).toEqual({
      ok: true,
      key: "alpha",
      scope: "global",
      file: join(box.agentDir, "skills.json"),
      enabled: false,
      changed: false,
      effective_by: projectFile,
    });
    const human = await box.cli(["skill", "enable", "alpha"]);
    expect(human.stderr).toBe(`hint: still disabled by ${projectFile}\n`);
    // The project's enabled list overrides a global disable.
    await box.cli(["skill", "disable", "kube"]);
    await box.cli(["skill", "enable", "kube", "--local"]);
    const on = await box.cli(["skill", "disable", "kube"]);
    expect(on.stderr).toBe(`hint: still enabled by ${projectFile}\n`);
    expect((await box.cli(["skill", "disable", "kube", "--json"])).json()).toMatchObject({
      enabled: true,
      changed: false,
      effective_by: projectFile,
    });
    expect((await box.cli(["skill", "disable", "kube", "--local", "--json"])).json()).toEqual({
      ok: true,
      key: "kube",
      scope: "project",
      file: projectFile,
      enabled: false,
      changed: true,
    });
  });

  test("a project skills.json that is a symlink out of the project is refused", async () => {
    await using box = await sandbox();
    const outside = await box.write("outside.json", "{}");
    await mkdir(join(box.project, ".lemon"), { recursive: true });
    await symlink(outside, join(box.project, ".lemon/skills.json"));
    const r = await box.cli(["skill", "disable", "x", "--local", "--force"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("error [FORBIDDEN]: refusing to write through symlink:");
  });

  test("prompt prints the listing; JSON has listing and count", async () => {
    await using box = await sandbox();
    await fixture(box);
    const r = await box.cli(["skill", "prompt"]);
    expect(r.stdout).toStartWith("## Skills\n");
    expect(r.stdout).toContain('<skill key="kube" state="not_ready">');
    expect(r.stdout).not.toContain("secret");
    const j = (await box.cli(["skill", "prompt", "--json"])).json();
    expect(j).toMatchObject({ ok: true, relevant: null, listing_count: 2 });
  });

  test("unreadable category directories are diagnostics, the rest still lists", async () => {
    if (process.getuid?.() !== 0) return;
    await using box = await sandbox();
    const root = await fixture(box);
    await box.skill(join(root, "locked-cat"), "inside");
    await chmod(join(root, "locked-cat"), 0o000);
    const unreadable = await box.skill(root, "noread");
    await chmod(unreadable, 0o000);
    // Root ignores modes, so the run happens as an unprivileged user (skills.md: tests run as root).
    await chmod(box.root, 0o755);
    const r = lemonAsNobody(["skill", "list", "--all", "--json"], {
      cwd: box.project,
      env: { ...box.env, HOME: box.home },
    });
    await chmod(join(root, "locked-cat"), 0o755);
    expect(r.exitCode).toBe(0);
    const doc = JSON.parse(r.stdout.toString());
    expect((doc.skills as { key: string }[]).map((s) => s.key)).toEqual(["alpha", "kube", "secret"]);
    expect(
      doc.diagnostics.some(
        (d: { code: string; path: string }) => d.code === "root_unreadable" && d.path === join(root, "locked-cat"),
      ),
    ).toBe(true);
    expect(doc.invalid.map((i: { key: string; code: string; message: string }) => [i.key, i.code, i.message])).toEqual([
      [
        "broken",
        "parse_error",
        "invalid YAML frontmatter: Flow sequence in block collection must be sufficiently indented and end with a ]",
      ],
      ["noread", "skill_file_unreadable", "SKILL.md cannot be read (EACCES)"],
    ]);
  });
});
