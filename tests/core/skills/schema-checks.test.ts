// The generated checks (schema/skills.checks.js) are derived from the TypeBox schemas of
// schema/manifest.ts and schema/skills-json.ts, the single source: a schema edit without
// regenerating fails here, and the generated checks must say what TypeBox says.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { Value } from "@sinclair/typebox/value";
import { CHECKS_DTS, CHECKS_JS, checksModule } from "../../../src/core/schema/skills.gen.ts";
import { FIELD_RULES, VERIFICATION_KEYS } from "../../../src/core/schema/manifest.ts";
import { SkillsJson } from "../../../src/core/schema/skills-json.ts";
import { checkFormat } from "../../../src/core/schema/skills-data.ts";
import { isSkillsJson, manifestChecks } from "../../../src/core/schema/skills.checks.js";
import { importsOf } from "../../arch/graph.ts";

const long = (n: number, c = "x") => c.repeat(n);
const VALUES: unknown[] = [
  "a",
  "",
  "  ",
  "a\nb",
  "tab\there",
  long(128),
  long(129),
  "é".repeat(64),
  "é".repeat(65),
  long(64),
  long(65),
  "bell\u0007",
  "del\u007f",
  "c1\u0085",
  "rlo\u202Eevil",
  long(1024),
  long(1025),
  "é".repeat(1024),
  "😀".repeat(1025),
  42,
  1.5,
  true,
  null,
  {},
  { a: 1 },
  [],
  ["a"],
  ["a", 1],
  ["", "b"],
  Array.from({ length: 32 }, (_, i) => `v${i}`),
  Array.from({ length: 33 }, (_, i) => `v${i}`),
  ["linux", "darwin"],
  ["beos"],
  ["any"],
  [{ path: "a" }],
  [{ url: "u", description: "d" }],
  [{ path: 1 }],
  [{ other: "x" }],
  Array(65).fill("r"),
  { command: "x", expect_exit: 0 },
  3,
  -1,
  2 ** 53,
];

describe("generated skills schema checks", () => {
  test("skills.checks.js and .d.ts are what `bun src/core/schema/skills.gen.ts` writes", () => {
    const { js, dts } = checksModule();
    const hint = "stale: run `bun src/core/schema/skills.gen.ts`";
    expect([readFileSync(CHECKS_JS, "utf8") === js, hint]).toEqual([true, hint]);
    expect([readFileSync(CHECKS_DTS, "utf8") === dts, hint]).toEqual([true, hint]);
  });

  test("every manifest rule's generated check agrees with TypeBox, in the same order with the same message", () => {
    const checks = manifestChecks(checkFormat);
    expect(checks.fields.map((c) => [c.field, c.message])).toEqual(FIELD_RULES.map((r) => [r.field, r.message]));
    FIELD_RULES.forEach((rule, i) => {
      for (const v of VALUES)
        expect([rule.field, v, checks.fields[i]!.check(v)]).toEqual([rule.field, v, Value.Check(rule.schema, v)]);
    });
    expect(Object.keys(checks.verification)).toEqual(Object.keys(VERIFICATION_KEYS));
    for (const [k, schema] of Object.entries(VERIFICATION_KEYS))
      for (const v of VALUES) expect([k, v, checks.verification[k]!(v)]).toEqual([k, v, Value.Check(schema, v)]);
  });

  test("the skills.json check agrees with TypeBox", () => {
    const docs: unknown[] = [
      {},
      { version: 1, disabled: [], enabled: [] },
      { disabled: ["a"], extra: { kept: true } },
      { version: "1" },
      { disabled: "a" },
      { enabled: [1] },
      [],
      null,
      "x",
      { version: 1.5 },
    ];
    for (const d of docs) expect([d, isSkillsJson(d)]).toEqual([d, Value.Check(SkillsJson, d)]);
  });

  test("the listing path validates without TypeBox: manifest.ts and settings.ts load none of it up front", () => {
    // import() on the write path and for an invalid file's message is the point.
    for (const f of ["src/core/skills/manifest.ts", "src/core/skills/settings.ts"]) {
      const runtime = importsOf(f)
        .filter((e) => e.kind === "static")
        .map((e) => e.to);
      expect(runtime.filter((to) => to.startsWith("@sinclair/typebox") || to === "src/core/fsx/update.ts")).toEqual([]);
      expect(runtime).not.toContain("src/core/schema/manifest.ts");
      expect(runtime).not.toContain("src/core/schema/skills-json.ts");
    }
  });
});
