// Contractions and possessives (issue 16): an apostrophe must not leave fragments ("s", "don", "t")
// that match any skill with a possessive; the word itself stays, ASCII or typographic apostrophe.
import { expect, test } from "bun:test";
import { nameTerms, tokenize } from "../../../../src/core/skills/search/tokenize.ts";

test("contractions and possessives give their word, never their fragments", () => {
  expect(tokenize("what's the weather")).toEqual(["weather"]);
  expect(tokenize("don't, can't, isn't, it's, let's, I'm, you're, we've, they'll, I'd")).toEqual([]);
  expect(tokenize("the user's files")).toEqual(["file"]);
  expect(tokenize("What’s Zoë’s café")).toEqual(["zoe", "cafe"]);
  expect(tokenize("Bun's file API")).toEqual(["bun", "file", "api"]);
  expect(nameTerms("what's new")).toEqual(["new"]);
});

test("the same words typed without the apostrophe are dropped too", () => {
  expect(tokenize("whats dont cant wont")).toEqual([]);
});

test("an apostrophe that is not a contraction still splits", () => {
  expect(tokenize("rock'n'roll")).toEqual(["rock", "n", "roll"]);
  expect(tokenize("the '90s")).toEqual(["90s"]);
});
