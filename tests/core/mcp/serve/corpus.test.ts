// `lemon mcp serve` over a slice of the real corpus (two of its sources, ~600 skills, as global
// roots read in place): every displayable skill is one resource, listed in pages; find_skills
// answers exactly what findRelevant answers in process; read_skill and resources read real files.
// Skipped, with one notice, when no corpus is present.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { isDisplayable, type Lemon } from "../../../../src/core/index.ts";
import type { SkillServer } from "../../../../src/core/mcp/index.ts";
import { CORPUS_DIR, corpusAvailable } from "../../../support/corpus.ts";
import { sandbox, type Sandbox } from "../../../support/sandbox.ts";
import { closeServed, serveOverHttp } from "./helpers.ts";

const SOURCES = ["github-awesome-copilot", "wshobson-agents"];
const have = corpusAvailable() && SOURCES.every((s) => existsSync(join(CORPUS_DIR, s)));
const TOKEN = "corpus-token";
const QUERIES = join(import.meta.dir, "../../../fixtures/relevance/queries.json");

let box: Sandbox;
let lemon: Lemon;
let server: SkillServer;
let client: Client;

beforeAll(async () => {
  if (!have) return;
  box = await sandbox();
  box.env.LEMON_SNAPSHOT_WORKER = "never";
  box.env.LEMON_CLAUDE_SKILLS_DIR = join(CORPUS_DIR, SOURCES[0]!);
  box.env.LEMON_CODEX_SKILLS_DIR = join(CORPUS_DIR, SOURCES[1]!);
  ({ lemon, server, client } = await serveOverHttp(box, TOKEN, "corpus", "1"));
});

afterAll(async () => {
  await closeServed({ client, server, lemon });
  await box?.[Symbol.asyncDispose]();
});

describe.skipIf(!have)("a corpus slice as the catalog", () => {
  test("every displayable skill is one resource, in pages of at most 500", async () => {
    const shown = (await lemon.skills.list()).skills.filter(isDisplayable).map((e) => e.key);
    expect(shown.length).toBeGreaterThan(500);
    const uris: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await client.listResources(cursor !== undefined ? { cursor } : {});
      expect(page.resources.length).toBeLessThanOrEqual(500);
      uris.push(...page.resources.map((r) => r.uri));
      cursor = page.nextCursor;
      pages++;
    } while (cursor !== undefined);
    expect(pages).toBe(2);
    expect(uris).toEqual([...shown].sort().map((k) => `skill://${encodeURIComponent(k)}`));
  });

  test("find_skills answers what findRelevant answers in process, for the judged queries", async () => {
    const queries = (JSON.parse(readFileSync(QUERIES, "utf8")) as { query: string }[]).slice(0, 40);
    for (const { query } of queries) {
      const inProcess = (await lemon.skills.findRelevant(query, { maxResults: 5 })).map((e) => e.key);
      const r = await client.callTool({ name: "find_skills", arguments: { query, max_results: 5 } });
      const served = (r.structuredContent as { skills: { key: string }[] }).skills.map((s) => s.key);
      expect([query, served]).toEqual([query, inProcess]);
    }
  });

  test("read_skill and skill:// read the corpus files", async () => {
    const { resources } = await client.listResources();
    for (const res of resources.slice(0, 10)) {
      const r = await client.callTool({ name: "read_skill", arguments: { key: res.name, view: "summary" } });
      expect([res.name, r.isError]).toEqual([res.name, false]);
      const file = await client.readResource({ uri: res.uri });
      expect((file.contents[0] as { text: string }).text.length).toBeGreaterThan(0);
    }
  });
});
