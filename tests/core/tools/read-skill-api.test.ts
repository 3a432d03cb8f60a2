// skill:// URIs (skills.md §10), skill.load events (§11), provenance and blocked skills (§8,
// install.md §8 item 4), and the tool definitions (cli.md §7 agentTools).
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Value } from "@sinclair/typebox/value";
import { createLemon, LemonError } from "../../../src/core/index.ts";
import { registryOf } from "../../../src/core/internals.ts";
import { computeBundleHash } from "../../../src/core/skills/bundle.ts";
import { ReadSkillParameters, SkillManageParameters } from "../../../src/core/skills/tools/definitions.ts";
import { readSkill, type SkillLoadEvent } from "../../../src/core/skills/tools/read-skill.ts";
import { UNTRUSTED_NOTE } from "../../../src/core/skills/tools/read-skill-text.ts";
import { resolveSkillUri } from "../../../src/core/skills/tools/skill-uri.ts";
import { READ_SKILL_SCHEMA, SKILL_MANAGE_SCHEMA } from "../../../src/core/skills/tools/tool-schemas.gen.ts";
import { sandbox, type Sandbox } from "../../support/sandbox.ts";

const text = (r: { content: { type: string; text?: string }[] }) => r.content.map((b) => b.text ?? "").join("");

async function setup(box: Sandbox) {
  const root = join(box.project, ".lemon/skill");
  await box.skill(
    root,
    "alpha",
    { name: "alpha", description: "Alpha skill for tests." },
    "# A\n\n## Usage\n\nUse it.\n",
  );
  await box.write(join(root, "alpha/references/a b.md"), "spaced\n");
  await box.write(join(root, "alpha/references/r.md"), "ref text\n");
  await box.write(join(box.root, "outside.txt"), "SECRET\n");
  await box.skill(root, "hid", { name: "hid", description: "Hidden.", hide: true });
  await box.skill(root, "broken", "---\nname: [x\n---\nbody\n");
}

async function withHost(box: Sandbox) {
  const lemon = createLemon({ cwd: box.project, env: box.env });
  const events: SkillLoadEvent[] = [];
  const host = {
    registry: await registryOf(lemon),
    now: () => new Date("2026-12-01T10:00:00.250Z"), // ms are dropped (skills.md §1.3 rule 5)
    emit: (e: SkillLoadEvent) => void events.push(e),
  };
  return { lemon, host, events };
}

async function rejects(p: Promise<unknown>): Promise<LemonError> {
  try {
    await p;
  } catch (err) {
    expect(LemonError.is(err)).toBe(true);
    return err as LemonError;
  }
  throw new Error("expected a rejection");
}

describe("skill:// URIs", () => {
  test("skill://key is SKILL.md, skill://key/path a file inside, percent-decoded once", async () => {
    await using box = await sandbox();
    await setup(box);
    await using lemon = createLemon({ cwd: box.project, env: box.env });
    const md = await lemon.resolveSkillUri("skill://alpha");
    expect(md.key).toBe("alpha");
    expect(md.path).toBe(join(box.project, ".lemon/skill/alpha/SKILL.md"));
    expect(md.text.startsWith("---\nname:")).toBe(true);
    expect((await lemon.resolveSkillUri("skill://alpha/references/r.md")).text).toBe("ref text\n");
    expect((await lemon.resolveSkillUri("skill://alpha/references/a%20b.md")).text).toBe("spaced\n");
    expect((await lemon.resolveSkillUri("skill://%61lpha/SKILL.md")).key).toBe("alpha");
    expect((await lemon.resolveSkillUri("skill://hid")).key).toBe("hid");
    await lemon.skills.disable("alpha", { global: false });
    expect((await lemon.resolveSkillUri("skill://alpha/references/r.md")).text).toBe("ref text\n");
  });

  test("errors: NOT_FOUND, INVALID_PARAMS, FORBIDDEN; encoded traversal is decoded once and refused", async () => {
    await using box = await sandbox();
    await setup(box);
    await using lemon = createLemon({ cwd: box.project, env: box.env });
    const cases: [string, string, string][] = [
      ["skill://nope", "NOT_FOUND", "Skill not found: nope"],
      ["skill://broken", "NOT_FOUND", "Skill not found: broken"],
      ["skill://..%2Foutside.txt", "NOT_FOUND", "Skill not found: ../outside.txt"],
      ["skill://alpha/missing.md", "NOT_FOUND", "Could not read 'missing.md': not found"],
      [
        "skill://alpha/%2e%2e/%2e%2e/%2e%2e/outside.txt",
        "FORBIDDEN",
        "Path '../../../outside.txt' is outside the skill directory.",
      ],
      ["skill://alpha/..%2F..%2Foutside.txt", "FORBIDDEN", "Path '../../outside.txt' is outside the skill directory."],
      ["skill://alpha/%2Fetc%2Fpasswd", "FORBIDDEN", "Path '/etc/passwd' is outside the skill directory."],
      ["skill://alpha/a%00b", "FORBIDDEN", "Path 'a\\u0000b' is outside the skill directory."],
      ["skill://alpha/references", "INVALID_PARAMS", "Could not read 'references': not a regular file"],
      ["skill://alpha/SKILL.md?raw=1", "INVALID_PARAMS", "query strings and fragments are not allowed"],
      ["skill://alpha#frag", "INVALID_PARAMS", "query strings and fragments are not allowed"],
      ["skill://alpha/%zz", "INVALID_PARAMS", "bad percent-encoding"],
      ["skill://", "INVALID_PARAMS", "no skill key"],
      ["file:///etc/passwd", "INVALID_PARAMS", "expected skill://<key>[/<path>]"],
    ];
    for (const [uri, code, message] of cases) {
      const err = await rejects(lemon.resolveSkillUri(uri));
      expect([uri, err.code]).toEqual([uri, code]);
      expect(err.message).toContain(message);
    }
    // Double encoding is decoded once: %252e%252e is the literal name "%2e%2e".
    const twice = await rejects(lemon.resolveSkillUri("skill://alpha/%252e%252e/outside.txt"));
    expect(twice.message).toBe("Could not read '%2e%2e/outside.txt': not found");
    expect((await rejects(lemon.resolveSkillUri(5 as never))).code).toBe("INVALID_PARAMS");
  });

  test("a successful resolve emits skill.load with view uri and no text; a failure emits nothing", async () => {
    await using box = await sandbox();
    await setup(box);
    const { lemon, host, events } = await withHost(box);
    await using _ = lemon;
    await resolveSkillUri(host, "skill://alpha/references/r.md", { toolCallId: "t1", agentId: "ag" });
    await resolveSkillUri(host, "skill://nope").catch(() => null);
    expect(events).toHaveLength(1);
    const { duration_ms, ...rest } = events[0]!;
    expect(typeof duration_ms).toBe("number");
    expect(rest).toEqual({
      ts: "2026-12-01T10:00:00Z",
      key: "alpha",
      scope: "project",
      view: "uri",
      path: "references/r.md",
      result: "ok",
      chars: 9,
      tool_call_id: "t1",
      agent_id: "ag",
    });
    expect(JSON.stringify(events)).not.toContain("ref text");
  });
});

describe("skill.load events of read_skill (skills.md §11)", () => {
  test("every call emits one event with the run context; never body text", async () => {
    await using box = await sandbox();
    await setup(box);
    const { lemon, host, events } = await withHost(box);
    await using _ = lemon;
    const ctx = { toolCallId: "c1", sessionKey: "s1", runId: "r1", agentId: "a1" };
    await readSkill(host, { key: "alpha", view: "section", section: "Usage" }, ctx);
    await readSkill(host, { key: "alpha", view: "file", path: "references/r.md" });
    await readSkill(host, { key: "nope" });
    await readSkill(host, { key: "alpha", view: "file", path: "../x" });
    await readSkill(host, {});
    const shapes = events.map(({ duration_ms, ts, ...e }) => {
      expect(ts).toBe("2026-12-01T10:00:00Z");
      expect(duration_ms).toBeGreaterThanOrEqual(0);
      return e;
    });
    expect(shapes).toEqual([
      {
        key: "alpha",
        scope: "project",
        view: "section",
        section: "Usage",
        result: "ok",
        chars: shapes[0]!.chars,
        tool_call_id: "c1",
        session_key: "s1",
        run_id: "r1",
        agent_id: "a1",
      },
      { key: "alpha", scope: "project", view: "file", path: "references/r.md", result: "ok", chars: shapes[1]!.chars },
      { key: "nope", scope: null, view: "full", result: "not_found", chars: 0 },
      {
        key: "alpha",
        scope: "project",
        view: "file",
        path: "../x",
        result: "error",
        error_code: "outside_skill",
        chars: 0,
      },
      { key: "", scope: null, view: "full", result: "error", error_code: "invalid_params", chars: 0 },
    ]);
    expect(shapes[0]!.chars).toBeGreaterThan(0);
    expect(JSON.stringify(events)).not.toContain("Use it.");
    expect(JSON.stringify(events)).not.toContain("ref text");
  });

  test("through the instance: lemon.events hears every call, a refused context included; the sidecar counts loads", async () => {
    await using box = await sandbox();
    await setup(box);
    await using lemon = createLemon({ cwd: box.project, env: box.env });
    const heard: { key: string; result: string; error_code?: string }[] = [];
    const off = lemon.events.on("skill.load", (e) =>
      heard.push({ key: e.key, result: e.result, ...(e.error_code ? { error_code: e.error_code } : {}) }),
    );
    await lemon.readSkill({ key: "alpha" });
    await lemon.readSkill({ key: "alpha" }, { cwd: join(box.root, "missing") });
    await lemon.resolveSkillUri("skill://alpha/references/r.md");
    off();
    await lemon.readSkill({ key: "alpha" });
    expect(heard).toEqual([
      { key: "alpha", result: "ok" },
      { key: "alpha", result: "error", error_code: "invalid_params" },
      { key: "alpha", result: "ok" },
    ]);
    const usage = JSON.parse(await Bun.file(join(box.project, ".lemon/skills.usage.json")).text());
    expect(usage.skills.alpha.load_count).toBe(3);
  });

  test("a throwing sink never fails the call", async () => {
    await using box = await sandbox();
    await setup(box);
    const { lemon, host } = await withHost(box);
    await using _ = lemon;
    const r = await readSkill({ ...host, emit: () => Promise.reject(new Error("sink down")) }, { key: "alpha" });
    expect(r.isError).toBe(false);
    const r2 = await readSkill(
      {
        ...host,
        emit: () => {
          throw new Error("boom");
        },
      },
      { key: "alpha" },
    );
    expect(r2.isError).toBe(false);
  });
});

const lock = (skills: Record<string, Record<string, unknown>>) => JSON.stringify({ version: 1, skills });

describe("provenance and blocked skills", () => {
  test("installed: kind, trust, audit and Origin with credentials removed; no note for official trust", async () => {
    await using box = await sandbox();
    await box.skill(join(box.agentDir, "skill"), "inst", { name: "inst", description: "Installed one." });
    await box.skill(join(box.agentDir, "skill"), "comm", { name: "comm", description: "Community one." });
    writeFileSync(
      join(box.agentDir, "skills.lock.json"),
      lock({
        inst: {
          key: "inst",
          agent: "lemon",
          source_kind: "git",
          source_id: "https://user:tok3n@git.example/r.git?token=abc#v1:skills/inst",
          trust_level: "official",
          audit_status: "pass",
          // The record vouches for this bundle only: once the files differ, trust is not shown.
          bundle_hash: await computeBundleHash(join(box.agentDir, "skill", "inst")),
        },
        comm: {
          key: "comm",
          agent: "lemon",
          source_kind: "github",
          source_id: "gh:o/r",
          trust_level: "community",
          audit_status: "warn",
          bundle_hash: await computeBundleHash(join(box.agentDir, "skill", "comm")),
        },
      }),
    );
    await using lemon = createLemon({ cwd: box.project, env: box.env });
    const r = await lemon.readSkill({ key: "inst", view: "summary" });
    const t = text(r);
    expect(t).toContain(
      "Source: global (lemon); kind=git; trust=official; audit=pass\nOrigin: https://git.example/r.git#v1:skills/inst\n",
    );
    expect(t).not.toContain("tok3n");
    expect(t).not.toContain("token=abc");
    expect(t).not.toContain("Note:");
    expect(r.details).toMatchObject({ source_kind: "git", trust_level: "official" });
    const c = text(await lemon.readSkill({ key: "comm", view: "summary" }));
    expect(c).toContain(
      "kind=github; trust=community; audit=warn\nOrigin: gh:o/r\nActivation: active\n" + UNTRUSTED_NOTE,
    );
  });

  test("a blocked skill is refused by read_skill and skill://; a void override has its own message", async () => {
    await using box = await sandbox();
    const root = join(box.agentDir, "skill");
    await box.skill(root, "bad", { name: "bad", description: "Blocked one." });
    await box.skill(root, "over", { name: "over", description: "Overridden one." });
    const hash = await computeBundleHash(join(root, "over"));
    const override = (h: string) => ({
      bundle_hash: h,
      approved_at: "2026-12-01T00:00:00Z",
      engine_version: "1",
      findings: [],
    });
    const write = (h: string) =>
      writeFileSync(
        join(box.agentDir, "skills.lock.json"),
        lock({
          bad: { key: "bad", agent: "lemon", source_kind: "local", audit_status: "block" },
          over: {
            key: "over",
            agent: "lemon",
            source_kind: "local",
            audit_status: "block",
            security_override: override(h),
          },
        }),
      );
    write(hash);
    await using lemon = createLemon({ cwd: box.project, env: box.env });
    const bad = await lemon.readSkill({ key: "bad" });
    expect(bad.isError).toBe(true);
    expect(text(bad)).toBe("Skill 'bad' is blocked by its security audit and cannot be loaded.");
    expect(bad.details.error).toBe("blocked");
    const uri = await rejects(lemon.resolveSkillUri("skill://bad"));
    expect([uri.code, uri.message]).toEqual([
      "FORBIDDEN",
      "Skill 'bad' is blocked by its security audit and cannot be loaded.",
    ]);
    // A valid override loads; the same files changed afterwards do not, even within one listing interval.
    expect((await lemon.readSkill({ key: "over", view: "summary" })).isError).toBe(false);
    await box.write(join(root, "over/references/new.md"), "added after the override\n");
    const changed = await lemon.readSkill({ key: "over" });
    expect(text(changed)).toBe("Skill 'over' is blocked: its security override no longer matches the installed files.");
    expect(changed.details.error).toBe("blocked");
    const u2 = await rejects(lemon.resolveSkillUri("skill://over/references/new.md"));
    expect([u2.code, u2.message]).toEqual([
      "FORBIDDEN",
      "Skill 'over' is blocked: its security override no longer matches the installed files.",
    ]);
    write("0".repeat(64));
    expect(text(await lemon.readSkill({ key: "over" }))).toContain("security override no longer matches");
  });
});

describe("agentTools (cli.md §7)", () => {
  test("read_skill and skill_manage with JSON Schema parameters generated from the TypeBox schemas", async () => {
    await using box = await sandbox();
    await using lemon = createLemon({ cwd: box.project, env: box.env });
    const tools = lemon.agentTools();
    expect(tools.map((t) => [t.name, t.source])).toEqual([
      ["read_skill", "builtin"],
      ["skill_manage", "builtin"],
    ]);
    expect(READ_SKILL_SCHEMA).toEqual(JSON.parse(JSON.stringify(ReadSkillParameters)));
    expect(SKILL_MANAGE_SCHEMA).toEqual(JSON.parse(JSON.stringify(SkillManageParameters)));
    const json = JSON.parse(JSON.stringify(tools));
    expect(json[0].parameters.required).toEqual(["key"]);
    expect(json[1].parameters.required).toEqual(["action"]);
    expect(json[1].parameters.properties.action.anyOf.map((a: { const: string }) => a.const)).toEqual([
      "create",
      "edit",
      "patch",
      "delete",
      "write_file",
      "remove_file",
      "pin",
      "unpin",
      "archive",
      "restore",
      "report",
    ]);
    for (const t of tools) expect(t.description.length).toBeGreaterThan(40);
  });

  test("replace_all's schema takes the spellings skills.md §9 accepts, and nothing else", () => {
    const ok = (v: unknown) => Value.Check(SkillManageParameters, { action: "patch", replace_all: v });
    for (const v of [true, false, "true", "1", 1, "false", "0", 0]) expect(ok(v)).toBe(true);
    for (const v of ["yes", 2, null, "TRUE"]) expect(ok(v)).toBe(false);
  });

  test("execute runs the tool for the cwd the tools were made for, and never throws", async () => {
    await using box = await sandbox();
    await using other = await sandbox();
    await other.skill(join(other.project, ".lemon/skill"), "there");
    await using lemon = createLemon({ cwd: box.project, env: box.env });
    const [read] = lemon.agentTools({ cwd: other.project });
    const r = await read!.execute({ key: "there", view: "summary" }, { toolCallId: "x", cwd: box.project } as never);
    expect(r.isError).toBe(false);
    expect(text(r)).toContain("Key: there");
    const [here] = lemon.agentTools();
    expect((await here!.execute({ key: "there" })).isError).toBe(true);
    expect((await here!.execute("garbage")).isError).toBe(true);
    expect(() => lemon.agentTools({ cwd: 5 as never })).toThrow(LemonError);
    expect(() => lemon.agentTools({ cwd: join(box.root, "missing") })).toThrow(LemonError);
  });
});
