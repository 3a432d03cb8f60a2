// Software shorthand reaches the words skills spell out, in the query word's own coverage slot
// and at a reduced weight, so a synonym never counts as a second matched word.
import { expect, test } from "bun:test";
import { parseQuery, SCORING } from "../../../../src/core/skills/search/score.ts";
import { SYNONYMS, synonymsOf } from "../../../../src/core/skills/search/synonyms.ts";
import { fold, plainWords, tokenize } from "../../../../src/core/skills/search/tokenize.ts";

test("keys are folded words or phrases of plain words; values tokenise to something", () => {
  for (const [k, v] of Object.entries(SYNONYMS)) {
    expect(fold(k)).toBe(k);
    expect(plainWords(k).join(" ")).toBe(k);
    expect(tokenize(v).length).toBeGreaterThan(0);
  }
});

test("a word and a phrase are found; prototype names are not keys", () => {
  expect(synonymsOf("k8s pods", ["k8s", "pods"])).toEqual([["k8s", "kubernetes"]]);
  expect(synonymsOf("an end to end run", ["an", "end", "to", "end", "run"])).toEqual([["end to end", "e2e"]]);
  expect(synonymsOf("constructor tostring", ["constructor", "tostring"])).toEqual([]);
});

test("synonyms share the word's slot at a reduced weight", () => {
  const q = parseQuery("deploy to k8s");
  const own = q.terms.find((t) => t.term === "k8s")!;
  const syn = q.terms.find((t) => t.term === tokenize("kubernetes")[0])!;
  expect(syn.slot).toBe(own.slot);
  expect(syn.weight).toBeCloseTo(own.weight * SCORING.synonymWeight);
  expect(syn.expand).toBe(false);
  expect(q.slots).toBe(parseQuery("deploy to k8s").slots);
  expect(q.foreign).toBe(false);
});
