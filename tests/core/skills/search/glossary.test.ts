// The glossary is split by script so an ASCII query never folds the non-ASCII keys (Unicode
// normalisation costs about a millisecond on first use in a cold process). That split is only
// right while no key changes class when folded, and ASCII keys are written already folded.
import { expect, test } from "bun:test";
import { ENTRIES, glossaryExpansion } from "../../../../src/core/skills/search/glossary.ts";
import { fold } from "../../../../src/core/skills/search/tokenize.ts";

const NON_ASCII = /[^\x00-\x7f]/;

test("no glossary key changes between ASCII and non-ASCII when folded; ASCII keys are folded already", () => {
  const wrong = Object.keys(ENTRIES).filter(
    (k) => NON_ASCII.test(k) !== NON_ASCII.test(fold(k)) || (!NON_ASCII.test(k) && fold(k) !== k),
  );
  expect(wrong).toEqual([]);
});

test("ASCII and non-ASCII keys both expand, alone and in one query", () => {
  expect(glossaryExpansion("datei", ["datei"])).toBe("file");
  expect(glossaryExpansion(fold("テスト"), [])).toBe("test");
  // A compound word, a multi-word key and a CJK key together.
  const q = fold("sicherheitsdatenbank base de datos 测试");
  const words = new Set(glossaryExpansion(q, ["sicherheitsdatenbank", "base", "de", "datos"]).split(" "));
  for (const w of ["database", "data", "test"]) expect(words.has(w)).toBe(true);
});
