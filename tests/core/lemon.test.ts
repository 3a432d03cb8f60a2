import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createLemon } from "../../src/core/index.ts";
import { sandbox } from "../support/sandbox.ts";

describe("createLemon", () => {
  test("everything comes from options: cwd, env, home, agent dir, clock", async () => {
    await using box = await sandbox();
    const agentDir = join(box.root, "agent");
    await box.skill(join(agentDir, "skill"), "g", { description: "a global skill in a custom agent dir" });
    const when = new Date("2026-03-04T05:06:07Z");
    await using lemon = createLemon({ cwd: box.project, env: { PATH: process.env.PATH }, homeDir: box.home, agentDir, now: () => when });
    expect(lemon.context.agentDir).toBe(agentDir);
    expect(lemon.context.isolated).toBe(true);
    expect((await lemon.skills.list()).skills.map((s) => s.key)).toEqual(["g"]);
    await lemon.skills.disable("g");
    expect(JSON.parse(readFileSync(join(agentDir, "skills.json"), "utf8")).disabled).toEqual(["g"]);
  });

  test("two instances share nothing: each sees its own options and its own cache", async () => {
    await using box = await sandbox();
    const file = await box.skill(join(box.project, ".lemon/skill"), "s", { description: "first text of the shared skill" });
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
    const view = await lemon.mcp.config.add({ name: "everything", type: "stdio", command: "node", args: ["server.js", "--secret=x"] });
    expect(view).toMatchObject({ name: "everything", type: "stdio", enabled: true });
    expect(JSON.stringify(view)).not.toContain("server.js");
    const listing = await lemon.mcp.config.list();
    expect(listing.servers.map((s) => s.name)).toEqual(["everything"]);
    expect(lemon.mcp.validate([{ name: "bad name!", type: "stdio", command: "x" }]).ok).toBe(false);
  });
});
