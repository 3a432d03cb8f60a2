import { describe, expect, test } from "bun:test";
import { createContext } from "../../../src/core/context.ts";
import { DEFAULT_CURATOR, loadAgentConfig, loadSkillsSettings } from "../../../src/core/skills/skills-config.ts";
import { sandbox } from "../../support/sandbox.ts";

const ctxOf = (box: { project: string; env: Record<string, string | undefined> }) =>
  createContext({ cwd: box.project, env: box.env });

describe("loadSkillsSettings", () => {
  test("defaults without a config file", async () => {
    await using box = await sandbox();
    const s = await loadSkillsSettings(ctxOf(box), { readConfigFile: true });
    expect(s).toEqual({
      writeApproval: false,
      eventLog: false,
      httpTimeoutMs: 10000,
      registryUrl: null,
      wellKnown: [],
      curator: { ...DEFAULT_CURATOR },
    });
  });

  test("[skills.discovery] well_known: a list of strings, the option over the file; anything else is ignored", async () => {
    await using box = await sandbox();
    await box.write(`${box.agentDir}/config.toml`, '[skills.discovery]\nwell_known = ["https://a.example"]\n');
    const ctx = ctxOf(box);
    expect((await loadSkillsSettings(ctx, { readConfigFile: true })).wellKnown).toEqual(["https://a.example"]);
    const opt = await loadSkillsSettings(ctx, {
      readConfigFile: true,
      config: { discovery: { well_known: ["https://b.example"] } },
    });
    expect(opt.wellKnown).toEqual(["https://b.example"]);
    await box.write(`${box.agentDir}/config.toml`, "[skills.discovery]\nwell_known = [1, 2]\n");
    expect((await loadSkillsSettings(ctx, { readConfigFile: true })).wellKnown).toEqual([]);
  });

  test("reads [skills] and [skills.curator] from config.toml; the option wins key by key", async () => {
    await using box = await sandbox();
    await box.write(
      `${box.agentDir}/config.toml`,
      [
        "[skills]",
        "write_approval = true",
        "event_log = true",
        "http_timeout_ms = 2500",
        'registry_url = "http://127.0.0.1:9/"',
        "[skills.curator]",
        "interval_hours = 24",
        "min_idle_hours = 0.5",
        "review = true",
        'agent = "reviewer"',
      ].join("\n"),
    );
    const ctx = ctxOf(box);
    const file = await loadSkillsSettings(ctx, { readConfigFile: true });
    expect(file.writeApproval).toBe(true);
    expect(file.eventLog).toBe(true);
    expect(file.httpTimeoutMs).toBe(2500);
    expect(file.registryUrl).toBe("http://127.0.0.1:9/");
    expect(file.curator).toEqual({
      ...DEFAULT_CURATOR,
      intervalHours: 24,
      minIdleHours: 0.5,
      review: true,
      agent: "reviewer",
    });
    const merged = await loadSkillsSettings(ctx, {
      readConfigFile: true,
      config: { write_approval: false, curator: { interval_hours: 1 } },
    });
    expect(merged.writeApproval).toBe(false);
    expect(merged.eventLog).toBe(true);
    expect(merged.curator.intervalHours).toBe(1);
    expect(merged.curator.agent).toBe("reviewer");
    const noFile = await loadSkillsSettings(ctx, { readConfigFile: false, config: { event_log: true } });
    expect(noFile.writeApproval).toBe(false);
    expect(noFile.eventLog).toBe(true);
    expect(noFile.curator).toEqual({ ...DEFAULT_CURATOR });
  });

  test("invalid values are ignored in favour of the next layer or the default", async () => {
    await using box = await sandbox();
    await box.write(
      `${box.agentDir}/config.toml`,
      [
        "[skills]",
        'write_approval = "yes"',
        "http_timeout_ms = -5",
        'registry_url = ""',
        "[skills.curator]",
        "interval_hours = -1",
        'stale_after_days = "30"',
        "archive_after_days = 45",
        "enabled = 1",
        'agent = "  "',
      ].join("\n"),
    );
    const s = await loadSkillsSettings(ctxOf(box), {
      readConfigFile: true,
      // Wrong types from an untyped embedder fall through to the file's valid values.
      config: JSON.parse('{"curator":{"archive_after_days":"x","min_idle_hours":null}}'),
    });
    expect(s.writeApproval).toBe(false);
    expect(s.httpTimeoutMs).toBe(10000);
    expect(s.registryUrl).toBeNull();
    expect(s.curator).toEqual({ ...DEFAULT_CURATOR, archiveAfterDays: 45 });
  });

  test("a config.toml that is not TOML, not a table or not a regular file is ignored", async () => {
    await using box = await sandbox();
    const ctx = ctxOf(box);
    await box.write(`${box.agentDir}/config.toml`, "[skills\nwrite_approval = true\n");
    expect((await loadSkillsSettings(ctx, { readConfigFile: true })).writeApproval).toBe(false);
    await box.write(`${box.agentDir}/config.toml`, 'skills = "on"\n');
    expect((await loadSkillsSettings(ctx, { readConfigFile: true })).curator).toEqual({ ...DEFAULT_CURATOR });
    await box.write(`${box.agentDir}/config.toml`, new Uint8Array([0x5b, 0xff, 0xfe, 0x5d]));
    expect((await loadSkillsSettings(ctx, { readConfigFile: true })).eventLog).toBe(false);
  });
});

describe("loadAgentConfig", () => {
  test("[agents.<name>] from the file, the option's table first, invalid tables ignored", async () => {
    await using box = await sandbox();
    await box.write(
      `${box.agentDir}/config.toml`,
      [
        "[agents.default]",
        'command = ["/bin/cat"]',
        'env = { A = "1" }',
        'env_vars = ["TOKEN"]',
        "[agents.broken]",
        "command = []",
      ].join("\n"),
    );
    const ctx = ctxOf(box);
    expect(await loadAgentConfig(ctx, "default", { readConfigFile: true })).toEqual({
      command: ["/bin/cat"],
      env: { A: "1" },
      env_vars: ["TOKEN"],
    });
    expect(await loadAgentConfig(ctx, "broken", { readConfigFile: true })).toBeNull();
    expect(await loadAgentConfig(ctx, "missing", { readConfigFile: true })).toBeNull();
    expect(await loadAgentConfig(ctx, "toString", { readConfigFile: true })).toBeNull();
    expect(
      await loadAgentConfig(ctx, "default", {
        readConfigFile: true,
        agents: { default: { command: ["/bin/true"], prompt: "arg" } },
      }),
    ).toEqual({ command: ["/bin/true"], prompt: "arg" });
    expect(await loadAgentConfig(ctx, "default", { readConfigFile: false })).toBeNull();
  });
});
