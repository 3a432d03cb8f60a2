import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createLemon, LemonError, type LemonOptions } from "../../src/core/index.ts";
import { sandbox } from "../support/sandbox.ts";

describe("createLemon", () => {
  test("everything comes from options: cwd, env, home, agent dir, clock", async () => {
    await using box = await sandbox();
    const agentDir = join(box.root, "agent");
    await box.skill(join(agentDir, "skill"), "g", { description: "a global skill in a custom agent dir" });
    const when = new Date("2026-03-04T05:06:07Z");
    await using lemon = createLemon({
      cwd: box.project,
      env: { PATH: process.env.PATH },
      homeDir: box.home,
      agentDir,
      now: () => when,
    });
    expect(lemon.context.agentDir).toBe(agentDir);
    expect(lemon.context.isolated).toBe(true);
    expect((await lemon.skills.list()).skills.map((s) => s.key)).toEqual(["g"]);
    await lemon.skills.disable("g");
    expect(JSON.parse(readFileSync(join(agentDir, "skills.json"), "utf8")).disabled).toEqual(["g"]);
  });

  test("two instances share nothing: each sees its own options and its own cache", async () => {
    await using box = await sandbox();
    const file = await box.skill(join(box.project, ".lemon/skill"), "s", {
      description: "first text of the shared skill",
    });
    const a = createLemon({ cwd: box.project, env: box.env });
    const b = createLemon({ cwd: box.project, env: { ...box.env, LEMON_AGENT_DIR: join(box.root, "other") } });
    expect((await a.skills.get("s"))!.description).toBe("first text of the shared skill");
    writeFileSync(file, "---\ndescription: second text of the shared skill\n---\nbody\n");
    expect((await b.skills.get("s"))!.description).toBe("second text of the shared skill");
    await a.skills.disable("s");
    expect((await a.skills.get("s"))!.enabled).toBe(false);
    expect((await b.skills.get("s"))!.enabled).toBe(true);
    await a.close();
    await b.close();
  });

  test("mcp.config edits lemon's own file and lists it redacted", async () => {
    await using box = await sandbox();
    await using lemon = createLemon({ cwd: box.project, env: box.env });
    const view = await lemon.mcp.config.add({
      name: "everything",
      type: "stdio",
      command: "node",
      args: ["server.js", "--secret=x"],
    });
    expect(view).toMatchObject({ name: "everything", type: "stdio", enabled: true });
    expect(JSON.stringify(view)).not.toContain("server.js");
    const listing = await lemon.mcp.config.list();
    expect(listing.servers.map((s) => s.name)).toEqual(["everything"]);
    expect(lemon.mcp.validate([{ name: "bad name!", type: "stdio", command: "x" }]).ok).toBe(false);
  });
});

describe("bad input rejects with LemonError INVALID_PARAMS, never a TypeError (cli.md §7, issue 9 §2.15)", () => {
  /** Runs `f` (sync or async) and returns the code of the LemonError it failed with. */
  async function codeOf(f: () => unknown): Promise<string> {
    try {
      await f();
    } catch (err) {
      expect(LemonError.is(err)).toBe(true);
      expect(err).toBeInstanceOf(LemonError);
      return (err as LemonError).code;
    }
    throw new Error("did not throw");
  }
  // Values a JavaScript caller (or a caller past `as`) can hand over.
  const wild = <T>(v: unknown): T => v as T;

  test("createLemon options", async () => {
    for (const options of [
      { cwd: 42 },
      { env: "x" },
      { env: { A: 1 } },
      { availableTools: "read" },
      { now: 5 },
      { log: {} },
      { home: [] },
      { skillRoots: { claude: 3 } },
      "x",
    ])
      expect([options, await codeOf(() => createLemon(wild(options)))]).toEqual([options, "INVALID_PARAMS"]);
  });

  test("the curator option is checked like every other option", async () => {
    await using box = await sandbox();
    for (const curator of [
      { intervalHours: "1" },
      { scope: "both" },
      { reviewCommand: "cat" },
      { minIdleHours: -1 },
      3,
    ])
      expect(await codeOf(() => createLemon({ cwd: box.project, env: box.env, curator: wild(curator) }))).toBe(
        "INVALID_PARAMS",
      );
    const accepted: (LemonOptions["curator"] | undefined)[] = [
      false,
      undefined,
      { intervalHours: 1, scope: "project" },
    ];
    for (const curator of accepted) {
      await using lemon = createLemon({
        cwd: box.project,
        env: box.env,
        ...(curator !== undefined ? { curator } : {}),
      });
      expect(typeof lemon.skills.list).toBe("function");
    }
  });

  test("every method of the instance", async () => {
    await using box = await sandbox();
    await using lemon = createLemon({ cwd: box.project, env: box.env });
    const calls: [string, () => unknown][] = [
      ["skills.list", () => lemon.skills.list(wild(5))],
      ["skills.list cwd", () => lemon.skills.list({ cwd: wild(5) })],
      ["skills.get", () => lemon.skills.get(wild(42))],
      ["skills.status", () => lemon.skills.status(wild(undefined))],
      ["skills.refresh", () => lemon.skills.refresh(wild("x"))],
      ["skills.enable", () => lemon.skills.enable(wild(null))],
      ["skills.disable", () => lemon.skills.disable("x", wild(7))],
      ["skills.audit", () => lemon.skills.audit(wild({}))],
      ["skills.findRelevant", () => lemon.skills.findRelevant(wild(null))],
      ["skills.findRelevant max", () => lemon.skills.findRelevant("q", { maxResults: wild("3") })],
      ["skills.search", () => lemon.skills.search(wild(1))],
      ["mcp.validate", () => lemon.mcp.validate(wild(null))],
      ["mcp.validate item", () => lemon.mcp.validate(wild("abc"))],
      ["mcp.config.add", () => lemon.mcp.config.add(wild(null))],
      ["mcp.config.remove", () => lemon.mcp.config.remove(wild(5))],
      ["mcp.config.enable", () => lemon.mcp.config.enable(wild(undefined))],
      ["mcp.config.list", () => lemon.mcp.config.list(wild({ cwd: 9 }))],
      ["renderPrompt", () => lemon.renderPrompt(wild({ cwd: 1 }))],
      ["renderRelevant", () => lemon.renderRelevant(wild(null))],
      ["renderRelevant item", () => lemon.renderRelevant(wild([1]))],
    ];
    for (const [name, call] of calls) expect([name, await codeOf(call)]).toEqual([name, "INVALID_PARAMS"]);
  });
});

test("a cwd that is not an existing directory is refused, and nothing is created for it (issue 9 §2.11)", async () => {
  await using box = await sandbox();
  const missing = join(box.root, "no", "such");
  const e = (() => {
    try {
      createLemon({ cwd: missing, env: box.env });
    } catch (err) {
      return err;
    }
  })();
  expect(LemonError.is(e) && e.code).toBe("INVALID_PARAMS");
  await using lemon = createLemon({ cwd: box.project, env: box.env });
  await expect(lemon.mcp.config.add({ name: "x", type: "stdio", command: "a" }, { cwd: missing })).rejects.toThrow(
    `option 'cwd': ${missing} is not a directory`,
  );
  await expect(lemon.skills.list({ cwd: join(box.project, ".git", "HEAD") })).rejects.toThrow("is not a directory");
  expect(existsSync(join(box.root, "no"))).toBe(false);
});
