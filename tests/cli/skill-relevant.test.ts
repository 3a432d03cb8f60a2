// `lemon skill relevant`, `skill search` and `skill prompt --relevant` (cli.md §2.7–§2.9).
import { expect, test } from "bun:test";
import { join } from "node:path";
import { stderrLog } from "../../src/cli/context.ts";
import { memoryIo } from "../../src/cli/io.ts";
import { sandbox, type Sandbox } from "../support/sandbox.ts";

async function box3(): Promise<Sandbox> {
  const box = await sandbox();
  box.env.LEMON_AGENT_DIR = box.agentDir;
  box.env.LEMON_CLAUDE_SKILLS_DIR = join(box.root, "g");
  box.env.LEMON_SNAPSHOT_WORKER = "never";
  await box.skill("g", "helm-charts", { name: "helm-charts", description: "Scaffold Helm charts for Kubernetes." });
  await box.skill("g", "docker-clean", { name: "docker-clean", description: "Prune Docker images and volumes." });
  return box;
}

test("relevant: table, JSON, render and no match", async () => {
  await using box = await box3();
  const human = await box.cli(["skill", "relevant", "kubernetes", "helm", "chart"]);
  expect(human.code).toBe(0);
  expect(human.stdout.split("\n")[0]).toMatch(/^RANK\s+KEY\s+SCOPE\s+STATE\s+DESCRIPTION$/);
  expect(human.stdout).toContain("helm-charts");
  const json = await box.cli(["skill", "relevant", "prune docker images", "--json", "--max", "99"]);
  const doc = json.json();
  expect(doc).toMatchObject({ ok: true, query: "prune docker images", max_results: 50 });
  expect((doc.results as { rank: number; skill: { key: string } }[])[0]).toMatchObject({
    rank: 1,
    skill: { key: "docker-clean" },
  });
  const render = await box.cli(["skill", "relevant", "helm", "--render"]);
  expect(render.stdout.startsWith("<relevant-skills>\n")).toBe(true);
  const none = await box.cli(["skill", "relevant", "astrophysics"]);
  expect(none).toMatchObject({ code: 0, stdout: "No relevant skills.\n" });
  const bad = await box.cli(["skill", "relevant", "helm", "--max", "two"]);
  expect(bad.code).toBe(2);
});

// The online half is tested against loopback servers in skill-discover.test.ts.
test("search --no-online: the local table only, nothing asked online", async () => {
  await using box = await box3();
  const r = await box.cli(["skill", "search", "helm", "--no-online"]);
  expect(r.code).toBe(0);
  expect(r.stdout).toContain("Local skills\n");
  expect(r.stdout).not.toContain("Online skills");
  const local = await box.cli([
    "skill",
    "search",
    "helm",
    "--no-online",
    "--max-local",
    "1",
    "--max-online",
    "2",
    "--json",
  ]);
  expect(local.json()).toMatchObject({ ok: true, online: [], warnings: [] });
  expect((local.json().local as unknown[]).length).toBe(1);
  expect((await box.cli(["skill", "search", "helm", "--no-online"])).stderr).toBe("");
});

test("prompt --relevant appends the relevant block after a blank line", async () => {
  await using box = await box3();
  const r = await box.cli(["skill", "prompt", "--relevant", "docker volumes"]);
  expect(r.code).toBe(0);
  expect(r.stdout).toContain("</available_skills>\n\n<relevant-skills>");
  const j = (await box.cli(["skill", "prompt", "--relevant", "docker volumes", "--json"])).json();
  expect(String(j.relevant)).toContain("<key>docker-clean</key>");
  expect((await box.cli(["skill", "prompt", "--json"])).json().relevant).toBeNull();
});

// skills.md §7.3: a snapshot that cannot be written is built in memory for the call "with a
// diagnostic"; cli.md §1.2 puts a command's warnings on stderr in human output, unless --quiet.
test("relevant: a snapshot that cannot be written is said once on stderr; --quiet and --json stay silent", async () => {
  await using box = await box3();
  await box.write(join(box.agentDir, "cache"), "not a directory\n");
  const human = await box.cli(["skill", "relevant", "kubernetes", "helm"]);
  expect(human.code).toBe(0);
  expect(human.stdout).toContain("helm-charts");
  const warned = human.stderr.split("\n").filter((l) => l.startsWith("warn: search snapshot "));
  expect(warned.length).toBe(1);
  expect(warned[0]).toContain("could not be written");
  expect(human.stderr.trim()).toBe(warned[0]!);
  const render = await box.cli(["skill", "relevant", "kubernetes", "helm", "--render"]);
  expect(render.stderr).toContain("could not be written");
  expect(render.stdout.startsWith("<relevant-skills>\n")).toBe(true);
  const quiet = await box.cli(["skill", "relevant", "kubernetes", "helm", "--quiet"]);
  expect([quiet.code, quiet.stderr]).toEqual([0, ""]);
  const json = await box.cli(["skill", "relevant", "kubernetes", "--json"]);
  expect([json.code, json.stderr]).toEqual([0, ""]);
  expect(json.json()).toMatchObject({ ok: true, query: "kubernetes" });
});

test("stderrLog: warnings and errors once each, a diagnostic's path first, nothing with quiet", () => {
  const m = memoryIo();
  const log = stderrLog(m.io, false);
  log({ level: "info", message: "chatter" });
  log({ level: "warn", message: "snapshot not written" });
  log({ level: "warn", message: "snapshot not written" });
  log({
    level: "error",
    message: "skill root cannot be read (EACCES)",
    data: { level: "error", code: "x", path: "/r\u202e" },
  });
  expect(m.stderr()).toBe("warn: snapshot not written\nerror: /r: skill root cannot be read (EACCES)\n");
  const q = memoryIo();
  stderrLog(q.io, true)({ level: "error", message: "x" });
  expect(q.stderr()).toBe("");
});
