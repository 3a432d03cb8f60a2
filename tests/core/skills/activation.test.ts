import { describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { createLemon } from "../../../src/core/index.ts";
import { sandbox, type Sandbox } from "../../support/sandbox.ts";

const make = (
  box: Sandbox,
  o: { env?: Record<string, string | undefined>; tools?: string[]; platform?: string } = {},
) =>
  createLemon({
    cwd: box.project,
    env: { ...box.env, ...(o.env ?? {}) },
    curator: false,
    ...(o.tools ? { availableTools: o.tools } : {}),
    ...(o.platform ? { platform: o.platform } : {}),
  });

describe("skills.json (skills.md §3)", () => {
  test("disable/enable globally and per project with the union rule", async () => {
    await using box = await sandbox();
    await box.skill(join(box.project, ".lemon/skill"), "s");
    const lemon = make(box);
    await lemon.skills.disable("s");
    expect((await lemon.skills.get("s"))!.activation_state).toBe("disabled");
    expect(JSON.parse(readFileSync(join(box.agentDir, "skills.json"), "utf8"))).toEqual({
      version: 1,
      disabled: ["s"],
      enabled: [],
    });
    // project enable overrides a global disable through its enabled list
    await lemon.skills.enable("s", { global: false });
    expect(JSON.parse(readFileSync(join(box.project, ".lemon/skills.json"), "utf8"))).toEqual({
      version: 1,
      disabled: [],
      enabled: ["s"],
    });
    expect((await lemon.skills.get("s"))!.activation_state).toBe("active");
    // global-only views use the global list
    expect((await lemon.skills.list({ scope: "global" })).skills).toEqual([]);
    // project disable removes it from enabled
    await lemon.skills.disable("s", { global: false });
    expect(JSON.parse(readFileSync(join(box.project, ".lemon/skills.json"), "utf8"))).toEqual({
      version: 1,
      disabled: ["s"],
      enabled: [],
    });
    await lemon.skills.enable("s");
    expect((await lemon.skills.get("s"))!.activation_state).toBe("disabled");
    await lemon.skills.enable("s", { global: false });
    expect((await lemon.skills.get("s"))!.enabled).toBe(true);
  });

  test("the global file's enabled list has no effect; unknown keys are allowed", async () => {
    await using box = await sandbox();
    await box.skill(join(box.project, ".lemon/skill"), "s");
    await box.write(join(box.agentDir, "skills.json"), JSON.stringify({ disabled: ["s"], enabled: ["s"] }));
    const lemon = make(box);
    expect((await lemon.skills.get("s"))!.activation_state).toBe("disabled");
    await lemon.skills.disable("not-installed-yet");
    expect(JSON.parse(readFileSync(join(box.agentDir, "skills.json"), "utf8")).disabled).toEqual([
      "not-installed-yet",
      "s",
    ]);
  });

  test("an invalid global skills.json fails closed: every skill disabled, reported, never overwritten", async () => {
    await using box = await sandbox();
    await box.skill(join(box.project, ".lemon/skill"), "s");
    await box.skill(join(box.agentDir, "skill"), "g");
    // A trailing comma: before, this silently re-enabled every disabled skill.
    const file = await box.write(join(box.agentDir, "skills.json"), '{"version":1,"disabled":["g"],}');
    const lemon = make(box);
    const list = await lemon.skills.list();
    expect(list.skills.map((e) => [e.key, e.activation_state, e.enabled, e.disabled_by])).toEqual([
      ["g", "disabled", false, "invalid_settings"],
      ["s", "disabled", false, "invalid_settings"],
    ]);
    const d = list.diagnostics.find((x) => x.code === "invalid_settings")!;
    expect(d).toMatchObject({ level: "error", path: file });
    expect(d.message).toStartWith("invalid skills.json: ");
    expect((await lemon.skills.list({ scope: "global" })).skills[0]!.disabled_by).toBe("invalid_settings");
    expect(await lemon.renderPrompt()).toBe("");
    expect(await lemon.skills.findRelevant("working on s tasks")).toEqual([]);
    await expect(lemon.skills.disable("s")).rejects.toMatchObject({ code: "CONFLICT" });
    expect(readFileSync(file, "utf8")).toBe('{"version":1,"disabled":["g"],}');
    await lemon.close();
  });

  test("an invalid project skills.json disables the project's skills and the keys its enabled list could decide", async () => {
    await using box = await sandbox();
    await box.skill(join(box.project, ".lemon/skill"), "p");
    await box.skill(join(box.agentDir, "skill"), "g-on");
    await box.skill(join(box.agentDir, "skill"), "g-off");
    await box.write(join(box.agentDir, "skills.json"), JSON.stringify({ version: 1, disabled: ["g-off"] }));
    const file = await box.write(join(box.project, ".lemon/skills.json"), '{"enabled":["g-off"]');
    const lemon = make(box);
    const list = await lemon.skills.list();
    expect(list.skills.map((e) => [e.key, e.activation_state, e.disabled_by ?? null])).toEqual([
      ["g-off", "disabled", "invalid_settings"],
      ["g-on", "active", null],
      ["p", "disabled", "invalid_settings"],
    ]);
    expect(list.diagnostics.filter((x) => x.code === "invalid_settings").map((x) => x.path)).toEqual([file]);
    // The global view never reads the project file.
    expect(
      (await lemon.skills.list({ scope: "global" })).skills.map((e) => [e.key, e.activation_state, e.disabled_by]),
    ).toEqual([
      ["g-off", "disabled", undefined],
      ["g-on", "active", undefined],
    ]);
    expect((await lemon.skills.findRelevant("working on p tasks")).map((e) => e.key)).not.toContain("p");
    await lemon.close();
  });

  test("a duplicate key or a number that does not round-trip makes skills.json invalid (fails closed)", async () => {
    await using box = await sandbox();
    await box.skill(join(box.project, ".lemon/skill"), "s");
    // A reader sees the first list, a parser keeps the last: neither may decide.
    const file = await box.write(join(box.agentDir, "skills.json"), '{"disabled":["s"],"disabled":[]}');
    const lemon = make(box);
    const dup = await lemon.skills.list();
    expect(dup.skills[0]!.disabled_by).toBe("invalid_settings");
    expect(dup.diagnostics.find((x) => x.code === "invalid_settings")!.message).toContain("duplicate key 'disabled'");
    await box.write(file, '{"version":1e400,"disabled":[]}');
    const big = await lemon.skills.list({ refresh: true });
    expect(big.skills[0]!.disabled_by).toBe("invalid_settings");
    await expect(lemon.skills.enable("s")).rejects.toMatchObject({ code: "CONFLICT" });
    expect(readFileSync(file, "utf8")).toBe('{"version":1e400,"disabled":[]}');
    await lemon.close();
  });

  test("a .lemon that is a file holds no settings: the project's other roots are not failed closed", async () => {
    await using box = await sandbox();
    await box.skill(join(box.project, ".claude/skills"), "c");
    await box.write(join(box.project, ".lemon"), "not a directory");
    const lemon = make(box);
    const list = await lemon.skills.list();
    expect(list.skills.map((e) => [e.key, e.activation_state, e.disabled_by])).toEqual([["c", "active", undefined]]);
    expect(list.diagnostics.filter((d) => d.code === "invalid_settings")).toEqual([]);
    await lemon.close();
  });

  test("a FIFO or a directory as skills.json is invalid too, and never blocks", async () => {
    await using box = await sandbox();
    await box.skill(join(box.project, ".lemon/skill"), "s");
    const file = join(box.agentDir, "skills.json");
    mkdirSync(file, { recursive: true });
    const lemon = make(box);
    expect((await lemon.skills.list()).skills[0]!.disabled_by).toBe("invalid_settings");
    if (process.platform !== "win32") {
      rmSync(file, { recursive: true });
      expect(Bun.spawnSync(["mkfifo", file]).exitCode).toBe(0);
      const fifo = await lemon.skills.list({ refresh: true });
      expect(fifo.skills[0]!.disabled_by).toBe("invalid_settings");
      expect(fifo.diagnostics.find((x) => x.code === "invalid_settings")!.message).toBe(
        "invalid skills.json: not a regular file",
      );
      expect(await lemon.skills.findRelevant("working on s tasks")).toEqual([]);
    }
    await lemon.close();
  });
});

describe("the skills API is the CLI's API (cli.md §2.3–§2.5, §2.15)", () => {
  test("enable/disable return their result; lint, check and inspect give the JSON documents' objects", async () => {
    await using box = await sandbox();
    await box.skill(join(box.project, ".lemon/skill"), "s");
    await box.skill(join(box.project, ".lemon/skill"), "bad", "---\nname: [x\n---\n");
    const lemon = make(box);
    expect(await lemon.skills.disable("s")).toEqual({
      key: "s",
      scope: "global",
      file: join(box.agentDir, "skills.json"),
      enabled: false,
      changed: true,
    });
    await expect(lemon.skills.enable("ghost", { requireDiscovered: true })).rejects.toMatchObject({
      code: "NOT_FOUND",
    });
    expect((await lemon.skills.enable("s", { global: false })).enabled).toBe(true);
    const check = await lemon.skills.check();
    expect(check.ok).toBe(false);
    expect(check.checks.map((c) => [c.key, c.state, c.update_available])).toEqual([
      ["bad", "invalid", null],
      ["s", "active", null],
    ]);
    const lint = await lemon.skills.lint([], { audit: false });
    expect(lint.results.map((r) => [r.key, r.valid])).toEqual([
      ["s", true],
      ["bad", false],
    ]);
    const audited = await lemon.skills.lint([join(box.project, ".lemon/skill/s")]);
    expect(audited.ok).toBe(true);
    const inspected = await lemon.skills.inspect("s");
    expect(inspected).toMatchObject({
      key: "s",
      lock: null,
      locally_modified: null,
      override_valid: null,
      manifest: { name: "s" },
    });
    expect(inspected.current_bundle_hash).toMatch(/^[0-9a-f]{64}$/);
    await expect(lemon.skills.inspect("bad")).rejects.toMatchObject({ code: "INVALID_REQUEST" });
    await expect(lemon.skills.inspect("none")).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(Reflect.apply(lemon.skills.lint, lemon.skills, ["x"])).rejects.toMatchObject({
      code: "INVALID_PARAMS",
    });
    await lemon.close();
  });
});

describe("activation state (skills.md §5.2)", () => {
  test("order: disabled, platform, missing, active", async () => {
    await using box = await sandbox();
    const root = join(box.project, ".lemon/skill");
    await box.skill(root, "win", { description: "windows only skill for tests", platforms: ["windows"] });
    await box.skill(root, "bins", {
      description: "needs a missing binary",
      requires: { bins: ["definitely-not-a-bin-xyz", "sh"] },
    });
    await box.skill(root, "envs", {
      description: "needs env vars set",
      requires: { config: ["NEED_A"] },
      required_environment_variables: ["NEED_B", "NEED_A"],
    });
    await box.skill(root, "tools", { description: "needs agent tools", requires_tools: ["read", "browser"] });
    await box.skill(root, "fallback", { description: "substitute for web tools", fallback_for_tools: ["web_search"] });
    await box.skill(root, "plain");
    const lemon = make(box, { env: { NEED_B: "" } });
    const byKey = Object.fromEntries((await lemon.skills.list()).skills.map((s) => [s.key, s]));
    expect(byKey.win!.activation_state).toBe("platform_incompatible");
    expect(byKey.bins!.activation_state).toBe("not_ready");
    expect(byKey.bins!.missing.bins).toEqual(["definitely-not-a-bin-xyz"]);
    expect(byKey.envs!.missing.env).toEqual(["NEED_A", "NEED_B"]);
    expect(byKey.tools!.activation_state).toBe("active");
    expect(byKey.tools!.unchecked_tools).toEqual(["read", "browser"]);
    expect(byKey.fallback!.superseded).toBe(false);
    expect(byKey.plain!.activation_state).toBe("active");

    const withTools = make(box, { tools: ["read", "web_search"], platform: "win32" });
    const t = Object.fromEntries((await withTools.skills.list()).skills.map((s) => [s.key, s]));
    expect(t.tools!.missing.tools).toEqual(["browser"]);
    expect(t.tools!.activation_state).toBe("not_ready");
    expect(t.fallback!.superseded).toBe(true);
    expect(t.win!.activation_state).not.toBe("platform_incompatible");

    await lemon.skills.disable("win");
    expect((await lemon.skills.get("win"))!.activation_state).toBe("disabled");
    const status = await lemon.skills.status("bins");
    expect(status).toEqual({
      key: "bins",
      ready: false,
      activationState: "not_ready",
      disabled: false,
      platformCompatible: true,
      missingBins: ["definitely-not-a-bin-xyz"],
      missingEnv: [],
      missingTools: [],
      uncheckedTools: [],
    });
    expect(await lemon.skills.status("nope")).toBeNull();
  });

  test("other operating systems match only 'any'", async () => {
    await using box = await sandbox();
    await box.skill(join(box.project, ".lemon/skill"), "l", {
      description: "linux only skill here",
      platforms: ["linux"],
    });
    await box.skill(join(box.project, ".lemon/skill"), "a", {
      description: "any platform skill here",
      platforms: ["any"],
    });
    const list = await make(box, { platform: "freebsd" }).skills.list();
    expect(list.skills.map((s) => s.activation_state)).toEqual(["active", "platform_incompatible"]);
  });

  test("entry shape matches skills.md §5.1", async () => {
    await using box = await sandbox();
    await box.skill(join(box.project, ".claude/skills"), "bun-file-io", {
      name: "bun-file-io",
      description: "Use this when …",
    });
    const e = (await make(box).skills.get("bun-file-io"))!;
    expect(Object.keys(e)).toEqual([
      "key",
      "name",
      "description",
      "scope",
      "root",
      "root_label",
      "path",
      "real_path",
      "category",
      "hidden",
      "enabled",
      "activation_state",
      "missing",
      "unchecked_tools",
      "superseded",
      "platforms",
      "tags",
      "keywords",
      "manifest_version",
      "source_kind",
      "source_id",
      "trust_level",
      "audit_status",
      "content_hash",
      "bundle_hash",
      "locally_modified",
    ]);
    expect(e.content_hash).toBe(
      new Bun.CryptoHasher("sha256").update(readFileSync(join(e.path, "SKILL.md"))).digest("hex"),
    );
    expect(e).toMatchObject({
      scope: "project",
      root_label: "claude",
      source_kind: null,
      bundle_hash: null,
      locally_modified: null,
    });
  });
});
