// Which way the skills modules depend on each other (issue 10 §1), checked on every kind of
// import (static, import(), type-only):
// - the catalog (the files directly in src/core/skills) is the base: it never names search/ or
//   audit/. Only the registry, which composes the instance API, and the entry reach both;
// - search and audit are built on the catalog and never name each other;
// - lint knows nothing of the audit: the audit uses lint (its lint rule), the registry adds the
//   audit's verdict to lint's report.
// - every SKILL.md is read by skill-file.ts: nothing else calls the frontmatter parser or the
//   manifest builder.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { chain, importsOf, REPO, sourceFiles, staticGraph, stripComments } from "../../arch/graph.ts";

const SKILLS = "src/core/skills/";
const COMPOSERS = new Set([`${SKILLS}registry.ts`, `${SKILLS}index.ts`]);
const catalog = sourceFiles("src/core/skills").filter((f) => !f.slice(SKILLS.length).includes("/"));
const named = (files: readonly string[], under: (to: string) => boolean) =>
  files.flatMap((f) =>
    importsOf(f)
      .filter((e) => under(e.to))
      .map((e) => `${f} -> ${e.to} (${e.kind})`),
  );

describe("skills layering", () => {
  test("the catalog names neither search/ nor audit/ (only the registry composes them)", () => {
    expect(catalog.length).toBeGreaterThan(10);
    const base = catalog.filter((f) => !COMPOSERS.has(f));
    expect(named(base, (to) => to.startsWith(`${SKILLS}search/`) || to.startsWith(`${SKILLS}audit/`))).toEqual([]);
  });

  test("search and audit do not name each other", () => {
    expect(named(sourceFiles(`${SKILLS}search`), (to) => to.startsWith(`${SKILLS}audit/`))).toEqual([]);
    expect(named(sourceFiles(`${SKILLS}audit`), (to) => to.startsWith(`${SKILLS}search/`))).toEqual([]);
  });

  test("one SKILL.md reader: only skill-file.ts parses frontmatter into a manifest", () => {
    const PARSERS = /\b(parseSkillText|parseYamlReference|buildManifest)\s*\(/;
    const own = new Set([`${SKILLS}skill-file.ts`, `${SKILLS}frontmatter.ts`, `${SKILLS}manifest.ts`]);
    const callers = sourceFiles("src/core")
      .filter((f) => !own.has(f))
      .filter((f) => PARSERS.test(stripComments(readFileSync(join(REPO, f), "utf8"))));
    expect(callers).toEqual([]);
  });

  test("a listing loads no TypeBox and no write code up front (the registry, catalog and settings)", () => {
    const WRITE = ["atomic", "update", "lock"].map((m) => `src/core/fsx/${m}.ts`).concat("src/core/schema/check.ts");
    for (const entry of [`${SKILLS}registry.ts`, `${SKILLS}catalog.ts`, `${SKILLS}settings.ts`]) {
      const g = staticGraph(entry);
      const hits = [
        ...WRITE.filter((f) => g.files.has(f)).map((f) => chain(g, f)),
        ...[...g.packages.keys()]
          .filter((p) => p.startsWith("@sinclair/typebox"))
          .map((p) => chain(g, g.packages.get(p)!)),
      ];
      expect([entry, hits]).toEqual([entry, []]);
    }
  });
});
