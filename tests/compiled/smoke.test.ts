// Runs the compiled binary like a user would (DESIGN.md §5): built for the host from a throwaway
// copy of the tree that is deleted before the first run, started from a project directory whose
// `.env` and `bunfig.toml` must both be ignored, with a sandboxed HOME.
import { beforeAll, describe, expect, test } from "bun:test";
import { compiledBinary } from "./binary.ts";
import { existsSync } from "node:fs";
import { join } from "node:path";
import pkg from "../../package.json" with { type: "json" };
import { hostTarget } from "../../scripts/targets.ts";
import { TOP_USAGE } from "../../src/cli/top-usage.ts";
import { sandbox, type Sandbox } from "../support/sandbox.ts";

const host = hostTarget();
let binary = "";

beforeAll(async () => {
  binary = await compiledBinary();
}, 240_000);

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** A project holding a `.env` and a `bunfig.toml` that would change the result if either loaded. */
async function project(): Promise<Sandbox> {
  const box = await sandbox();
  // If .env were absorbed: lemon's home moves away and an extra global root appears.
  await box.write(
    join(box.project, ".env"),
    [
      "LEMON_HOME=/nonexistent-should-be-ignored",
      "LEMON_AGENT_DIR=/nonexistent-should-be-ignored/agent",
      `LEMON_CLAUDE_SKILLS_DIR=${join(box.root, "dotenv-root")}`,
      `LEMON_MCP_SERVERS='${JSON.stringify([{ name: "dotenv-evil", type: "stdio", command: "evil" }])}'`,
      "",
    ].join("\n"),
  );
  await box.skill(join(box.root, "dotenv-root"), "dotenv-leak");
  // If bunfig.toml were loaded: its preload throws before lemon runs; tsconfig.json paths likewise.
  await box.write(join(box.project, "bunfig.toml"), 'preload = ["./boom.ts"]\n');
  await box.write(
    join(box.project, "tsconfig.json"),
    JSON.stringify({ compilerOptions: { paths: { "*": ["./boom.ts"] } } }),
  );
  await box.write(join(box.project, "boom.ts"), 'throw new Error("bunfig.toml was loaded");\n');
  await box.skill(join(box.project, ".lemon", "skill"), "smoke-project");
  await box.skill(join(box.agentDir, "skill"), "smoke-global");
  return box;
}

function run(box: Sandbox, argv: string[]): Run {
  const p = Bun.spawnSync([binary, ...argv], {
    cwd: box.project,
    env: box.env,
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  return { code: p.exitCode ?? -1, stdout: p.stdout.toString(), stderr: p.stderr.toString() };
}

describe(`compiled binary (${host.name})`, () => {
  test("the build wrote the binary and removed nothing it needs", () => {
    expect(existsSync(binary)).toBe(true);
  });

  test("--version answers from the tiny entry", async () => {
    await using box = await project();
    const r = run(box, ["--version"]);
    expect(r).toEqual({ code: 0, stdout: `lemon ${pkg.version}\n`, stderr: "" });
  });

  test("version --json carries the build-time target", async () => {
    await using box = await project();
    const r = run(box, ["version", "--json"]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ ok: true, version: pkg.version, platform: host.name });
  });

  test("--help prints the top-level usage", async () => {
    await using box = await project();
    const r = run(box, ["--help"]);
    expect(r).toEqual({ code: 0, stdout: TOP_USAGE, stderr: "" });
  });

  test("a subcommand's --help loads the CLI entry inside the binary", async () => {
    await using box = await project();
    const r = run(box, ["skill", "--help"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("lemon skill");
    expect(r.stdout).toContain("list");
  });

  test("skill list --json lists the fixture project and ignores .env and bunfig.toml", async () => {
    await using box = await project();
    const r = run(box, ["skill", "list", "--json"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout) as { ok: boolean; cwd: string; skills: { key: string }[] };
    expect(doc.ok).toBe(true);
    expect(doc.cwd).toBe(box.project);
    const keys = doc.skills.map((s) => s.key);
    expect(keys).toContain("smoke-project");
    expect(keys).toContain("smoke-global");
    expect(keys).not.toContain("dotenv-leak");
    expect(r.stdout).not.toContain("nonexistent-should-be-ignored");
  });

  test("mcp list --all ignores LEMON_MCP_SERVERS from .env", async () => {
    await using box = await project();
    const r = run(box, ["mcp", "list", "--all", "--json"]);
    expect(r.code).toBe(0);
    expect((JSON.parse(r.stdout) as { effective: unknown[] }).effective).toEqual([]);
  });

  test("an unknown flag exits 2 with the error line and the usage lines", async () => {
    await using box = await project();
    const r = run(box, ["skill", "list", "--bogus"]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/^error \[INVALID_PARAMS\]: .*--bogus/m);
    expect(r.stderr).toMatch(/^USAGE lemon skill list/m);
    expect(r.stderr).toContain("run 'lemon skill list --help' for details");
  });

  test("an unknown top-level flag exits 2", async () => {
    await using box = await project();
    const r = run(box, ["--bogus"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error \[INVALID_PARAMS\]: /m);
    expect(r.stderr).toContain("lemon --help");
  });
});
