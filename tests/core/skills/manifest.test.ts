import { describe, expect, test } from "bun:test";
import { buildManifest } from "../../../src/core/skills/manifest.ts";

function ok(data: Record<string, unknown>) {
  const r = buildManifest(data);
  if (!r.ok) throw new Error(r.message);
  return r;
}
const fail = (data: Record<string, unknown>) => {
  const r = buildManifest(data);
  if (r.ok) throw new Error("expected invalid");
  return r.message;
};

describe("manifest validation messages (skills.md §4.4)", () => {
  const NAME = "name must be a single-line string of at most 128 bytes without control or bidi characters";
  const DESC = "description must be a single-line string of at most 1024 characters without control or bidi characters";
  test.each([
    [{ name: "" }, NAME],
    [{ name: "   " }, NAME],
    [{ name: "a\nb" }, NAME],
    [{ name: "x".repeat(129) }, NAME],
    [{ name: "é".repeat(65) }, NAME],
    [{ name: "bell\u0007" }, NAME],
    [{ name: "del\u007f" }, NAME],
    [{ name: "c1\u0085" }, NAME],
    [{ name: "rlo\u202Eevil" }, NAME],
    [{ name: "iso\u2066x" }, NAME],
    [{ name: 42 }, NAME],
    [{ name: ["list"] }, NAME],
    [{ description: "d".repeat(1025) }, DESC],
    [{ description: "\u0001" }, DESC],
    [{ description: "ok\u200F" }, DESC],
    [{ description: { nested: true } }, DESC],
    [{ requires: ["git"] }, "requires must be a map"],
    [{ requires: { bins: "git" } }, "requires.bins must be a list of at most 32 strings of at most 128 bytes"],
    [
      { requires: { config: Array.from({ length: 33 }, (_, i) => `V${i}`) } },
      "requires.config must be a list of at most 32 strings of at most 128 bytes",
    ],
    [{ platforms: ["linux", 3] }, "platforms must be a list of at most 32 strings of at most 128 bytes"],
    [{ platforms: ["beos"] }, "platforms contains an unknown platform"],
    [{ requires_tools: [""] }, "requires_tools must be a list of at most 32 strings of at most 128 bytes"],
    [{ fallback_for_tools: "bash" }, "fallback_for_tools must be a list of at most 32 strings of at most 128 bytes"],
    [
      { required_environment_variables: [1] },
      "required_environment_variables must be a list of at most 32 strings of at most 128 bytes",
    ],
    [{ metadata: "x" }, "metadata must be a map"],
    [{ metadata: { lemon: [] } }, "metadata.lemon must be a map"],
    [
      { metadata: { lemon: { category: "a\nb" } } },
      "metadata.lemon.category must be a single-line string of at most 128 bytes",
    ],
    [{ verification: "run it" }, "verification must be a map"],
    [{ verification: { expect_exit: "0" } }, "verification.expect_exit has the wrong type"],
    [{ verification: { command: ["ls"] } }, "verification.command has the wrong type"],
    [{ references: "docs.md" }, "references must be a list of paths or {path|url, description} maps"],
    [
      { references: [{ description: "no target" }] },
      "references must be a list of paths or {path|url, description} maps",
    ],
    [{ version: "v".repeat(65) }, "version must be a single-line string of at most 64 bytes"],
    [{ version: new Date(0) }, "version must be a single-line string of at most 64 bytes"],
  ] as [Record<string, unknown>, string][])("%j", (data, message) => {
    expect(fail(data)).toBe(message);
  });

  test("first failure wins", () => {
    expect(fail({ version: "x".repeat(65), name: "" })).toBe(NAME);
  });

  test("descriptions up to 1024 characters are valid", () => {
    expect(ok({ description: "é".repeat(1024) }).manifest.description).toHaveLength(1024);
  });
});

describe("normalisation (skills.md §4.3)", () => {
  test("platform aliases and duplicates", () => {
    expect(ok({ platforms: ["MacOS", "darwin", "Windows", "linux"] }).manifest.platforms).toEqual([
      "darwin",
      "win32",
      "linux",
    ]);
  });

  test("free-text requires moves to hermes_requires", () => {
    const r = ok({ requires: "Python 3 and an API key" });
    expect(r.raw.hermes_requires).toBe("Python 3 and an API key");
    expect(r.manifest.requires).toEqual({ bins: [], config: [] });
  });

  test("prerequisites fill requires and required env vars", () => {
    const m = ok({ prerequisites: { commands: ["ffmpeg"], env_vars: ["KEY"] } }).manifest;
    expect(m.requires).toEqual({ bins: ["ffmpeg"], config: ["KEY"] });
    expect(m.required_environment_variables).toEqual(["KEY"]);
    const h = ok({ metadata: { hermes: { prerequisites: { commands: ["jq"] } } } }).manifest;
    expect(h.requires.bins).toEqual(["jq"]);
    expect(ok({ requires: { bins: ["git"] }, prerequisites: { commands: ["hg"] } }).manifest.requires.bins).toEqual([
      "git",
    ]);
  });

  test("Hermes metadata fills tags, category and tool lists", () => {
    const m = ok({
      metadata: {
        hermes: { tags: ["a"], category: "research", requires_tools: ["web"], fallback_for_tools: ["browser"] },
      },
    }).manifest;
    expect(m.tags).toEqual(["a"]);
    expect(m.category).toBe("research");
    expect(m.requires_tools).toEqual(["web"]);
    expect(m.fallback_for_tools).toEqual(["browser"]);
    expect(m.manifest_version).toBe(2);
  });

  test("required_environment_variables maps", () => {
    const m = ok({ required_environment_variables: ["A", { name: "B" }, { name: "C", optional: true }] }).manifest;
    expect(m.required_environment_variables).toEqual(["A", "B"]);
    expect(fail({ required_environment_variables: [{ prompt: "no name" }] })).toBe(
      "required_environment_variables must be a list of at most 32 strings of at most 128 bytes",
    );
  });

  test("descriptions: trailing break removed, inner line breaks folded, with a lint note", () => {
    const r = ok({ description: "line one\nline two\r\n\nline three\n" });
    expect(r.manifest.description).toBe("line one line two line three");
    expect(r.warnings.map((w) => w.code)).toEqual(["description_multiline"]);
    expect(ok({ description: "single\n" }).warnings).toEqual([]);
  });

  test("tags and keywords: comma strings split, bad items dropped, cut to 32", () => {
    expect(ok({ tags: "a, b,,c" }).manifest.tags).toEqual(["a", "b", "c"]);
    const r = ok({
      keywords: ["ok", 3, "bad\u202E", "x".repeat(129), ...Array.from({ length: 40 }, (_, i) => `k${i}`)],
    });
    expect(r.manifest.keywords).toHaveLength(32);
    expect(r.manifest.keywords[0]).toBe("ok");
    expect(r.warnings.filter((w) => w.code === "list_item_dropped")).toHaveLength(2);
    expect(ok({ tags: 7 }).manifest.tags).toEqual([]);
  });

  test("defaults and versions", () => {
    const m = ok({}).manifest;
    expect(m).toMatchObject({
      name: null,
      description: null,
      platforms: ["any"],
      requires_tools: [],
      fallback_for_tools: [],
      required_environment_variables: [],
      references: [],
      tags: [],
      keywords: [],
      manifest_version: 1,
      hide: false,
      verification: null,
    });
    expect(ok({ requires: { config: ["TOKEN"] } }).manifest.required_environment_variables).toEqual(["TOKEN"]);
    expect(ok({ verification: { command: "make test" } }).manifest.verification).toEqual({
      command: "make test",
      expect_exit: 0,
    });
    expect(ok({ metadata: { lemon: {} } }).manifest.manifest_version).toBe(2);
  });

  test("hide and its aliases: only boolean true hides", () => {
    expect(ok({ hide: true }).manifest.hide).toBe(true);
    expect(ok({ "disable-model-invocation": true }).manifest.hide).toBe(true);
    expect(ok({ disableModelInvocation: true }).manifest.hide).toBe(true);
    expect(ok({ hide: "true" }).manifest.hide).toBe(false);
    expect(ok({ hide: 1 }).manifest.hide).toBe(false);
  });

  test("null values are absent; unknown fields are kept and listed", () => {
    const r = ok({ description: null, license: "MIT", "allowed-tools": "Read", custom: 1 });
    expect(r.manifest.description).toBeNull();
    expect(r.manifest.unknown_fields).toEqual(["license", "allowed-tools", "custom"]);
  });
});

describe("leniency for real skills (skills.md §4.3 item 7)", () => {
  const coerced = (r: ReturnType<typeof buildManifest>) =>
    r.warnings.filter((w) => w.code === "value_coerced").map((w) => w.message);

  test("requires: [] and requires: null count as absent, each a value_coerced warning", () => {
    const empty = ok({ requires: [], prerequisites: { commands: ["jq"] } });
    expect(empty.manifest.requires).toEqual({ bins: ["jq"], config: [] });
    expect(coerced(empty)).toEqual(["requires: an empty list counts as absent"]);
    const nul = ok({ requires: null });
    expect(nul.manifest.requires).toEqual({ bins: [], config: [] });
    expect(coerced(nul)).toEqual(["requires: null counts as absent"]);
    expect(fail({ requires: ["git"] })).toBe("requires must be a map");
  });

  test("a numeric version is taken as its source text", async () => {
    const { parseSkillText } = await import("../../../src/core/skills/frontmatter.ts");
    const version = async (text: string) => {
      const p = await parseSkillText(text);
      if (!p.ok) throw new Error(p.message);
      const r = buildManifest(p.data, p.header);
      if (!r.ok) throw new Error(r.message);
      return [r.manifest.version, coerced(r)];
    };
    expect(await version("---\nversion: 1.10\n---\nbody\n")).toEqual([
      "1.10",
      ['version: the number 1.10 is taken as the string "1.10"'],
    ]);
    expect(await version("---\nname: x\nversion: 0.1 # first\n---\nbody\n")).toEqual([
      "0.1",
      ['version: the number 0.1 is taken as the string "0.1"'],
    ]);
    expect(await version("---\nversion: 2\n---\nbody\n")).toEqual([
      "2",
      ['version: the number 2 is taken as the string "2"'],
    ]);
    expect(await version("+++\nversion = 1.10\n[metadata]\nversion = 3.0\n+++\nbody\n")).toEqual([
      "1.10",
      ['version: the number 1.10 is taken as the string "1.10"'],
    ]);
    expect(await version('---\nversion: "1.10"\n---\nbody\n')).toEqual(["1.10", []]);
    // Without the header text the number's own spelling stands in.
    expect(ok({ version: 0.5 }).manifest.version).toBe("0.5");
  });

  test("an unknown key under requires is kept and has no effect", () => {
    const r = ok({ requires: { env: ["TOKEN"], bins: ["git"] } });
    expect(r.manifest.requires).toEqual({ bins: ["git"], config: [] });
    expect(r.manifest.required_environment_variables).toEqual([]);
    expect(r.raw.requires).toEqual({ env: ["TOKEN"], bins: ["git"] });
  });
});

describe("TOML datetimes fail every field", () => {
  test.each(["requires", "metadata", "verification", "name", "tags"])("%s", (field) => {
    const r = buildManifest({ [field]: new Date(0) });
    if (field === "tags") expect(r.ok && r.manifest.tags).toEqual([]);
    else expect(r.ok).toBe(false);
  });
});
