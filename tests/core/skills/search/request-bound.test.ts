// The request bound (adversarial report F2) and invisible characters inside words (F10): every
// request is cut to a bounded head and tail of characters and of distinct terms before scoring,
// and zero-width characters that cannot carry meaning inside a word are dropped first.
import { describe, expect, test } from "bun:test";
import type { Lemon } from "../../../../src/core/index.ts";
import { MAX_QUERY_CHARS, MAX_QUERY_TERMS, queryText } from "../../../../src/core/skills/search/tokenize.ts";
import { sandbox, type Sandbox } from "../../../support/sandbox.ts";
import { lemonFor } from "./lemon-for.ts";

async function catalog(box: Sandbox): Promise<void> {
  await box.skill("global-skills", "kafka-topics", {
    name: "kafka-topics",
    description: "Create Kafka topics, tune partitions and inspect consumer lag.",
  });
  await box.skill("global-skills", "deploy-kubernetes", {
    name: "deploy-kubernetes",
    description: "Deploy services to Kubernetes clusters with rollouts.",
  });
  await box.skill("global-skills", "redis-cache", { name: "redis-cache", description: "Redis caching and eviction." });
}

const keys = async (l: Lemon, q: string, max = 3, cutoff = true) =>
  (await l.skills.findRelevant(q, { maxResults: max, cutoff })).map((e) => e.key);

/** `n` distinct nonsense words no skill contains. */
const nonsense = (n: number, from = 0) => Array.from({ length: n }, (_, i) => `zq${(from + i).toString(36)}`).join(" ");

describe("queryText (the request bound)", () => {
  test("a request within the bound is unchanged", () => {
    const q = "How do I inspect consumer lag on our kafka topics?";
    expect(queryText(q)).toBe(q);
    const long = "word ".repeat(MAX_QUERY_CHARS / 5);
    expect(queryText(long)).toBe(long);
  });

  test("a longer request keeps its head and tail, never more than the bound", () => {
    const head = "kafka ".repeat(1000);
    const tail = " redis".repeat(1000);
    for (const q of [head + "x".repeat(10_000_000) + tail, head + "middle ".repeat(1_500_000) + tail]) {
      const t = queryText(q);
      expect(t.length).toBeLessThanOrEqual(MAX_QUERY_CHARS + 1);
      expect(t.startsWith("kafka kafka")).toBe(true);
      expect(t.endsWith("redis redis")).toBe(true);
    }
  });

  test("the cut never splits a word or a surrogate pair", () => {
    const q = `${"a ".repeat(MAX_QUERY_CHARS / 4 - 1)}😀kubernetes${"b".repeat(MAX_QUERY_CHARS)}😀 end`;
    const t = queryText(q);
    expect(t).not.toContain("kubernet");
    expect(t.endsWith(" end")).toBe(true);
    expect(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(t)).toBe(false);
  });

  test("zero-width characters, soft hyphens, BOMs and tag characters inside words are dropped", () => {
    expect(queryText("de\u200dploy ku\u200bbernetes")).toBe("deploy kubernetes");
    expect(queryText("\ufeffka\u00adfka to\u2060pics")).toBe("kafka topics");
    expect(queryText("red\u{e0069}\u{e0067}is")).toBe("redis");
  });

  test("joiners inside scripts that spell with them, and bidi marks, are kept", () => {
    // Persian writes ZWNJ inside words and the index splits there too; Devanagari uses ZWJ.
    for (const q of ["می\u200cخواهم", "क्\u200dष", "שלום\u200fkafka", "kafka\u200e\u05e9\u05dc\u05d5\u05dd"])
      expect(queryText(q)).toBe(q);
  });
});

describe("findRelevant over bounded requests", () => {
  test("a word inside a zero-width-split request matches as if typed plainly", async () => {
    await using box = await sandbox();
    await catalog(box);
    await using l = lemonFor(box);
    const plain = await keys(l, "deploy kubernetes");
    expect(plain[0]).toBe("deploy-kubernetes");
    expect(await keys(l, "de\u200dploy ku\u200bbernetes")).toEqual(plain);
    expect(await keys(l, "de\u00adploy\u2060 kuber\ufeffnetes")).toEqual(plain);
  });

  test("a key padded with pages of spaces on both sides is still that key (rule 5)", async () => {
    await using box = await sandbox();
    await catalog(box);
    await using l = lemonFor(box);
    for (const pad of [" ", "\u00a0", "\t\n"]) {
      const p = pad.repeat(MAX_QUERY_CHARS);
      expect((await keys(l, `${p}redis-cache${p}`))[0]).toBe("redis-cache");
    }
  });

  test("only the head and the tail of a huge request are read", async () => {
    await using box = await sandbox();
    await catalog(box);
    await using l = lemonFor(box);
    const filler = "the offsite ran long and lunch was late again ".repeat(50_000);
    expect(await keys(l, `kafka consumer lag ${filler}`)).toContain("kafka-topics");
    expect(await keys(l, `${filler} inspect kafka consumer lag?`)).toContain("kafka-topics");
    // The middle of a 2.3 MB request is past the bound.
    const half = filler.slice(0, filler.length / 2);
    expect(await keys(l, `${half} kafka consumer lag ${half}`)).toEqual([]);
  });

  test("at most MAX_QUERY_TERMS distinct terms count: the first and last ones", async () => {
    await using box = await sandbox();
    await catalog(box);
    await using l = lemonFor(box);
    const n = MAX_QUERY_TERMS * 2;
    const before = nonsense(n / 2);
    const after = nonsense(n / 2, n);
    expect(`${before} kafka ${after}`.length).toBeLessThan(MAX_QUERY_CHARS);
    // Uncut lists: hundreds of unknown words would make the cut-off drop anything.
    expect(await keys(l, `${before} kafka ${after}`, 50, false)).toEqual([]);
    expect(await keys(l, `kafka ${before} ${after}`, 50, false)).toContain("kafka-topics");
    expect(await keys(l, `${before} ${after} kafka`, 50, false)).toContain("kafka-topics");
  });
});
