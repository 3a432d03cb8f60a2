import { describe, expect, spyOn, test } from "bun:test";
import { parseSkillText, parseYamlReference } from "../../../src/core/skills/frontmatter.ts";
import { parseSkillBytes } from "../../../src/core/skills/skill-file.ts";
import { isPlainHeader } from "../../../src/core/skills/yaml-fast.ts";

const enc = (s: string) => new TextEncoder().encode(s);

async function data(text: string) {
  const r = await parseSkillText(text);
  if (!r.ok) throw new Error(r.message);
  return r;
}

async function failure(text: string | Uint8Array) {
  const r = typeof text === "string" ? await parseSkillText(text) : await parseSkillBytes(text);
  if (r.ok) throw new Error("expected failure");
  return r;
}

describe("frontmatter parsing (skills.md §4.1)", () => {
  test("YAML header and body", async () => {
    const r = await data("---\nname: x\ndescription: Does x.\n---\n# Body\n");
    expect(r.kind).toBe("yaml");
    expect(r.data).toEqual({ name: "x", description: "Does x." });
    expect(r.body).toBe("# Body\n");
  });

  test("TOML header", async () => {
    const r = await data('+++\nname = "t"\ntags = ["a", "b"]\n[requires]\nbins = ["git"]\n+++\nbody');
    expect(r.kind).toBe("toml");
    expect(r.data).toEqual({ name: "t", tags: ["a", "b"], requires: { bins: ["git"] } });
  });

  test("leading blank lines, trailing spaces on fences, CRLF and BOM are accepted", async () => {
    const r = await parseSkillBytes(enc("\uFEFF\r\n  \r\n---  \r\nname: crlf\r\n---\t\r\nbody\r\n"));
    expect(r.ok && r.raw).toEqual({ name: "crlf" });
    expect(r.ok && r.body).toBe("body\r\n");
  });

  test("no frontmatter: empty manifest, whole file is the body", async () => {
    const r = await data("# Just markdown\n");
    expect(r.kind).toBe("none");
    expect(r.data).toEqual({});
    expect(r.body).toBe("# Just markdown\n");
  });

  test("empty header is allowed", async () => {
    expect((await data("---\n---\nbody")).data).toEqual({});
    expect((await data("+++\n+++\nbody")).data).toEqual({});
  });

  test("unclosed frontmatter", async () => {
    expect((await failure("---\nname: x\nbody")).message).toBe("frontmatter is not closed");
    expect((await failure("+++\nname = 'x'\n")).message).toBe("frontmatter is not closed");
  });

  test("header over 64 KiB is rejected before parsing", async () => {
    const big = "---\ndescription: " + "a".repeat(65536) + "\n---\nbody";
    expect((await failure(big)).message).toBe("frontmatter exceeds 65536 bytes");
  });

  test("header must be a mapping", async () => {
    expect((await failure("---\n- a\n- b\n---\n")).message).toBe("frontmatter must be a mapping");
    expect((await failure("---\njust a string\n---\n")).message).toBe("frontmatter must be a mapping");
  });

  test("duplicate keys are rejected at any depth, by the fast path and the reference parser", async () => {
    expect((await failure("---\nname: a\nname: b\n---\n")).message).toBe(
      "invalid YAML frontmatter: duplicate key 'name'",
    );
    expect((await failure("---\nmetadata:\n  lemon:\n    category: a\n    category: b\n---\n")).message).toContain(
      "duplicate key",
    );
    expect((await failure("---\nrequires: {bins: [a], bins: [b]}\n---\n")).message).toContain("duplicate key");
    expect((await failure('+++\nname = "a"\nname = "b"\n+++\n')).message).toStartWith("invalid TOML frontmatter:");
  });

  test("alias bombs are refused", async () => {
    const lines = ["a: &a [x, x, x, x, x, x, x, x, x, x]"];
    for (let i = 0; i < 9; i++) {
      const prev = String.fromCharCode(97 + i);
      const cur = String.fromCharCode(98 + i);
      lines.push(
        `${cur}: &${cur} [*${prev}, *${prev}, *${prev}, *${prev}, *${prev}, *${prev}, *${prev}, *${prev}, *${prev}, *${prev}, *${prev}, *${prev}]`,
      );
    }
    const r = await failure(`---\n${lines.join("\n")}\n---\n`);
    expect(r.code).toBe("parse_error");
    expect(r.message).toBe("invalid YAML frontmatter: more than 100 aliases");
  });

  test("the alias limit is 100: 100 aliases parse, 101 do not; nested aliases count every pass", async () => {
    const header = (n: number, anchor = "v") =>
      ["a: &x " + anchor, ...Array.from({ length: n }, (_, i) => `b${i}: *x`)].join("\n");
    expect(Object.keys((await data(`---\n${header(100)}\n---\nbody\n`)).data)).toHaveLength(101);
    expect(Object.keys((await data(`---\n${header(100, "[1, 2]")}\n---\nbody\n`)).data)).toHaveLength(101);
    expect((await failure(`---\n${header(101)}\n---\nbody\n`)).message).toBe(
      "invalid YAML frontmatter: more than 100 aliases",
    );
    // 10 aliases of a list that itself holds 10 aliases: 110 passes over the anchored values.
    const nested = [
      "a: &a [x]",
      `b: &b [${Array(10).fill("*a").join(", ")}]`,
      ...Array.from({ length: 10 }, (_, i) => `c${i}: *b`),
    ];
    expect((await failure(`---\n${nested.join("\n")}\n---\nbody\n`)).message).toBe(
      "invalid YAML frontmatter: more than 100 aliases",
    );
  });

  test("a few aliases are fine", async () => {
    expect((await data("---\nx: &t [a]\ntags: *t\n---\n")).data).toEqual({ x: ["a"], tags: ["a"] });
  });

  test("custom tags are not executed", async () => {
    const r = await parseSkillText("---\nname: !!js/function 'function(){ return 1 }'\n---\n");
    if (r.ok) expect(typeof r.data.name).not.toBe("function");
    else expect(r.code).toBe("parse_error");
  });

  test("YAML syntax errors are parse errors with one line", async () => {
    const r = await failure("---\nname: [unclosed\n---\n");
    expect(r.code).toBe("parse_error");
    expect(r.message).toStartWith("invalid YAML frontmatter: ");
    expect(r.message).not.toContain("\n");
  });

  test("TOML syntax errors", async () => {
    const r = await failure("+++\nname = \n+++\n");
    expect(r.message).toStartWith("invalid TOML frontmatter: ");
  });

  test("invalid UTF-8 and huge files", async () => {
    expect((await failure(new Uint8Array([0x2d, 0x2d, 0x2d, 0x0a, 0xff, 0xfe, 0x0a]))).code).toBe("invalid_utf8");
    const huge = new Uint8Array(1024 * 1024 + 1).fill(0x61);
    const r = await failure(huge);
    expect(r.code).toBe("file_too_large");
  });

  test("__proto__ keys become plain data", async () => {
    const r = await data('---\n"__proto__": {polluted: true}\nname: p\n---\n');
    expect(Object.getPrototypeOf(r.data)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.keys(r.data)).toContain("__proto__");
  });

  test("mapping keys are strings: collection and alias keys are parse errors, never a warning", async () => {
    const warned: unknown[] = [];
    const emit = spyOn(process, "emitWarning").mockImplementation((w: string | Error) => void warned.push(w));
    const warn = spyOn(console, "warn").mockImplementation((...a: unknown[]) => void warned.push(a));
    try {
      for (const h of [
        "? [a, b]: x",
        "? [a, b]\n: x",
        "name: x\n? {a: 1}\n: y",
        "metadata:\n  ? [q]\n  : 1",
        "a: &x k\n*x : 2",
        "!!int 3: a",
      ]) {
        const r = await failure(`---\n${h}\n---\nbody\n`);
        expect([h, r.code, r.message]).toEqual([
          h,
          "parse_error",
          "invalid YAML frontmatter: mapping keys must be strings",
        ]);
      }
    } finally {
      emit.mockRestore();
      warn.mockRestore();
    }
    expect(warned).toEqual([]);
  });

  test("scalar keys are read as their source text, so two spellings of one key are duplicates", async () => {
    expect((await data("---\n1: a\nnull: b\n~: c\n0x10: d\nname: n\n---\n")).data).toEqual({
      "1": "a",
      null: "b",
      "~": "c",
      "0x10": "d",
      name: "n",
    });
    expect((await failure("---\ntrue: a\n'true': b\n---\n")).message).toContain("duplicate key");
    expect((await failure('---\n1: a\n"1": b\n---\n')).message).toContain("duplicate key");
  });

  test("YAML 1.2 core schema: yes stays a string, octal 0o", async () => {
    expect((await data("---\na: yes\nb: 0o17\nc: ~\n---\n")).data).toEqual({ a: "yes", b: 15, c: null });
  });

  test("TOML datetimes are not strings", async () => {
    const r = await data("+++\nversion = 2024-01-01T00:00:00Z\n+++\n");
    expect(r.data.version instanceof Date).toBe(true);
  });
});

describe("Bun.YAML fast path agrees with the reference parser", () => {
  const cases = [
    "name: a\ndescription: >\n  folded: text\n  more\ntags:\n  - a\n  - b",
    "name: 'quoted: colon'\nmetadata:\n  hermes:\n    tags: [x, y]\n    category: cat",
    "description: |\n  name: not a key\n  name: still not\nname: real",
    "requires:\n  bins:\n    - git\n  config:\n    - TOKEN\nlist:\n  - name: a\n    x: 1\n  - name: b\n    x: 2",
  ];
  for (const h of cases) {
    test(JSON.stringify(h.slice(0, 30)), async () => {
      expect(isPlainHeader(h)).toBe(true);
      const fast = await parseSkillText(`---\n${h}\n---\n`);
      expect(fast.ok ? fast.data : fast.message).toEqual(await parseYamlReference(h));
    });
  }
  test("risky constructs go to the reference parser", () => {
    expect(isPlainHeader("a: &x 1\nb: *x")).toBe(false);
    expect(isPlainHeader("a: !tag 1")).toBe(false);
    expect(isPlainHeader("a: {b: 1}")).toBe(false);
    expect(isPlainHeader("<<: {a: 1}")).toBe(false);
    expect(isPlainHeader("a: 1\na: 2")).toBe(false);
    expect(isPlainHeader("l:\n  - k: 1\n    k: 2")).toBe(false);
    expect(isPlainHeader("l:\n  - k: 1\n  - k: 2")).toBe(true);
    for (const k of ["~", "null", "TRUE", "1", "0x10", "0o7", "1e3", ".5", ".inf"])
      expect(isPlainHeader(`${k}: a`)).toBe(false);
    expect(isPlainHeader("'0x10': a\nyes: b\nv1: c")).toBe(true);
  });
});
