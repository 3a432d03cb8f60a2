// Keeps the README honest: every `npx lemon …` command in its sh blocks runs, in document order,
// in one sandbox holding a copy of the example project (plus an MCP server imported from another
// tool, as the examples assume), and must exit 0; the TypeScript examples run as written. The copy
// holds the bundled example skills only, so what a user's own run of the README left in the clone
// never changes these tests, and the examples that write must leave the clone's skills alone.
// The console transcripts run too, against loopback servers standing in for their URLs, and
// must print the lines they show.
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { copyExampleSkills, EXAMPLE_SKILLS } from "../scripts/bench/example-project.ts";
import { TARGETS } from "../scripts/targets.ts";
import { ghRepo, githubApi, stopServers, wellKnown } from "./support/discovery-servers.ts";
import { gitHttpServer, staticServer } from "./support/git-http-server.ts";
import { createRepo, skillMd } from "./support/git-repos.ts";
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
    const hermes = transcript("skill hermes");
    expect(hermes.commands.length).toBe(3);
    const outs = await expectShown(box, hermes, {
      LEMON_HERMES_REPO: repo,
      LEMON_GITHUB_API_URL: "http://127.0.0.1:9",
    });
    expect(outs[0]).toContain("hermes:optional/research/arxiv");
    expect(outs[0]).toContain("Search and read arXiv papers");
    expect(existsSync(join(box.agentDir, "skill", "arxiv", "SKILL.md"))).toBe(true);
  });

  afterEach(stopServers);

  test("the relevance transcript prints the table shown, for the example project", async () => {
    await using box = await sandbox();
    await project(box);
    const steps = transcript("skill relevant");
    expect(steps.commands.length).toBe(1);
    await expectShown(box, steps, {});
  });

  test("the registry and discover transcripts, in document order, print what they show (loopback registry, GitHub, well-known)", async () => {
    await using box = await sandbox();
    const { env, head, stop } = await registryFixture(box);
    try {
      const reg = transcript("skill install acme/platform/deploy --list");
      expect(reg.exports).toEqual({ LEMON_SKILLS_REGISTRY_URL: README_REGISTRY });
      expect(reg.commands.length).toBe(3);
      const outs = await expectShown(box, reg, env);
      expect(outs[1]).toContain(`(commit ${head.slice(0, 12)})`);
      const installed = join(box.agentDir, "skill", "deploy");
      expect(readFileSync(join(installed, "SKILL.md"), "utf8")).toContain("Deploy the platform way.");
      expect(existsSync(join(installed, "references", "runbook.md"))).toBe(true);

      const gh = githubApi([ghRepo("acme/deploy-skill", 22, "Deploy to Kubernetes with rollbacks")]);
      const wk = wellKnown(
        [{ name: "deploy", description: "Deploy from the skills site", files: ["SKILL.md", "notes.md"] }],
        { "deploy/SKILL.md": skillMd("deploy", "From the skills site."), "deploy/notes.md": "notes\n" },
      );
      const toml = blocks("toml").find((b) => b.includes("[skills.discovery]"))!;
      expect(toml).toContain(`"${README_WELL_KNOWN}"`);
      await box.write(join(box.agentDir, "config.toml"), toml.replaceAll(README_WELL_KNOWN, wk.origin));
      const found = transcript("skill discover deploy");
      expect(found.commands.length).toBe(2);
      await expectShown(box, found, { ...env, LEMON_GITHUB_API_URL: gh.origin }, [[README_WELL_KNOWN, wk.origin]]);
      expect(gh.seen.map((s) => s.path)).toEqual(["/search/repositories"]);
      expect(readFileSync(join(installed, "SKILL.md"), "utf8")).toContain("From the skills site.");
    } finally {
      stop();
    }
  });
});

const README_REGISTRY = "https://skills.example.com/registry";
const README_WELL_KNOWN = "https://skills.example.com";

interface Transcript {
  commands: string[][];
  /** The output lines the README shows under each command. */
  shown: string[][];
  exports: Record<string, string>;
}

/** The console block holding `marker`: its `$ npx lemon` commands (a `#` comment dropped), their shown output, its exports. */
function transcript(marker: string): Transcript {
  const block = blocks("console").find((b) => b.includes(marker));
  expect(block).toBeDefined();
  const t: Transcript = { commands: [], shown: [], exports: {} };
  for (const line of block!.split("\n")) {
    const exp = /^\$ export (\w+)=(\S+)$/.exec(line);
    if (exp) t.exports[exp[1]!] = exp[2]!;
    else if (line.startsWith("$ npx lemon ")) {
      t.commands.push(words(line.slice("$ npx lemon ".length)));
      t.shown.push([]);
    } else if (line.trim() !== "") t.shown.at(-1)!.push(line);
  }
  return t;
}

/** Cells of each line: columns are padded to the widest value, which changes with the servers' URLs. */
function cells(lines: string[]): string[][] {
  return lines.map((l) => l.trimEnd().split(/\s{2,}/));
}

/**
 * Runs a transcript's commands with `env`, each README URL of `urls` replaced by its server's,
 * and expects each output, mapped back to the README's URLs and home, to be what it shows; a
 * commit is compared by shape only. Returns the outputs as printed.
 */
async function expectShown(
  box: Sandbox,
  t: Transcript,
  env: Record<string, string>,
  urls: [readme: string, server: string][] = [],
): Promise<string[]> {
  const outs: string[] = [];
  const sha = (s: string) => s.replace(/\(commit [0-9a-f]{12}\)/g, "(commit <sha>)");
  for (const [i, written] of t.commands.entries()) {
    const argv = written.map((w) => urls.reduce((a, [readme, server]) => a.replaceAll(readme, server), w));
    const r = await box.cli(argv, { env });
    if (r.code !== 0) throw new Error(`lemon ${argv.join(" ")} → exit ${r.code}: ${r.stderr}`);
    outs.push(r.stdout);
    let out = r.stdout.replaceAll(box.home, "/home/you");
    for (const [readme, server] of urls) out = out.replaceAll(server, readme);
    const printed = out.split("\n").filter((l) => l.trim() !== "");
    expect({ argv: written, out: cells(printed.map(sha)) }).toEqual({
      argv: written,
      out: cells((t.shown[i] ?? []).map(sha)),
    });
  }
  return outs;
}

/** The transcript's registry: `acme/platform/deploy` → skills/deploy of a real repo over smart HTTP. */
async function registryFixture(box: Sandbox) {
  const repos = join(box.root, "repos");
  mkdirSync(repos, { recursive: true });
  const repo = await createRepo(repos, "skills", {
    "skills/deploy/SKILL.md": skillMd("deploy", "Deploy the platform way."),
    "skills/deploy/references/runbook.md": "# runbook\n",
    "skills/other/SKILL.md": skillMd("other"),
  });
  const git = gitHttpServer(repos);
  const ref = "acme/platform/deploy";
  const entry = {
    ref,
    name: "deploy",
    description: "Deploy services the platform way",
    clone_url: `${git.url}/skills.git`,
    subdir: "skills/deploy",
    commit: repo.head,
  };
  const reg = staticServer({
    "/registry/search": () => Response.json({ skills: [{ ref, name: "deploy", description: entry.description }] }),
    [`/registry/skills/${ref}`]: () => Response.json(entry),
  });
  const env = { LEMON_SKILLS_REGISTRY_URL: `${reg.url}/registry`, LEMON_GITHUB_API_URL: "http://127.0.0.1:9" };
  const stop = () => {
    reg.stop();
    git.stop();
  };
  return { env, head: repo.head, stop };
}
