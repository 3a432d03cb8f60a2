// One declared parser (issue 10 §3, §5, §6; cli.md §1.2–§1.3, §3.1–§3.2): common flags anywhere,
// --version anywhere, usage lines on usage errors, one integer rule, help from the definitions,
// UNAVAILABLE for the contract's commands this version lacks, Claude Code's `mcp add` spelling.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import pkg from "../../package.json" with { type: "json" };
import { memoryIo } from "../../src/cli/io.ts";
import { runCli } from "../../src/cli/run.ts";
import { TOP_USAGE } from "../../src/cli/top-usage.ts";
import { COMMON_FLAGS } from "../../src/cli/command.ts";
import { sandbox, type Sandbox } from "../support/sandbox.ts";

const mcpFile = (box: Sandbox, global = false) =>
  JSON.parse(
    readFileSync(global ? join(box.agentDir, "mcp.json") : join(box.project, ".lemon", "mcp.json"), "utf8"),
  ) as {
    servers: Record<string, unknown>[];
  };

describe("common flags and --version anywhere (cli.md §1.3)", () => {
  test("--json, --cwd and --quiet before the command equal them after it", async () => {
    await using box = await sandbox();
    await box.skill(join(box.project, ".lemon", "skill"), "here");
    const after = await box.cli(["skill", "list", "--json", "--cwd", box.project]);
    for (const argv of [
      ["--json", "skill", "list", "--cwd", box.project],
      ["--cwd", box.project, "--json", "skill", "list"],
      ["skill", "--json", "list", `--cwd=${box.project}`],
    ]) {
      const r = await box.cli(argv, { cwd: box.root });
      expect([argv, r.code, r.stdout]).toEqual([argv, 0, after.stdout]);
    }
    expect((await box.cli(["--quiet", "skill", "list"], { cwd: box.root })).stderr).toBe("");
  });

  test("--version wins wherever it stands", async () => {
    await using box = await sandbox();
    for (const argv of [
      ["skill", "list", "--version"],
      ["mcp", "--version"],
      ["--json", "--version"],
    ]) {
      const r = await box.cli(argv);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(pkg.version);
    }
  });

  test("the top-level page names every command and common flag", () => {
    for (const word of ["skill", "mcp", "version", "help"]) expect(TOP_USAGE).toContain(`  ${word} `);
    for (const [name, f] of Object.entries(COMMON_FLAGS))
      expect(TOP_USAGE).toContain("defaultOn" in f ? `--no-${name}` : `--${name}`);
  });
});

describe("usage errors (cli.md §1.2)", () => {
  test("print the error, the command's usage line and where to read more", async () => {
    await using box = await sandbox();
    const cases: [string[], string][] = [
      [
        ["skill", "inspect"],
        "error [INVALID_PARAMS]: missing argument <KEY>\n" +
          "USAGE lemon skill inspect <KEY> [OPTIONS]\nrun 'lemon skill inspect --help' for details\n",
      ],
      [
        ["skill", "frob"],
        "error [INVALID_PARAMS]: unknown command 'skill frob'\n" +
          "USAGE lemon skill <command> [OPTIONS]\nrun 'lemon skill --help' for details\n",
      ],
      [
        ["frob"],
        "error [INVALID_PARAMS]: unknown command 'frob'\n" +
          "USAGE lemon <command> [OPTIONS]\nrun 'lemon --help' for details\n",
      ],
      [
        ["mcp", "add", "x", "--stdio"],
        "error [INVALID_PARAMS]: option '--stdio' needs a value\n" +
          "USAGE lemon mcp add <NAME> [TARGET] [ARGS …] [OPTIONS] [-- ARGS …]\n" +
          "run 'lemon mcp add --help' for details\n",
      ],
    ];
    cases.push([
      ["--quiet"],
      "error [INVALID_PARAMS]: missing command\nUSAGE lemon <command> [OPTIONS]\nrun 'lemon --help' for details\n",
    ]);
    for (const [argv, stderr] of cases) {
      const r = await box.cli(argv);
      expect([argv, r.code, r.stdout, r.stderr]).toEqual([argv, 2, "", stderr]);
    }
  });

  test("words after -- are positionals for commands without an argument vector", async () => {
    await using box = await sandbox();
    const r = await box.cli(["skill", "relevant", "--json", "--", "--weird", "query"]);
    expect([r.code, r.json().query]).toEqual([0, "--weird query"]);
    expect((await box.cli(["skill", "list", "--", "x"])).stderr).toStartWith(
      "error [INVALID_PARAMS]: unexpected argument 'x'",
    );
  });

  test("one integer rule: 0, -1, 2.5 and abc are refused alike", async () => {
    await using box = await sandbox();
    for (const v of ["0", "-1", "2.5", "abc", ""]) {
      const r = await box.cli(["skill", "relevant", "helm", "--max", v, "--json"]);
      expect([v, r.code, JSON.parse(r.stderr).error.message]).toEqual([
        v,
        2,
        `--max must be an integer of at least 1 (got '${v}')`,
      ]);
    }
    expect((await box.cli(["skill", "relevant", "helm", "--max", "2"])).code).toBe(0);
    expect((await box.cli(["mcp", "add", "x", "--stdio", "a", "--timeout-ms", "0"])).code).toBe(2);
  });

  test("no colour in errors or help, even without NO_COLOR", async () => {
    await using box = await sandbox();
    const { NO_COLOR: _, ...env } = box.env;
    for (const argv of [
      ["skill", "list", "--bogus"],
      ["skill", "list", "--help"],
      ["skill", "inspect", "nope"],
    ]) {
      const m = memoryIo({ env, cwd: box.project });
      await runCli(argv, m.io);
      expect(m.stdout() + m.stderr()).not.toContain("\u001b");
    }
  });
});

describe("help comes from the definitions", () => {
  test("real flag names, value placeholders, repeatable flags and required arguments", async () => {
    await using box = await sandbox();
    const list = (await box.cli(["skill", "list", "--help"])).stdout;
    expect(list).toContain("USAGE lemon skill list [OPTIONS]\n");
    expect(list).toMatch(/--local, --project +Project scope/);
    expect(list).toContain("--tools <a,b>");
    expect(list).toContain("--cwd <path>");
    const inspect = (await box.cli(["help", "skill", "info"])).stdout;
    expect(inspect).toContain("USAGE lemon skill inspect <KEY> [OPTIONS]\n");
    const add = (await box.cli(["mcp", "add", "--help"])).stdout;
    expect(add).toMatch(/-t, --transport <type> +Claude Code's spelling of the transport \(stdio, http, sse\)/);
    expect(add).toMatch(/-e, --env <K=V> +Child environment variable \(repeatable\)/);
    expect((await box.cli(["skill", "lint", "--help"])).stdout).toContain("[PATH …]");
    expect((await box.cli(["skill", "lint", "--help"])).stdout).toContain("--no-audit");
  });

  test("a group's help lists its commands and never the unavailable ones", async () => {
    await using box = await sandbox();
    const skill = (await box.cli(["skill", "--help"])).stdout;
    expect(skill).toContain("USAGE lemon skill <command> [OPTIONS]");
    expect(skill).toMatch(/inspect, info +Show everything/);
    for (const missing of ["draft"]) expect(skill).not.toMatch(new RegExp(`^  ${missing} `, "m"));
  });
});

describe("commands the contract has and this version does not (issue 10 §5)", () => {
  test("answer UNAVAILABLE with exit 1, in human and JSON output", async () => {
    await using box = await sandbox();
    const cases: [string[], string][] = [
      [["blueprints"], "blueprints"],
      [["automations", "list"], "automations"],
    ];
    for (const [argv, name] of cases) {
      const r = await box.cli(argv);
      expect([argv, r.code, r.stdout, r.stderr]).toEqual([
        argv,
        1,
        "",
        `error [UNAVAILABLE]: 'lemon ${name}' is not available in this version\n`,
      ]);
    }
    const j = await box.cli(["--json", "skill", "draft", "list"]);
    expect(JSON.parse(j.stderr)).toEqual({
      ok: false,
      error: { code: "UNAVAILABLE", message: "'lemon skill draft' is not available in this version" },
    });
  });
});

describe("lemon mcp add in Claude Code's spelling (cli.md §3.1)", () => {
  test("NAME CMD ARGS, NAME -- CMD ARGS, -t http NAME URL, -e, -H and -s user", async () => {
    await using box = await sandbox();
    expect((await box.cli(["mcp", "add", "git", "uvx", "mcp-server-git"])).code).toBe(0);
    expect((await box.cli(["mcp", "add", "-e", "A=1", "--env", "B=2", "fs", "--", "npx", "-y", "pkg"])).code).toBe(0);
    expect(
      (await box.cli(["mcp", "add", "-t", "http", "api", "https://api.example.com/mcp", "-H", "X-Team: core"])).code,
    ).toBe(0);
    expect(mcpFile(box).servers).toEqual([
      { name: "git", type: "stdio", command: "uvx", args: ["mcp-server-git"], approval: "always" },
      { name: "fs", type: "stdio", command: "npx", args: ["-y", "pkg"], env: { A: "1", B: "2" }, approval: "always" },
      {
        name: "api",
        type: "http",
        url: "https://api.example.com/mcp",
        headers: { "X-Team": "core" },
        approval: "always",
      },
    ]);
    expect((await box.cli(["mcp", "add", "-s", "user", "u", "--stdio", "x"])).code).toBe(0);
    expect(mcpFile(box, true).servers.map((s) => s.name)).toEqual(["u"]);
    expect((await box.cli(["mcp", "add", "-s", "local", "--global", "v", "--stdio", "x"])).code).toBe(2);
    expect((await box.cli(["mcp", "add", "-t", "sse", "w"])).code).toBe(2);
  });

  test("--stdio with a shell string is refused with the hint", async () => {
    await using box = await sandbox();
    const r = await box.cli(["mcp", "add", "x", "--stdio", "npx -y pkg"]);
    expect([r.code, r.stderr]).toEqual([
      2,
      "error [INVALID_PARAMS]: --stdio takes the program only\n" +
        "hint: pass arguments after --: lemon mcp add NAME --stdio npx -- -y pkg\n",
    ]);
  });

  test("the credential hint only when a credential-like value was given, and never with --quiet", async () => {
    await using box = await sandbox();
    const HINT = "hint: shell history may retain credential arguments\n";
    expect((await box.cli(["mcp", "add", "a", "--stdio", "x"])).stderr).toBe("");
    expect((await box.cli(["mcp", "add", "b", "--stdio", "x", "-e", "TOKEN=s3cret"])).stderr).toBe(HINT);
    expect((await box.cli(["mcp", "add", "c", "--http", "https://h.example/mcp", "--header", "K: v"])).stderr).toBe(
      HINT,
    );
    expect((await box.cli(["mcp", "add", "d", "--stdio", "x", "-e", "TOKEN=s3cret", "--quiet"])).stderr).toBe("");
  });
});

describe("listings say what they do not show", () => {
  test("mcp list hints at servers from other tools; --quiet silences it", async () => {
    await using box = await sandbox();
    await box.write(join(box.project, ".mcp.json"), JSON.stringify({ mcpServers: { imported: { command: "x" } } }));
    expect((await box.cli(["mcp", "add", "own", "--stdio", "y"])).code).toBe(0);
    const r = await box.cli(["mcp", "list"]);
    expect(r.stdout.split("\n")[1]!.startsWith("own ")).toBe(true);
    expect(r.stderr).toBe("hint: 1 more servers come from other tools; see 'lemon mcp list --all'\n");
    expect((await box.cli(["mcp", "list", "--quiet"])).stderr).toBe("");
    expect((await box.cli(["mcp", "list", "--json"])).stderr).toBe("");
  });

  test("lemon's own servers never count as other tools: unnamed entries and the global file", async () => {
    await using box = await sandbox();
    await box.write(
      join(box.project, ".lemon", "mcp.json"),
      JSON.stringify({ servers: [{ command: "uvx", args: ["mcp-server-git"] }] }),
    );
    expect((await box.cli(["mcp", "add", "g", "--stdio", "y", "--global"])).code).toBe(0);
    const r = await box.cli(["mcp", "list"]);
    expect(r.stdout).toContain("#0");
    expect(r.stderr).toBe("");
  });

  test("skill list --all shows an invalid skill's whole message and its path", async () => {
    await using box = await sandbox();
    const long = `${"x".repeat(70)}: y`;
    const file = await box.skill(
      join(box.project, ".lemon", "skill"),
      "bad",
      `---\nname: bad\ndescription: [${long}\n---\nbody\n`,
    );
    const r = await box.cli(["skill", "list", "--all"]);
    const row = r.stdout.split("\n").find((l) => l.startsWith("bad "))!;
    expect(row).toContain(`(${dirname(file)})`);
    expect(row).not.toContain("…");
  });

  test("audit of an invalid skill says it is invalid and why, not 'not found'", async () => {
    await using box = await sandbox();
    await box.skill(join(box.project, ".lemon", "skill"), "bad", "---\nname: bad\n");
    const r = await box.cli(["skill", "audit", "bad"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toStartWith(
      "error [INVALID_REQUEST]: skill 'bad' is invalid: parse_error: frontmatter is not closed (",
    );
  });

  test("lint lines up its columns across skills", async () => {
    await using box = await sandbox();
    const dir = join(box.project, ".lemon", "skill");
    await box.skill(dir, "a");
    await box.skill(dir, "a-much-longer-key", { name: "a-much-longer-key", description: "short" });
    const r = await box.cli(["skill", "lint", dir, "--no-audit"]);
    const heads = r.stdout.split("\n").filter((l) => /^a/.test(l));
    expect(heads).toHaveLength(2);
    const at = heads.map((l) => l.search(/ (ok|FAIL) /));
    expect(at[0]).toBe(at[1]);
  });
});
