// No run mode of lemon reads a `.env` (issue 9 §2.4): a cloned repository holding one that sets
// LEMON_AGENT_DIR or LEMON_MCP_SERVERS must not change what lemon sees. Every mode runs as a real
// process started in such a project. The compiled binary is covered by tests/compiled/smoke.test.ts.
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { cp, mkdir, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { sandbox, type Sandbox } from "../support/sandbox.ts";

const REPO = join(import.meta.dir, "..", "..");
const MAIN = join(REPO, "src", "cli", "main.ts");
const BIN_DIR = join(REPO, "node_modules", ".bin");

/**
 * A project whose `.env` files move the agent dir to one holding `dotenv-leak` and add the MCP
 * server `dotenv-evil`; with `hostile`, its bunfig.toml preload and tsconfig.json paths also throw.
 */
async function project(hostile: boolean): Promise<Sandbox> {
  const box = await sandbox();
  const evil = join(box.root, "evil-agent");
  await box.skill(join(evil, "skill"), "dotenv-leak");
  await box.skill(join(box.root, "evil-claude"), "dotenv-leak-local");
  const servers = JSON.stringify([{ name: "dotenv-evil", type: "stdio", command: "evil" }]);
  await box.write(join(box.project, ".env"), `LEMON_AGENT_DIR=${evil}\nLEMON_MCP_SERVERS='${servers}'\n`);
  await box.write(join(box.project, ".env.local"), `export LEMON_CLAUDE_SKILLS_DIR=${join(box.root, "evil-claude")}\n`);
  if (hostile) {
    await box.write(join(box.project, "bunfig.toml"), 'preload = ["./boom.ts"]\n');
    await box.write(join(box.project, "boom.ts"), 'throw new Error("bunfig.toml was loaded");\n');
    await box.write(
      join(box.project, "tsconfig.json"),
      JSON.stringify({ compilerOptions: { paths: { "*": ["./boom.ts"] } } }),
    );
  }
  await box.skill(join(box.project, ".lemon", "skill"), "project-skill");
  await box.skill(join(box.agentDir, "skill"), "global-skill");
  return box;
}

interface Seen {
  skills: string[];
  servers: string[];
}

function spawn(box: Sandbox, cmd: string[], cwd = box.project): { code: number; stdout: string; stderr: string } {
  const env = { ...box.env, PATH: `${BIN_DIR}:${process.env.PATH}` };
  const p = Bun.spawnSync(cmd, { cwd, env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  return { code: p.exitCode ?? -1, stdout: p.stdout.toString(), stderr: p.stderr.toString() };
}

/** What `skill list` and `mcp list --all` show when lemon is started as `launch`. */
function seenByCli(box: Sandbox, launch: string[], cwd?: string): Seen {
  const skills = spawn(box, [...launch, "skill", "list", "--json", "--cwd", box.project], cwd);
  expect(skills.stderr).toBe("");
  expect(skills.code).toBe(0);
  const mcp = spawn(box, [...launch, "mcp", "list", "--all", "--json", "--cwd", box.project], cwd);
  expect(mcp.code).toBe(0);
  const list = JSON.parse(skills.stdout) as { skills: { key: string }[] };
  const all = JSON.parse(mcp.stdout) as { effective: { name: string }[] };
  return { skills: list.skills.map((s) => s.key).sort(), servers: all.effective.map((s) => s.name) };
}

const CLEAN: Seen = { skills: ["global-skill", "project-skill"], servers: [] };

describe(".env files are never read (issue 9 §2.4)", () => {
  test("the bin as npx runs it: its shebang ignores .env, bunfig.toml and tsconfig.json", async () => {
    await using box = await project(true);
    expect(seenByCli(box, [MAIN])).toEqual(CLEAN);
  });

  test("bun src/cli/main.ts: location variables a .env defines are ignored", async () => {
    await using box = await project(false);
    expect(seenByCli(box, [process.execPath, MAIN])).toEqual(CLEAN);
  });

  test("npm run lemon and npx lemon in a package root that holds a .env, bunfig.toml and tsconfig.json", async () => {
    await using box = await project(true);
    const pkg = join(box.root, "pkg");
    await mkdir(pkg);
    await cp(join(REPO, "package.json"), join(pkg, "package.json"));
    await symlink(join(REPO, "src"), join(pkg, "src"));
    await symlink(join(REPO, "node_modules"), join(pkg, "node_modules"));
    for (const f of [".env", ".env.local", "bunfig.toml", "boom.ts", "tsconfig.json"])
      await cp(join(box.project, f), join(pkg, f));
    // npm itself stays offline: no update check, no registry.
    const npm = ["--silent", "--offline", "--no-update-notifier"];
    expect(seenByCli(box, ["npm", "run", ...npm, "lemon", "--"], pkg)).toEqual(CLEAN);
    expect(seenByCli(box, ["npx", ...npm, "--no-install", "lemon"], pkg)).toEqual(CLEAN);
  });

  test("the npm launcher's Bun fallback passes the same flags", async () => {
    await using box = await project(true);
    const pkg = join(box.root, "lemon-skills");
    await mkdir(join(pkg, "bin"), { recursive: true });
    await cp(join(REPO, "scripts", "npm", "launcher.cjs"), join(pkg, "bin", "lemon.cjs"));
    await cp(join(REPO, "scripts", "npm", "platform.cjs"), join(pkg, "bin", "platform.cjs"));
    await writeFile(join(pkg, "bin", "targets.json"), "[]\n");
    await writeFile(join(pkg, "package.json"), JSON.stringify({ name: "lemon-skills", version: "0.0.0" }));
    await symlink(join(REPO, "src"), join(pkg, "src"));
    expect(seenByCli(box, ["node", join(pkg, "bin", "lemon.cjs")])).toEqual(CLEAN);
  });

  test("an embedder's `bun agent.ts`: createLemon() without env ignores them; an explicit env is trusted", async () => {
    await using box = await project(false);
    const agent = await box.write(
      join(box.project, "agent.ts"),
      [
        `import { createLemon } from ${JSON.stringify(join(REPO, "src", "core", "index.ts"))};`,
        "const lemon = createLemon(process.argv[2] === 'explicit' ? { env: process.env } : {});",
        "const skills = (await lemon.skills.list()).skills.map((s) => s.key).sort();",
        "const servers = (await lemon.mcp.config.list({ all: true })).effective.map((s) => s.name);",
        "await lemon.close();",
        "console.log(JSON.stringify({ skills, servers }));",
      ].join("\n"),
    );
    const safe = spawn(box, [process.execPath, agent]);
    expect(safe.stderr).toBe("");
    expect(JSON.parse(safe.stdout)).toEqual(CLEAN);
    // The control: Bun really did load both files into process.env.
    const explicit = spawn(box, [process.execPath, agent, "explicit"]);
    expect(JSON.parse(explicit.stdout)).toEqual({
      skills: ["dotenv-leak", "dotenv-leak-local", "project-skill"],
      servers: ["dotenv-evil"],
    });
  });
});

describe("processEnv: what createLemon() trusts by default", () => {
  /** `processEnv()` as a fresh `bun` started in `cwd` sees it, with the warnings it logs. */
  function seen(
    box: Sandbox,
    cwd: string,
    env: Record<string, string>,
  ): { env: Record<string, string>; warnings: string[] } {
    const script = [
      `import { processEnv } from ${JSON.stringify(join(REPO, "src", "core", "index.ts"))};`,
      "const warnings = [];",
      "const env = processEnv((e) => warnings.push(e.message));",
      "const pick = Object.fromEntries(Object.entries(env).filter(([k]) => k.startsWith('LEMON_') || k === 'OWN'));",
      "console.log(JSON.stringify({ env: pick, warnings }));",
    ].join("\n");
    const file = join(box.root, "probe.ts");
    writeFileSync(file, script);
    const p = Bun.spawnSync([process.execPath, file], {
      cwd,
      env: { ...box.env, ...env },
      stdout: "pipe",
      stderr: "pipe",
    });
    expect(p.stderr.toString()).toBe("");
    return JSON.parse(p.stdout.toString()) as { env: Record<string, string>; warnings: string[] };
  }

  test("keeps the real environment and the embedder's own .env values; drops what a .env could have set", async () => {
    await using box = await sandbox();
    await box.write(join(box.project, ".env"), "OWN=mine\nexport LEMON_HOME=/from/dotenv\n");
    const r = seen(box, box.project, { LEMON_AGENT_DIR: "/real/agent", LEMON_HOME: "/real/home" });
    // LEMON_HOME was set for real, but the .env names it too and Bun does not say which won.
    expect(r.env).toEqual({ OWN: "mine", LEMON_AGENT_DIR: "/real/agent" });
    expect(r.warnings).toEqual([
      `ignoring LEMON_HOME: ${join(box.project, ".env")} may have set it, and lemon never reads .env files`,
    ]);
  });

  test("a .env that cannot be read as a small file distrusts every location variable", async () => {
    await using box = await sandbox();
    await mkdir(join(box.project, ".env"));
    expect(seen(box, box.project, { LEMON_AGENT_DIR: "/real/agent" }).env).toEqual({});
    // Without --no-env-file but with no .env at all, nothing is dropped.
    expect(seen(box, box.root, { LEMON_AGENT_DIR: "/real/agent" }).env).toEqual({ LEMON_AGENT_DIR: "/real/agent" });
  });
});
