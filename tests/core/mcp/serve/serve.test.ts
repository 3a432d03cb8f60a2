// `serveSkills` over Streamable HTTP (cli.md §3.8), in process, with the SDK's own client: the
// three tools, resources and their template, prompts, list_changed, usage, and the safety rules
// (never-served skills, containment, sanitising, the untrusted note).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ResourceListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import type { Lemon } from "../../../../src/core/index.ts";
import { serveSkills, type SkillServer } from "../../../../src/core/mcp/index.ts";
import {
  FIND_SKILLS_SCHEMA,
  READ_SKILL_SCHEMA,
  SKILL_MANAGE_SCHEMA,
} from "../../../../src/core/skills/tools/tool-schemas.gen.ts";
import { sandbox, type Sandbox } from "../../../support/sandbox.ts";
import { NEVER, SECRET, SERVED, serveFixture } from "./fixture.ts";
import { closeServed, connectClient, serveOverHttp, textOf } from "./helpers.ts";

const TOKEN = "test-token-0123456789";
const NOTE = "Note: this skill comes from an untrusted source";

let box: Sandbox;
let lemon: Lemon;
let server: SkillServer;
let client: Client;
let dirs: { global: string; project: string };

const connect = (url: string, token = TOKEN): Promise<Client> => connectClient(url, token, "serve-test");

beforeAll(async () => {
  box = await sandbox();
  dirs = await serveFixture(box);
  ({ lemon, server, client } = await serveOverHttp(box, TOKEN, "serve-test"));
});

afterAll(async () => {
  await closeServed({ client, server, lemon });
  await box?.[Symbol.asyncDispose]();
});

describe("tools", () => {
  test("find_skills and read_skill only, with lemon's own JSON Schemas and the listing guidance", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(["find_skills", "read_skill"]);
    expect(tools[0]!.inputSchema).toEqual(FIND_SKILLS_SCHEMA as never);
    expect(tools[1]!.inputSchema).toEqual(READ_SKILL_SCHEMA as never);
    expect(tools[0]!.description).toContain("read_skill");
    expect(client.getInstructions()).toContain("call find_skills");
  });

  test("find_skills: relevant served skills, never hidden, disabled or blocked ones", async () => {
    const r = await client.callTool({
      name: "find_skills",
      arguments: { query: "roll out kubernetes", max_results: 10 },
    });
    const skills = (r.structuredContent as { skills: { key: string; state: string }[] }).skills;
    expect(skills.map((s) => s.key)).toEqual(["k8s-rollout"]);
    expect(skills[0]).toMatchObject({ state: "active", untrusted: true });
    expect(textOf(r)).toContain("<relevant-skills>");
    for (const k of NEVER) expect(JSON.stringify(r)).not.toContain(k);
  });

  test("find_skills: a request nothing fits, and bad parameters", async () => {
    const none = await client.callTool({ name: "find_skills", arguments: { query: "zzqx vlorp" } });
    expect(none.isError).toBeFalsy();
    expect((none.structuredContent as { skills: unknown[] }).skills).toEqual([]);
    const bad = await client.callTool({ name: "find_skills", arguments: { query: "" } });
    expect([bad.isError, textOf(bad)]).toEqual([true, "Parameter 'query' must be a non-empty string."]);
    const max = await client.callTool({ name: "find_skills", arguments: { query: "x", max_results: 0 } });
    expect(max.isError).toBe(true);
  });

  test("find_skills: unknown arguments are refused as the schema says; max_results above 50 counts as 50 (skills.md §7.1)", async () => {
    const extra = await client.callTool({ name: "find_skills", arguments: { query: "roll out kubernetes", extra: 1 } });
    expect([extra.isError, textOf(extra)]).toEqual([
      true,
      "Unknown parameter 'extra'; find_skills takes 'query' and 'max_results'.",
    ]);
    expect(extra.structuredContent).toEqual({ error: "invalid_params" });
    expect(FIND_SKILLS_SCHEMA.additionalProperties).toBe(false);
    const many = await client.callTool({
      name: "find_skills",
      arguments: { query: "roll out kubernetes", max_results: 1000 },
    });
    expect(many.isError).toBeFalsy();
    expect((many.structuredContent as { skills: { key: string }[] }).skills.map((s) => s.key)).toEqual(["k8s-rollout"]);
    const frac = await client.callTool({ name: "find_skills", arguments: { query: "x", max_results: 2.5 } });
    expect(frac.isError).toBe(true);
  });

  test("read_skill: the agent tool's text and details, sanitised", async () => {
    const r = await client.callTool({ name: "read_skill", arguments: { key: "k8s-rollout" } });
    expect(r.isError).toBe(false);
    const text = textOf(r);
    expect(text).toStartWith("# Skill: k8s-rollout\nKey: k8s-rollout\n");
    expect(text).toContain(NOTE);
    expect(text).toContain("kubectl rollout status hidden");
    expect(text).not.toMatch(/[\u202E\u200B]/);
    expect(r.structuredContent).toMatchObject({ key: "k8s-rollout", view: "full", scope: "global" });
    const section = await client.callTool({
      name: "read_skill",
      arguments: { key: "k8s-rollout", view: "section", section: "steps" },
    });
    expect(textOf(section)).toContain("## Section: Steps");
    const file = await client.callTool({
      name: "read_skill",
      arguments: { key: "k8s-rollout", view: "file", path: "references/api.md" },
    });
    expect(textOf(file)).toContain("kubectl reference");
  });

  test("read_skill: never-served keys are unknown, with the served keys as suggestions", async () => {
    for (const key of NEVER) {
      const r = await client.callTool({ name: "read_skill", arguments: { key } });
      expect(r.isError).toBe(true);
      expect(textOf(r)).toStartWith(`Skill not found: ${key}\n\nAvailable skills:\n- browser-thing: `);
      for (const k of NEVER) expect(textOf(r)).not.toContain(`- ${k}:`);
    }
    const blank = await client.callTool({ name: "read_skill", arguments: {} });
    expect(textOf(blank)).toBe("Parameter 'key' must be a non-empty string.");
    const spaces = await client.callTool({ name: "read_skill", arguments: { key: "  " } });
    expect(textOf(spaces)).toBe("Parameter 'key' must be a non-empty string.");
  });

  test("read_skill view=file: traversal, links out of the bundle, FIFOs and large files refused", async () => {
    const file = async (path: string) =>
      textOf(await client.callTool({ name: "read_skill", arguments: { key: "k8s-rollout", view: "file", path } }));
    expect(await file("../pg-migrate/SKILL.md")).toBe("Path '../pg-migrate/SKILL.md' is outside the skill directory.");
    expect(await file("/etc/passwd")).toBe("Path '/etc/passwd' is outside the skill directory.");
    expect(await file("references/escape.md")).toBe("Path 'references/escape.md' is outside the skill directory.");
    expect(await file("references/pipe")).toBe("Could not read 'references/pipe': not a regular file");
    expect(await file("references/big.txt")).toBe("Could not read 'references/big.txt': too large");
  });

  test("skill_manage is absent without allowWrites and refused by name", async () => {
    const r = await client.callTool({ name: "skill_manage", arguments: { action: "report" } }).catch((e) => e);
    expect(String((r as Error).message ?? JSON.stringify(r))).toContain("unknown tool");
  });
});

describe("resources and prompts", () => {
  test("one skill:// resource per served skill; descriptions sanitised", async () => {
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri)).toEqual(SERVED.map((k) => `skill://${k}`));
    expect(resources.every((r) => r.mimeType === "text/markdown")).toBe(true);
    const sneaky = resources.find((r) => r.name === "sneaky")!;
    expect(sneaky.description).toBe("Use this to format markdown <tables> & lists.");
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual(["skill://{key}/{path}"]);
  });

  test("reading skill://<key> and skill://<key>/<path>: the untrusted note, then the file", async () => {
    const main = await client.readResource({ uri: "skill://pg-migrate" });
    const text = (main.contents[0] as { text: string }).text;
    expect(text).toStartWith(`${NOTE}`);
    expect(text).toContain('name: "pg-migrate"');
    const ref = await client.readResource({ uri: "skill://k8s-rollout/references/api.md" });
    expect((ref.contents[0] as { text: string }).text).toContain("kubectl reference");
  });

  test("resource URIs: never-served skills, traversal, links, FIFOs and large files refused", async () => {
    const refused = async (uri: string) => {
      const err = await client.readResource({ uri }).then(
        () => null,
        (e: Error) => e.message,
      );
      expect([uri, err]).not.toEqual([uri, null]);
      expect(err ?? "").not.toContain(SECRET);
      return err ?? "";
    };
    for (const k of NEVER) expect(await refused(`skill://${k}`)).toContain("Skill not found");
    expect(await refused("skill://k8s-rollout/../pg-migrate/SKILL.md")).toContain("outside the skill directory");
    expect(await refused("skill://k8s-rollout/%2e%2e/pg-migrate/SKILL.md")).toContain("outside the skill directory");
    expect(await refused("skill://k8s-rollout/references%2F..%2F..%2Fpg-migrate%2FSKILL.md")).toContain(
      "outside the skill directory",
    );
    expect(await refused("skill://k8s-rollout/%252e%252e/x")).toContain("not found");
    expect(await refused("skill://%2e%2e/etc/passwd")).toContain("Skill not found");
    expect(await refused("skill://k8s-rollout/references/escape.md")).toContain("outside the skill directory");
    expect(await refused("skill://k8s-rollout/references/pipe")).toContain("not a regular file");
    expect(await refused("skill://k8s-rollout/references/big.txt")).toContain("too large");
    expect(await refused("skill://k8s-rollout?x=1")).toContain("query strings");
    expect(await refused("file:///etc/passwd")).toContain("unknown resource");
  });

  test("prompts: skills_listing is the stable listing of the served skills; use_skill the body", async () => {
    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual(["skills_listing", "use_skill"]);
    const listing = await client.getPrompt({ name: "skills_listing" });
    const text = (listing.messages[0]!.content as { text: string }).text;
    expect(text).toStartWith("## Skills\n");
    expect(text).toContain('<skill key="k8s-rollout">');
    expect(text).toContain('<skill key="sneaky">Use this to format markdown &lt;tables&gt; &amp; lists.</skill>');
    for (const k of NEVER) expect(text).not.toContain(k);
    const use = await client.getPrompt({ name: "use_skill", arguments: { key: "k8s-rollout" } });
    const body = (use.messages[0]!.content as { text: string }).text;
    expect(use.messages[0]!.role).toBe("user");
    expect(body).toContain(NOTE);
    expect(body).toContain("# Rollout");
    expect(body).not.toContain("description:");
    const hidden = await client.getPrompt({ name: "use_skill", arguments: { key: "secret-hidden" } }).catch((e) => e);
    expect(String(hidden)).toContain("Skill not found");
  });
});

describe("live catalog and usage", () => {
  test("resources/list_changed when a skill appears, changes and disappears", async () => {
    let seen = 0;
    const changed = () =>
      new Promise<void>((resolve) => {
        const start = seen;
        const t = setInterval(() => {
          if (seen > start) {
            clearInterval(t);
            resolve();
          }
        }, 10);
      });
    client.setNotificationHandler(ResourceListChangedNotificationSchema, async () => void seen++);
    let next = changed();
    await box.skill(dirs.global, "fresh-one", { name: "fresh-one", description: "Use this to test live updates." });
    await next;
    expect((await client.listResources()).resources.map((r) => r.name)).toContain("fresh-one");
    next = changed();
    await box.skill(dirs.global, "fresh-one", { name: "fresh-one", description: "Use this to test a changed skill." });
    await next;
    const fresh = (await client.listResources()).resources.find((r) => r.name === "fresh-one");
    expect(fresh?.description).toBe("Use this to test a changed skill.");
    next = changed();
    rmSync(join(dirs.global, "fresh-one"), { recursive: true });
    await next;
    expect((await client.listResources()).resources.map((r) => r.name)).not.toContain("fresh-one");
  });

  test("disabling a served skill in skills.json withdraws it everywhere, with list_changed", async () => {
    const file = join(box.agentDir, "skills.json");
    const before = readFileSync(file, "utf8");
    let seen = 0;
    client.setNotificationHandler(ResourceListChangedNotificationSchema, async () => void seen++);
    try {
      writeFileSync(file, JSON.stringify({ version: 1, disabled: ["turned-off", "sneaky"] }));
      while (seen === 0) await Bun.sleep(10);
      expect((await client.listResources()).resources.map((r) => r.name)).not.toContain("sneaky");
      const r = await client.callTool({ name: "read_skill", arguments: { key: "sneaky" } });
      expect(textOf(r)).toStartWith("Skill not found: sneaky");
    } finally {
      seen = 0;
      writeFileSync(file, before);
      while (seen === 0) await Bun.sleep(10);
    }
    expect((await client.listResources()).resources.map((r) => r.name)).toContain("sneaky");
  });

  test("read_skill loads are recorded in the usage sidecar", async () => {
    await client.callTool({ name: "read_skill", arguments: { key: "k8s-rollout", view: "summary" } });
    const file = join(box.agentDir, "skills.usage.json");
    expect(existsSync(file)).toBe(true);
    expect(readFileSync(file, "utf8")).toContain("k8s-rollout");
  });
});

describe("options", () => {
  test("globalOnly: project skills are absent everywhere", async () => {
    const s = await serveSkills(lemon, { transport: "http", port: 0, token: TOKEN, globalOnly: true });
    const c = await connect(s.url!);
    try {
      expect((await c.listResources()).resources.map((r) => r.name)).not.toContain("pg-migrate");
      const r = await c.callTool({ name: "read_skill", arguments: { key: "pg-migrate" } });
      expect(textOf(r)).toStartWith("Skill not found: pg-migrate");
      const f = await c.callTool({ name: "find_skills", arguments: { query: "postgres migrations" } });
      expect((f.structuredContent as { skills: unknown[] }).skills).toEqual([]);
    } finally {
      await c.close();
      await s.close();
    }
  });

  test("allowWrites: skill_manage with its schema; a write lands in lemon's root", async () => {
    const s = await serveSkills(lemon, { transport: "http", port: 0, token: TOKEN, allowWrites: true });
    const c = await connect(s.url!);
    try {
      const { tools } = await c.listTools();
      expect(tools.map((t) => t.name)).toEqual(["find_skills", "read_skill", "skill_manage"]);
      expect(tools[2]!.inputSchema).toEqual(SKILL_MANAGE_SCHEMA as never);
      const content = "---\nname: made-here\ndescription: Use this to check writes over MCP.\n---\n# Made\n\nDo it.\n";
      const r = await c.callTool({
        name: "skill_manage",
        arguments: { action: "create", name: "made-here", content, scope: "global" },
      });
      expect([r.isError, textOf(r)]).toEqual([false, expect.stringContaining("Created skill 'made-here'")]);
      expect(existsSync(join(dirs.global, "made-here", "SKILL.md"))).toBe(true);
      // The writer can read what it wrote at once.
      const back = await c.callTool({ name: "read_skill", arguments: { key: "made-here", view: "summary" } });
      expect([back.isError, textOf(back)]).toEqual([false, expect.stringContaining("# Skill: made-here")]);
    } finally {
      await c.close();
      await s.close();
    }
  });
});
