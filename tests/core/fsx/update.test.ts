import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { jsonCodec, readDocument, update } from "../../../src/core/fsx/update.ts";
import { skillsJsonCodec } from "../../../src/core/skills/settings-codec.ts";
import { emptySkillsJson, SkillsJson as SkillsJsonSchema } from "../../../src/core/schema/skills-json.ts";
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
    const err = (await update(
      file,
      skillsJsonCodec,
      (c) => {
        writeFileSync(file, '{"disabled":["other"]}');
        return { next: { ...c, disabled: ["mine"] }, result: 1 };
      },
      { confineTo: null },
    ).catch((e) => e)) as LemonError;
    expect(err.code).toBe("CONFLICT");
    expect(err.message).toBe(`${file} changed while it was being updated; retry`);
    expect(readFileSync(file, "utf8")).toBe('{"disabled":["other"]}');
  });
});

describe("update refuses files a rewrite would change or cannot read whole (skills.md §1.3 rule 4)", () => {
  async function refusal(file: string, codec = skillsJsonCodec): Promise<string> {
    const err = (await update(file, codec, (c) => ({ next: c, result: 1 }), NO_C).catch((e) => e)) as LemonError;
    expect(LemonError.is(err)).toBe(true);
    expect(err.code).toBe("CONFLICT");
    return err.message;
  }

  test("a duplicate key is invalid and the file is never rewritten", async () => {
    await using box = await sandbox();
    const text = '{"version":1,"disabled":["a"],"enabled":[],"disabled":[]}';
    const file = await box.write("skills.json", text);
    expect(await refusal(file)).toBe(`refusing to overwrite invalid ${file}: duplicate key 'disabled'`);
    expect(readFileSync(file, "utf8")).toBe(text);
    expect(existsSync(`${file}.lock`)).toBe(false);
  });

  test("a number that does not round-trip is invalid (1e400 would be written back as null)", async () => {
    await using box = await sandbox();
    const text = '{"version":1,"disabled":[],"x-limit":1e400}';
    const file = await box.write("skills.json", text);
    expect(await refusal(file)).toBe(`refusing to overwrite invalid ${file}: number 1e400 does not round-trip`);
    expect(readFileSync(file, "utf8")).toBe(text);
  });

  test("reads and rewrites share the codec's size bound", async () => {
    await using box = await sandbox();
    const small = jsonCodec(SkillsJsonSchema, emptySkillsJson, { maxBytes: 64 });
    const text = JSON.stringify({ version: 1, disabled: ["a".repeat(80)] });
    const file = await box.write("skills.json", text);
    expect(await refusal(file, small)).toBe(`refusing to overwrite invalid ${file}: file exceeds 64 bytes`);
    await expect(readDocument(file, small)).rejects.toThrow("file exceeds 64 bytes");
    expect(readFileSync(file, "utf8")).toBe(text);
    // Within the bound both work.
    await writeFile(file, '{"version":1}');
    await update(file, small, (c) => ({ next: { ...c, disabled: ["b"] }, result: null }), NO_C);
    expect((await readDocument(file, small)).disabled).toEqual(["b"]);
  });

  test("lemon's skills.json is bounded at 1 MiB for rewrites, as for reads", async () => {
    await using box = await sandbox();
    const text = JSON.stringify({ version: 1, disabled: [], pad: "x".repeat(1024 * 1024) });
    const file = await box.write("skills.json", text);
    expect(await refusal(file)).toBe(`refusing to overwrite invalid ${file}: file exceeds ${1024 * 1024} bytes`);
  });

  test.skipIf(process.platform === "win32")("a FIFO in the file's place is refused without blocking", async () => {
    await using box = await sandbox();
    const file = join(box.root, "skills.json");
    expect(Bun.spawnSync(["mkfifo", file]).exitCode).toBe(0);
    expect(await refusal(file)).toBe(`refusing to overwrite invalid ${file}: not a regular file`);
  });

  test("invalid UTF-8 is refused", async () => {
    await using box = await sandbox();
    const file = await box.write("skills.json", new Uint8Array([0x7b, 0xff, 0x7d]));
    expect(await refusal(file)).toBe(`refusing to overwrite invalid ${file}: file is not valid UTF-8`);
  });

  test("unknown top-level keys and unknown nested fields survive a rewrite", async () => {
    await using box = await sandbox();
    const text = '{"version":1,"disabled":[],"x-meta":{"by":"other","n":[1,{"deep":true}]}}';
    const file = await box.write("skills.json", text);
    await update(file, skillsJsonCodec, (c) => ({ next: { ...c, disabled: ["k"] }, result: null }), NO_C);
    const doc = JSON.parse(readFileSync(file, "utf8"));
    expect(doc["x-meta"]).toEqual({ by: "other", n: [1, { deep: true }] });
    expect(doc.disabled).toEqual(["k"]);
  });
});
