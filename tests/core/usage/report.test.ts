// Report rows and their text form (skills.md §12.3), and lemon.skills.usageReport.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createLemon, type UsageRow } from "../../../src/core/index.ts";
import type { Diagnostic } from "../../../src/core/diagnostics.ts";
import { formatUsageReport, usageRows } from "../../../src/core/skills/usage/sidecar.ts";
import type { UsageRecord } from "../../../src/core/schema/usage.ts";
import { sandbox } from "../../support/sandbox.ts";

const NOW = new Date("2026-09-30T12:00:00Z");
const OPTS = { staleAfterDays: 30, archiveAfterDays: 90, now: NOW };
const daysAgo = (d: number, extraHours = 0) =>
  new Date(NOW.getTime() - d * 86_400_000 - extraHours * 3_600_000).toISOString().replace(/\.\d{3}Z$/, "Z");
const agent = (over: UsageRecord = {}): UsageRecord => ({ created_by: "agent", created_via: "skill_manage", ...over });

describe("rows", () => {
  test("every field of a row", () => {
    const [row] = usageRows(
      {
        k: agent({
          created_at: daysAgo(40),
          last_loaded_at: daysAgo(35, 5),
          last_write_at: daysAgo(31, 1),
          load_count: 7,
          write_count: 2,
          write_error_count: 1,
        }),
      },
      OPTS,
    );
    expect(row).toEqual({
      name: "k",
      lifecycle_state: "active",
      agent_authored: true,
      load_count: 7,
      write_count: 2,
      write_error_count: 1,
      created_at: daysAgo(40),
      last_loaded_at: daysAgo(35, 5),
      last_write_at: daysAgo(31, 1),
      last_activity_at: daysAgo(31, 1),
      idle_days: 31,
      stale_candidate: true,
      archive_candidate: false,
    } satisfies UsageRow);
  });

  test("absent fields: zero counts, null times, unknown idle days, never a candidate", () => {
    const [row] = usageRows({ k: agent() }, OPTS);
    expect(row).toMatchObject({
      lifecycle_state: "active",
      load_count: 0,
      write_count: 0,
      write_error_count: 0,
      created_at: null,
      last_activity_at: null,
      idle_days: null,
      stale_candidate: false,
      archive_candidate: false,
    });
  });

  test("only agent-authored, unpinned, unarchived rows are candidates; idle days never negative", () => {
    const old = daysAgo(120);
    const rows = usageRows(
      {
        human: { last_loaded_at: old, load_count: 1 },
        pinned: agent({ created_at: old, lifecycle_state: "pinned" }),
        archived: agent({ created_at: old, lifecycle_state: "archived" }),
        stale: agent({ created_at: old, lifecycle_state: "stale" }),
        future: agent({ created_at: "2027-01-01T00:00:00Z" }),
        garbage: agent({ created_at: "not a date" }),
      },
      OPTS,
    );
    const by = Object.fromEntries(rows.map((r) => [r.name, r]));
    expect(by.human).toMatchObject({ agent_authored: false, idle_days: 120, stale_candidate: false });
    expect(by.pinned).toMatchObject({ stale_candidate: false, archive_candidate: false });
    expect(by.archived).toMatchObject({ stale_candidate: false, archive_candidate: false });
    expect(by.stale).toMatchObject({ stale_candidate: true, archive_candidate: true });
    expect(by.future).toMatchObject({ idle_days: 0, stale_candidate: false });
    expect(by.garbage).toMatchObject({ last_activity_at: null, idle_days: null });
  });

  test("order: archive candidates, stale candidates, others; by name within each", () => {
    const rows = usageRows(
      {
        zeta: agent({ created_at: daysAgo(1) }),
        beta: agent({ created_at: daysAgo(45) }),
        alpha: agent({ created_at: daysAgo(100) }),
        gamma: agent({ created_at: daysAgo(95) }),
        aardvark: { load_count: 1 },
        delta: agent({ created_at: daysAgo(30) }),
      },
      OPTS,
    );
    expect(rows.map((r) => r.name)).toEqual(["alpha", "gamma", "beta", "delta", "aardvark", "zeta"]);
  });
});

describe("text form", () => {
  test("header, one line per row with markers, counts, idle days and last activity", () => {
    const rows = usageRows(
      {
        old: agent({ created_at: daysAgo(100), lifecycle_state: "stale", load_count: 3, write_count: 1 }),
        pin: agent({ created_at: daysAgo(100), lifecycle_state: "pinned" }),
        plain: { load_count: 2, last_loaded_at: daysAgo(2) },
        never: {},
      },
      OPTS,
    );
    expect(formatUsageReport("global", rows)).toBe(
      [
        "Skill usage report for global scope:",
        `- old: agent-authored,stale,stale-candidate,archive-candidate; loads=3; writes=1; idle_days=100; last_activity=${daysAgo(100)}`,
        "- never: -; loads=0; writes=0; idle_days=unknown; last_activity=never",
        `- pin: agent-authored,pinned; loads=0; writes=0; idle_days=100; last_activity=${daysAgo(100)}`,
        `- plain: -; loads=2; writes=0; idle_days=2; last_activity=${daysAgo(2)}`,
      ].join("\n"),
    );
  });

  test("no rows", () => {
    expect(formatUsageReport("project", [])).toBe("No project skill usage records found.");
  });

  test("a hostile key from a project sidecar cannot break the line or the terminal", () => {
    const rows = usageRows({ "evil\n- fake: -\u001b[2J": { load_count: 1 } }, OPTS);
    const text = formatUsageReport("project", rows);
    expect(text.split("\n")).toHaveLength(2);
    expect(text).not.toContain("\u001b");
  });
});

describe("lemon.skills.usageReport", () => {
  test("reads the scope's sidecar with the [skills.curator] day limits by default", async () => {
    await using box = await sandbox();
    await box.write(
      join(box.agentDir, "config.toml"),
      "[skills.curator]\nstale_after_days = 5\narchive_after_days = 10\n",
    );
    await box.write(
      join(box.agentDir, "skills.usage.json"),
      JSON.stringify({ version: 1, skills: { g: agent({ created_at: daysAgo(7) }) } }),
    );
    await box.write(
      join(box.project, ".lemon/skills.usage.json"),
      JSON.stringify({ version: 1, skills: { p: agent({ created_at: daysAgo(12) }) } }),
    );
    await using lemon = createLemon({ cwd: box.project, env: box.env, now: () => NOW, curator: false });
    const global = await lemon.skills.usageReport();
    expect(global.map((r) => [r.name, r.stale_candidate, r.archive_candidate])).toEqual([["g", true, false]]);
    const project = await lemon.skills.usageReport({ scope: "project" });
    expect(project.map((r) => [r.name, r.archive_candidate])).toEqual([["p", true]]);
    const explicit = await lemon.skills.usageReport({ staleAfterDays: 30, archiveAfterDays: 90 });
    expect(explicit[0]!.stale_candidate).toBe(false);
  });

  test("a corrupt sidecar is no rows, a diagnostic event and a log warning; the file stays", async () => {
    await using box = await sandbox();
    const file = await box.write(join(box.agentDir, "skills.usage.json"), '{"version":1,"skills":[]}');
    const logged: string[] = [];
    await using lemon = createLemon({
      cwd: box.project,
      env: box.env,
      curator: false,
      log: (e) => logged.push(e.message),
    });
    const seen: Diagnostic[] = [];
    lemon.events.on("diagnostic", (d) => seen.push(d));
    expect(await lemon.skills.usageReport()).toEqual([]);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ level: "warn", code: "invalid_usage_file", path: file });
    expect(seen[0]!.message).toStartWith(`ignoring invalid ${file}: `);
    expect(logged.some((m) => m.startsWith(`ignoring invalid ${file}`))).toBe(true);
    expect(readFileSync(file, "utf8")).toBe('{"version":1,"skills":[]}');
  });

  test("bad options are INVALID_PARAMS", async () => {
    await using box = await sandbox();
    await using lemon = createLemon({ cwd: box.project, env: box.env, curator: false });
    await expect(lemon.skills.usageReport({ scope: "both" as never })).rejects.toMatchObject({
      code: "INVALID_PARAMS",
    });
    await expect(lemon.skills.usageReport({ staleAfterDays: "5" as never })).rejects.toMatchObject({
      code: "INVALID_PARAMS",
    });
  });
});
