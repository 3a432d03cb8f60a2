// Bad requests (issue 16 "Bad input"): empty, whitespace-only, 100 KB, binary and mixed-script
// queries never throw, return at most maxResults entries, and still find what they name.
import { describe, expect, test } from "bun:test";
import type { Lemon } from "../../../../src/core/index.ts";
import { sandbox, type Sandbox } from "../../../support/sandbox.ts";
import { lemonFor } from "./lemon-for.ts";

async function catalog(box: Sandbox): Promise<void> {
  await box.skill("global-skills", "kafka-topics", {
    name: "kafka-topics",
    description: "Create Kafka topics, tune partitions and inspect consumer lag.",
  });
  await box.skill("global-skills", "pdf-forms", { name: "pdf-forms", description: "Fill and flatten PDF forms." });
  await box.skill("global-skills", "redis-cache", { name: "redis-cache", description: "Redis caching and eviction." });
}

const keys = async (l: Lemon, q: string, max = 3) =>
  (await l.skills.findRelevant(q, { maxResults: max })).map((e) => e.key);

describe("findRelevant with bad input", () => {
  test("empty and whitespace-only requests return []", async () => {
    await using box = await sandbox();
    await catalog(box);
    await using l = lemonFor(box);
    for (const q of ["", " ", "\t\n  \r\n", "\u00a0\u2003\u3000", "   ?!  ..."]) expect(await keys(l, q)).toEqual([]);
  });

  test("a 100 KB request answers within maxResults and still finds the skill it names", async () => {
    await using box = await sandbox();
    await catalog(box);
    await using l = lemonFor(box);
    const story = "Yesterday the quarterly offsite ran long and the catering was late again. ";
    const filler = story.repeat(Math.ceil(100_000 / story.length)).slice(0, 100_000);
    const got = await keys(l, `${filler} How do I inspect consumer lag on our kafka topics?`, 5);
    expect(got.length).toBeLessThanOrEqual(5);
    expect(got[0]).toBe("kafka-topics");
    // 100 KB of distinct nonsense words: every one is an unknown term.
    let words = "";
    for (let i = 0; words.length < 100_000; i++) words += `zq${(i * 7919).toString(36)}x `;
    expect((await keys(l, words, 3)).length).toBeLessThanOrEqual(3);
  });

  test("binary junk and control characters never throw", async () => {
    await using box = await sandbox();
    await catalog(box);
    await using l = lemonFor(box);
    let seed = 42;
    const bytes = new Uint8Array(4096).map(() => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) & 0xff);
    for (const q of [
      new TextDecoder("latin1").decode(bytes),
      new TextDecoder().decode(bytes),
      "\u0000\u0001kafka\u0000topics\u001b[31m",
      "\ud800\udfff\ud83d",
    ]) {
      const got = await keys(l, q, 3);
      expect(got.length).toBeLessThanOrEqual(3);
    }
    expect(await keys(l, "\u0000\u0001kafka\u0000topics\u001b[31m")).toContain("kafka-topics");
  });

  test("mixed-script requests find the skill their Latin words name", async () => {
    await using box = await sandbox();
    await catalog(box);
    await using l = lemonFor(box);
    expect((await keys(l, "kafka トピック の consumer lag を確認"))[0]).toBe("kafka-topics");
    expect((await keys(l, "Как проверить consumer lag в kafka?"))[0]).toBe("kafka-topics");
    expect((await keys(l, "redis 缓存 eviction ελέγχος"))[0]).toBe("redis-cache");
  });
});
