// The "nothing fits" cut-off (issue 16 item 3): weak matches are dropped by default, the uncut
// list is one option away, maxResults stays an upper bound, and the §7.1 rules still hold.
import { describe, expect, test } from "bun:test";
import { cp } from "node:fs/promises";
import { join } from "node:path";
import type { Lemon } from "../../../../src/core/index.ts";
import { corpusLemon } from "../../../../scripts/bench/relevance-quality.ts";
import { CORPUS_DIR, referenceCorpusAvailable } from "../../../support/corpus.ts";
import { sandbox, type Sandbox } from "../../../support/sandbox.ts";
import { lemonFor } from "./lemon-for.ts";

const keys = async (l: Lemon, q: string, o: { maxResults?: number; cutoff?: boolean } = {}) =>
  (await l.skills.findRelevant(q, o)).map((e) => e.key);

/** Fourteen skills of 1,500 made-up words each: a catalog as broad as the corpus (21,000 terms). */
async function broadCatalog(box: Sandbox): Promise<void> {
  for (let s = 0; s < 14; s++) {
    let words = "";
    for (let i = 0; i < 1500; i++) words += `q${(s * 1500 + i).toString(36)}z `;
    await box.skill("global-skills", `filler-${s}`, { name: `filler-${s}`, description: "Filler." }, `${words}\n`);
  }
}

describe("cut-off", () => {
  test("a passing mention deep in a long body is cut in a broad catalog; cutoff: false returns it", async () => {
    await using box = await sandbox();
    await broadCatalog(box);
    const body = `${"Partitions, brokers, offsets and consumer groups explained step by step. ".repeat(60)}A zebra once.\n`;
    await box.skill(
      "global-skills",
      "kafka-topics",
      { name: "kafka-topics", description: "Create Kafka topics and inspect consumer lag." },
      body,
    );
    await using l = lemonFor(box);
    const q = "zebra stripes painting ideas for the bedroom wall";
    expect(await keys(l, q)).toEqual([]);
    expect(await keys(l, q, { cutoff: false })).toEqual(["kafka-topics"]);
    expect(await keys(l, "inspect consumer lag of kafka topics")).toEqual(["kafka-topics"]);
  });

  test("a narrow catalog is cut less: its scores say little about what fits", async () => {
    await using box = await sandbox();
    const d = (what: string) => ({ description: `Use this skill to ${what} in production.` });
    await box.skill("global-skills", "managed", { name: "managed", ...d("rotate kubernetes certificates") });
    await box.skill("global-skills", "other", { name: "other", ...d("rotate kubernetes secrets") });
    await box.write(join(box.agentDir, "skills.json"), JSON.stringify({ disabled: ["other"] }));
    await using l = lemonFor(box);
    expect(await keys(l, "rotate kubernetes secrets")).toEqual(["managed"]);
  });

  test("maxResults stays an upper bound with and without the cut-off", async () => {
    await using box = await sandbox();
    for (let i = 0; i < 8; i++)
      await box.skill("global-skills", `yaml-lint-${i}`, { name: `yaml-lint-${i}`, description: "Lint YAML files." });
    await using l = lemonFor(box);
    expect((await keys(l, "lint yaml", { maxResults: 5 })).length).toBe(5);
    expect((await keys(l, "lint yaml", { maxResults: 5, cutoff: false })).length).toBe(5);
  });

  test("a query equal to a key or name is never cut, nor a keywords-only match", async () => {
    await using box = await sandbox();
    const body = `${"Unrelated words about gardening, tomatoes and compost heaps. ".repeat(80)}\n`;
    await box.skill("global-skills", "zz-notes", { name: "Field Notes", description: "Gardening notes." }, body);
    await box.skill("global-skills", "blimp-tool", {
      name: "blimp-tool",
      description: "Airship maintenance.",
      keywords: ["zeppelin"],
    });
    await using l = lemonFor(box);
    expect((await keys(l, "zz-notes"))[0]).toBe("zz-notes");
    expect((await keys(l, "  FIELD NOTES "))[0]).toBe("zz-notes");
    expect(await keys(l, "zeppelin")).toEqual(["blimp-tool"]);
  });

  test("the example project (3 skills): one incidental word or a contraction's fragment is cut, its README queries are not", async () => {
    await using box = await sandbox();
    // The repository's own example skills, as the README quickstart lists them.
    await cp(join(import.meta.dir, "../../../../.lemon/skill"), join(box.project, ".lemon/skill"), { recursive: true });
    await using l = lemonFor(box);
    for (const q of [
      "bake a chocolate cake",
      "what's the weather in Paris tomorrow",
      "what's it's don't user's",
      "fix flaky cypress tests on CI",
      "our cypress suite is flaky on CI",
    ])
      expect(await keys(l, q)).toEqual([]);
    expect((await keys(l, "bake a chocolate cake", { cutoff: false })).length).toBeGreaterThan(0);
    expect(await keys(l, "stream a big file to disk with Bun")).toEqual(["bun-file-io"]);
    expect((await keys(l, "design REST endpoints with pagination"))[0]).toBe("api-design");
    expect(await keys(l, "write a new SKILL.md")).toEqual(["lemon-skill-authoring"]);
    expect((await keys(l, "what's the best way to read a json file with Bun"))[0]).toBe("bun-file-io");
  });

  test("the option is checked like the others", async () => {
    await using box = await sandbox();
    await using l = lemonFor(box);
    await expect(l.skills.findRelevant("x", { cutoff: "no" as unknown as boolean })).rejects.toThrow();
  });
});

describe.skipIf(!referenceCorpusAvailable())("cut-off on the corpus", () => {
  test("requests no corpus skill answers come back empty; the uncut list still has results", async () => {
    await using env = await corpusLemon(CORPUS_DIR);
    // Written for this test, not taken from a labelled set: nothing in the corpus is about these.
    for (const q of [
      "knit a wool scarf with a cable pattern for my grandmother",
      "which wine goes well with grilled salmon",
    ]) {
      expect(await keys(env.lemon, q)).toEqual([]);
      expect((await keys(env.lemon, q, { cutoff: false })).length).toBeGreaterThan(0);
    }
    // A key is never cut, whatever else the scores say.
    expect((await keys(env.lemon, "algorithmic-art"))[0]).toBe("algorithmic-art");
  });
});
