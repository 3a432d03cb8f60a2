// Keeps the README honest: every `npx lemon …` command in its sh blocks runs, in document order,
// in one sandbox holding a copy of the example project (plus an MCP server imported from another
// tool, as the examples assume), and must exit 0; the TypeScript examples run as written. The copy
// holds the bundled example skills only, so what a user's own run of the README left in the clone
// never changes these tests, and the examples that write must leave the clone's skills alone.
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { copyExampleSkills, EXAMPLE_SKILLS } from "../scripts/bench/example-project.ts";
import { TARGETS } from "../scripts/targets.ts";
import { sandbox, type Sandbox } from "./support/sandbox.ts";

const REPO = resolve(import.meta.dir, "..");
const README = readFileSync(join(REPO, "README.md"), "utf8");

function blocks(lang: string): string[] {
  return [...README.matchAll(new RegExp("```" + lang + "\\n([\\s\\S]*?)```", "g"))].map((m) => m[1]!);
}

/** POSIX-shell-like words: quotes group, backslash-newline continues, `#` starts a comment. */
function words(line: string): string[] {
  const out: string[] = [];
  let cur = "";
  let has = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === "'" || c === '"') {
      const end = line.indexOf(c, i + 1);
      cur += line.slice(i + 1, end);
      has = true;
      i = end;
    } else if (c === "#" && !has && cur === "") break;
    else if (/\s/.test(c)) {
      if (has || cur !== "") out.push(cur);
      cur = "";
      has = false;
    } else cur += c;
  }
  if (has || cur !== "") out.push(cur);
  return out;
}

function lemonCommands(): string[][] {
  const out: string[][] = [];
  for (const b of blocks("sh")) {
    for (const line of b.replace(/\\\n\s*/g, " ").split("\n")) {
      const w = words(line.trim());
      if (w[0] !== "npx" || w[1] !== "lemon" || w.includes("&&")) continue; // the quickstart line is .ci/run's
      out.push(w.slice(2));
    }
  }
  return out;
}

async function project(box: Sandbox) {
  copyExampleSkills(box.project);
  // "Connecting MCP servers" starts server-everything from the project's node_modules.
  symlinkSync(join(REPO, "node_modules"), join(box.project, "node_modules"));
  await box.write(
    join(box.project, ".cursor/mcp.json"),
    JSON.stringify({ mcpServers: { sentry: { url: "https://mcp.sentry.dev/mcp" } } }),
  );
}

/** The README's scratch project line (`demo=$(mktemp -d) && …`), run as written in `cwd`; its path. */
function scratchProject(box: Sandbox, cwd: string): string {
  const line = blocks("sh")
    .flatMap((b) => b.split("\n"))
    .find((l) => l.startsWith("demo="));
  expect(line).toBeDefined();
  const r = Bun.spawnSync(["sh", "-c", `${line}\nprintf %s "$demo"`], {
    cwd,
    env: { PATH: process.env.PATH, TMPDIR: box.root },
  });
  expect([r.exitCode, r.stderr.toString()]).toEqual([0, ""]);
  return r.stdout.toString();
}

describe("README", () => {
  const commands = lemonCommands();
  test("every documented lemon command runs in order and exits 0; the clone's skills stay as shipped", async () => {
    expect(commands.length).toBeGreaterThan(20);
    await using box = await sandbox();
    await project(box);
    const demo = scratchProject(box, box.project);
    for (const argv of commands.map((a) => a.map((w) => (w === "$demo" ? demo : w)))) {
      const r = await box.cli(argv);
      if (r.code !== 0) throw new Error(`lemon ${argv.join(" ")} → exit ${r.code}: ${r.stderr}`);
    }
    // The MCP section starts server-everything five times.
    expect(readdirSync(join(box.project, ".lemon", "skill")).sort()).toEqual([...EXAMPLE_SKILLS]);
    expect(existsSync(join(box.project, ".lemon", "skills.usage.json"))).toBe(false);
    expect(existsSync(join(demo, ".lemon", "skill", "bun-json-roundtrip", "SKILL.md"))).toBe(true);
  }, 60_000);

  test("the example project the tests copy is the git-tracked one, and only that", async () => {
    await using box = await sandbox();
    await project(box);
    expect(readdirSync(join(box.project, ".lemon", "skill")).sort()).toEqual([...EXAMPLE_SKILLS]);
    // A clone (not an unpacked package): the list names exactly the tracked skills.
    const git = Bun.spawnSync(["git", "ls-files", "-z", ".lemon/skill"], { cwd: REPO });
    if (git.exitCode !== 0) return;
    const tracked = new Set(
      git.stdout
        .toString()
        .split("\0")
        .filter((f) => f !== "")
        .map((f) => f.split("/")[2]!),
    );
    expect([...tracked].sort()).toEqual([...EXAMPLE_SKILLS]);
  });

  test("the crontab lines run the compiled binary, per scope, and exit 0", async () => {
    await using box = await sandbox();
    await project(box);
    const lines = blocks("crontab")
      .flatMap((b) => b.split("\n"))
      .filter((l) => l.trim() !== "" && !l.startsWith("#"));
    expect(lines.length).toBe(2);
    const scopes: string[] = [];
    for (const line of lines) {
      const w = words(line);
      // Five schedule fields, then an absolute path to a binary build.ts writes (never a bare `lemon`).
      const bin = w[5]!;
      expect(TARGETS.map((t) => `/path/to/clone/dist/lemon-${t.name}/${t.exe}`)).toContain(bin);
      const argv = [...w.slice(6).map((x) => (x === "/path/to/project" ? box.project : x)), "--json"];
      const r = await box.cli(argv);
      expect({ line, code: r.code }).toEqual({ line, code: 0 });
      scopes.push(argv.includes("--local") ? "project" : "global");
    }
    expect(scopes).toEqual(["global", "project"]);
  });

  test("the TypeScript examples run as written", async () => {
    await using box = await sandbox();
    await project(box);
    const dir = join(box.root, "app");
    mkdirSync(join(dir, "node_modules"), { recursive: true });
    symlinkSync(REPO, join(dir, "node_modules", "lemon-skills"));
    const ts = blocks("ts").map((b) =>
      b
        .replace('"/path/to/repo"', JSON.stringify(box.project))
        .replace('"/path/to/project"', JSON.stringify(box.project)),
    );
    const embed = ts.find((b) => b.includes("createLemon") && b.includes("skills.audit("))!;
    const mcp = ts.find((b) => b.includes("mcpConfig"))!;
    writeFileSync(
      join(dir, "embed.ts"),
      embed +
        "\nconsole.log(JSON.stringify({ n: skills.length, d: diagnostics.length, ready: status?.ready, prompt: systemPrompt.length > 0, hint: turnHint.startsWith('<relevant-skills>'), top: hits[0]?.key, verdict: report.verdict, mcp: servers.effective.length }));\n",
    );
    const r = Bun.spawnSync([process.execPath, join(dir, "embed.ts")], { cwd: dir, env: box.env });
    expect(r.stderr.toString()).toBe("");
    expect(JSON.parse(r.stdout.toString())).toEqual({
      n: 3,
      d: 0,
      ready: true,
      prompt: true,
      hint: true,
      top: "bun-file-io",
      verdict: "pass",
      mcp: 1,
    });
    writeFileSync(
      join(dir, "mcp.ts"),
      mcp +
        "\nconsole.log(JSON.stringify({ names: effective.map((s) => s.name), d: diagnostics.length, v: validate([{ name: 'x', url: 'ftp://nope' }]) }));\n",
    );
    const m = Bun.spawnSync([process.execPath, join(dir, "mcp.ts")], { cwd: dir, env: box.env });
    expect(m.stderr.toString()).toBe("");
    expect(JSON.parse(m.stdout.toString())).toEqual({
      names: ["sentry"],
      d: 0,
      v: { ok: false, errors: [{ index: 0, name: "x", message: "invalid HTTP URL" }] },
    });
  });

  test("the agent loop lists, finds, reads a skill and writes one back", async () => {
    await using box = await sandbox();
    await project(box);
    const dir = join(box.root, "app");
    mkdirSync(join(dir, "node_modules"), { recursive: true });
    symlinkSync(REPO, join(dir, "node_modules", "lemon-skills"));
    const loop = blocks("ts").find((b) => b.includes("agentTools()"))!;
    const text = (r: string) => `${r}.content.map((b) => (b.type === "text" ? b.text : "")).join("\\n")`;
    writeFileSync(
      join(dir, "loop.ts"),
      loop.replace('"/path/to/project"', JSON.stringify(box.project)) +
        `\nconsole.log(JSON.stringify({ n: skills.length, top: relevant[0]?.key, hint: hint.startsWith("<relevant-skills>"),
          summary: ${text("summary")}, full: ${text("full")}, created: ${text("created")}, patched: ${text("patched")},
          errors: [summary, full, created, patched].map((r) => r.isError), loads, specs: toolSpecs.map((t) => t.function.name),
          answer }));\n`,
    );
    const r = Bun.spawnSync([process.execPath, join(dir, "loop.ts")], { cwd: dir, env: box.env });
    expect(r.stderr.toString()).toBe("");
    const out = JSON.parse(r.stdout.toString());
    expect([out.n, out.top, out.hint, out.errors]).toEqual([3, "bun-file-io", true, [false, false, false, false]]);
    expect(out.summary).toStartWith("# Skill: bun-file-io\nKey: bun-file-io\n");
    expect(out.summary).not.toContain("## Content");
    expect(out.full).toContain("## Content\n---\nname: bun-file-io\n");
    const skillDir = join(box.project, ".lemon/skill/bun-json-roundtrip");
    expect(out.created).toBe(`Created skill 'bun-json-roundtrip' at ${skillDir} (audit: pass).`);
    expect(out.patched).toStartWith("Patched SKILL.md in skill 'bun-json-roundtrip' (1 replacement(s); audit: pass");
    expect(out.loads).toEqual(["bun-file-io summary ok", "bun-file-io full ok", "bun-json-roundtrip section ok"]);
    expect(out.specs).toEqual(["read_skill", "skill_manage"]);
    expect(out.answer.isError).toBe(false);
    expect(out.answer.text).toContain("## Section: Steps\n");
    expect(out.answer.text).toContain("`await Bun.write(path, text)`; end it with a newline.");
    expect(readFileSync(join(skillDir, "SKILL.md"), "utf8")).toContain("text)`; end it with a newline.\n");
  });
});

describe("README transcripts", () => {
  test("the Hermes commands run as shown against a local checkout (LEMON_HERMES_REPO)", async () => {
    await using box = await sandbox();
    const repo = join(box.root, "hermes-agent");
    mkdirSync(join(repo, "skills"), { recursive: true });
    mkdirSync(join(repo, "optional-skills", "research", "arxiv"), { recursive: true });
    writeFileSync(
      join(repo, "optional-skills", "research", "arxiv", "SKILL.md"),
      "---\nname: arxiv\ndescription: Search and read arXiv papers\n---\n\n# arXiv\n\nUse the arXiv API.\n",
    );
    const block = blocks("console").find((b) => b.includes("skill hermes"))!;
    const commands = block
      .split("\n")
      .filter((l) => l.startsWith("$ npx lemon "))
      .map((l) => words(l.slice("$ npx lemon ".length)));
    expect(commands.length).toBe(3);
    const env = { LEMON_HERMES_REPO: repo, LEMON_GITHUB_API_URL: "http://127.0.0.1:9" };
    const outs: string[] = [];
    for (const argv of commands) {
      const r = await box.cli(argv, { env });
      if (r.code !== 0) throw new Error(`lemon ${argv.join(" ")} → exit ${r.code}: ${r.stderr}`);
      outs.push(r.stdout);
    }
    expect(outs[0]).toContain("hermes:optional/research/arxiv");
    expect(outs[0]).toContain("Search and read arXiv papers");
    expect(existsSync(join(box.agentDir, "skill", "arxiv", "SKILL.md"))).toBe(true);
  });
});
