import { describe, expect, test } from "bun:test";
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { update } from "../../../src/core/fsx/update.ts";
import { skillsJsonCodec } from "../../../src/core/skills/settings.ts";
import type { SkillsJson } from "../../../src/core/schema/skills-json.ts";
import { LemonError } from "../../../src/core/errors.ts";
import { sandbox } from "../../support/sandbox.ts";

const NO_C = { confineTo: null };

describe("update transactions", () => {
  test("a missing file reads as the empty document and is written 0600", async () => {
    await using box = await sandbox();
    const file = join(box.root, "skills.json");
    const change = (cur: SkillsJson) => ({ next: { ...cur, disabled: ["a"] }, result: cur.disabled });
    const r = await update(file, skillsJsonCodec, change, { confineTo: null });
    expect(r).toEqual([]);
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({ version: 1, disabled: ["a"], enabled: [] });
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  test("unknown keys survive and next: undefined writes nothing", async () => {
    await using box = await sandbox();
    const file = await box.write("skills.json", '{"version":1,"x-custom":{"a":1},"disabled":[]}\n');
    await update(file, skillsJsonCodec, (cur) => ({ next: { ...cur, disabled: ["k"] }, result: null }), NO_C);
    expect(JSON.parse(readFileSync(file, "utf8"))["x-custom"]).toEqual({ a: 1 });
    const mtime = statSync(file).mtimeMs;
    await update(file, skillsJsonCodec, () => ({ next: undefined, result: null }), { confineTo: null });
    expect(statSync(file).mtimeMs).toBe(mtime);
  });

  test("an invalid existing file is never overwritten", async () => {
    await using box = await sandbox();
    const file = await box.write("skills.json", '{"disabled": "nope"}');
    const same = (c: SkillsJson) => ({ next: c, result: 1 });
    const err = (await update(file, skillsJsonCodec, same, NO_C).catch((e) => e)) as LemonError;
    expect(err.code).toBe("CONFLICT");
    expect(err.message).toStartWith(`refusing to overwrite invalid ${file}: `);
    expect(err.message).toContain("/disabled");
    expect(readFileSync(file, "utf8")).toBe('{"disabled": "nope"}');
  });

  test("a change made underneath during the update is detected", async () => {
    await using box = await sandbox();
    const file = await box.write("skills.json", "{}");
    const err = (await update(file, skillsJsonCodec, (c) => {
      writeFileSync(file, '{"disabled":["other"]}');
      return { next: { ...c, disabled: ["mine"] }, result: 1 };
    }, { confineTo: null }).catch((e) => e)) as LemonError;
    expect(err.code).toBe("CONFLICT");
    expect(err.message).toBe(`${file} changed while it was being updated; retry`);
    expect(readFileSync(file, "utf8")).toBe('{"disabled":["other"]}');
  });
});
