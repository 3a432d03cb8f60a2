// install.md §2: the source grammar, row by row, and the inputs it must refuse.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LemonError } from "../../../src/core/errors.ts";
import {
  type ParseSourceOptions,
  parseSource,
  type SourceSpec,
  specFromRecord,
} from "../../../src/core/skills/install/source.ts";

const root = realpathSync(mkdtempSync(join(tmpdir(), "lemon-source-")));
const cwd = join(root, "project");
const home = join(root, "home");
mkdirSync(join(cwd, "skills", "x"), { recursive: true });
mkdirSync(join(home, "my-skill"), { recursive: true });
symlinkSync(join(cwd, "skills"), join(cwd, "linked"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const opts = (more: Partial<ParseSourceOptions> = {}): ParseSourceOptions => ({ cwd, homeDir: home, env: {}, ...more });
const parse = (s: string, more?: Partial<ParseSourceOptions>) => parseSource(s, opts(more));

function fails(s: string, code: string, message: string | RegExp, more?: Partial<ParseSourceOptions>): void {
  let err: unknown;
  try {
    parse(s, more);
  } catch (e) {
    err = e;
  }
  expect(LemonError.is(err)).toBe(true);
  const le = err as LemonError;
  expect(le.code).toBe(code as LemonError["code"]);
  if (typeof message === "string") expect(le.message).toBe(message);
  else expect(le.message).toMatch(message);
  expect(le.message).not.toContain("\n");
}

function pick(s: SourceSpec) {
  return {
    kind: s.kind,
    sourceId: s.sourceId,
    display: s.display,
    trust: s.trust,
    cloneUrl: s.cloneUrl,
    ref: s.ref,
    pinned: s.pinned,
    subdir: s.subdir,
    key: s.key,
  };
}

describe("row 1: builtin", () => {
  test("builtin and builtin:<key> are not installable", () => {
    fails("builtin", "INVALID_PARAMS", "built-in skills are not installable");
    fails(" builtin:foo ", "INVALID_PARAMS", "built-in skills are not installable");
  });
});

describe("row 2: local paths", () => {
  test("relative, dot, absolute, home and symlinked paths resolve to the real path", () => {
    expect(parse("./skills/x").localPath).toBe(join(cwd, "skills", "x"));
    expect(parse(".").sourceId).toBe(cwd);
    expect(parse("..").sourceId).toBe(root);
    expect(parse("../home/my-skill").localPath).toBe(join(home, "my-skill"));
    expect(parse(join(cwd, "skills")).localPath).toBe(join(cwd, "skills"));
    expect(parse("~/my-skill").localPath).toBe(join(home, "my-skill"));
    expect(parse("./linked/x").localPath).toBe(join(cwd, "skills", "x"));
    const s = parse("./skills");
    expect(pick(s)).toMatchObject({ kind: "local", trust: "trusted", ref: null, subdir: null, cloneUrl: null });
  });
  test("--path selects a subdir of a local source; --ref does not apply", () => {
    expect(parse("./skills", { path: "x" }).subdir).toBe("x");
    fails("./skills", "INVALID_PARAMS", /--ref applies only to git sources/, { ref: "v1" });
    fails("./skills", "INVALID_PARAMS", "invalid subdir '../x'", { path: "../x" });
  });
  test("a missing path is NOT_FOUND; a Windows drive path is recognised as local", () => {
    fails("./nope", "NOT_FOUND", `skill source not found: ${join(cwd, "nope")}`);
    fails("C:\\skills\\x", "NOT_FOUND", /^skill source not found: /);
    fails("D:/skills", "NOT_FOUND", /^skill source not found: /);
  });
});

describe("row 3: hermes", () => {
  test("collection and segments; key is the last segment; trust official", () => {
    const s = parse("hermes:optional/research/arxiv");
    expect(pick(s)).toMatchObject({ kind: "hermes", sourceId: "hermes:optional/research/arxiv", trust: "official" });
    expect(s.key).toBe("arxiv");
    expect(s.hermes).toEqual({ collection: "optional", segments: ["research", "arxiv"] });
    expect(parse("hermes:bundled/yuanbao").key).toBe("yuanbao");
  });
  test("bad collections or segments match no row", () => {
    fails("hermes:other/x", "INVALID_PARAMS", "cannot resolve skill source 'hermes:other/x'");
    fails("hermes:bundled/../x", "INVALID_PARAMS", "cannot resolve skill source 'hermes:bundled/../x'");
    fails("hermes:bundled/x", "INVALID_PARAMS", /--ref applies only/, { ref: "v1" });
  });
});

describe("row 4: gh: / github:", () => {
  test("owner/repo, subdir and ref", () => {
    expect(pick(parse("gh:owner/repo"))).toEqual({
      kind: "github",
      sourceId: "owner/repo",
      display: "gh:owner/repo",
      trust: "community",
      cloneUrl: "https://github.com/owner/repo.git",
      ref: null,
      pinned: false,
      subdir: null,
      key: null,
    });
    const s = parse("github:org/skills.git/skills/pdf@v1.2");
    expect(pick(s)).toMatchObject({
      sourceId: "org/skills",
      display: "gh:org/skills/skills/pdf@v1.2",
      cloneUrl: "https://github.com/org/skills.git",
      ref: "v1.2",
      subdir: "skills/pdf",
    });
  });
  test("LEMON_GITHUB_GIT_URL moves the clone URL; an empty value is unset", () => {
    expect(parse("gh:o/r", { env: { LEMON_GITHUB_GIT_URL: "http://127.0.0.1:8/" } }).cloneUrl).toBe(
      "http://127.0.0.1:8/o/r.git",
    );
    expect(parse("gh:o/r", { env: { LEMON_GITHUB_GIT_URL: "" } }).cloneUrl).toBe("https://github.com/o/r.git");
    expect(parse("gh:o/r", { env: { LEMON_GITHUB_GIT_URL: "/srv/git" } }).cloneUrl).toBe("file:///srv/git/o/r.git");
  });
  test("a 40-hex or 64-hex ref is a pin", () => {
    const sha = "a".repeat(40);
    expect(parse(`gh:o/r@${sha}`).pinned).toBe(true);
    expect(parse(`gh:o/r@${"b".repeat(64)}`).pinned).toBe(true);
    expect(parse("gh:o/r@v1").pinned).toBe(false);
    expect(parse("gh:o/r", { ref: sha }).pinned).toBe(true);
  });
  test("--ref/--path fill in and conflict with the values in the source", () => {
    expect(pick(parse("gh:o/r", { ref: "dev", path: "skills/a" }))).toMatchObject({ ref: "dev", subdir: "skills/a" });
    fails("gh:o/r@v1", "INVALID_PARAMS", "--ref conflicts with the ref given in the source", { ref: "v2" });
    fails("gh:o/r/skills/a", "INVALID_PARAMS", "--path conflicts with the subdir given in the source", { path: "x" });
  });
  test("bad owners, repos, subdirs and refs", () => {
    fails("gh:o", "INVALID_PARAMS", "cannot resolve skill source 'gh:o'");
    fails("gh:o_o/r", "INVALID_PARAMS", "invalid GitHub repository 'o_o/r'");
    fails("gh:o/..", "INVALID_PARAMS", "invalid GitHub repository 'o/..'");
    fails(`gh:${"a".repeat(40)}/r`, "INVALID_PARAMS", /invalid GitHub repository/);
    fails("gh:o/r/../x", "INVALID_PARAMS", "invalid subdir '../x'");
    fails("gh:o/r/a/./b", "INVALID_PARAMS", "invalid subdir 'a/./b'");
    fails("gh:o/r@--upload-pack=touch", "INVALID_PARAMS", "invalid git ref '--upload-pack=touch'");
    fails("gh:o/r@a..b", "INVALID_PARAMS", "invalid git ref 'a..b'");
    fails("gh:o/r@a//b", "INVALID_PARAMS", "invalid git ref 'a//b'");
    fails("gh:o/r@v 1", "INVALID_PARAMS", "invalid git ref 'v 1'");
    fails("gh:o/r@", "INVALID_PARAMS", "invalid git ref ''");
    fails(`gh:o/r@${"a".repeat(256)}`, "INVALID_PARAMS", /^invalid git ref/);
  });
});

describe("row 5: GitHub tree URLs", () => {
  test("tree/<ref>/<subdir> is a github source", () => {
    const s = parse("https://github.com/anthropics/skills/tree/main/skills/pdf");
    expect(pick(s)).toMatchObject({
      kind: "github",
      sourceId: "anthropics/skills",
      ref: "main",
      subdir: "skills/pdf",
      display: "gh:anthropics/skills/skills/pdf@main",
    });
    expect(parse("https://github.com/o/r/tree/v1").subdir).toBeNull();
    fails("https://github.com/o/r/tree/v1/x", "INVALID_PARAMS", /--ref conflicts/, { ref: "v2" });
  });
  test("a plain github.com URL is a git source", () => {
    expect(pick(parse("https://github.com/o/r.git"))).toMatchObject({
      kind: "git",
      sourceId: "https://github.com/o/r.git",
    });
  });
});

describe("row 6: well-known", () => {
  test("origin and name; key is the name", () => {
    const s = parse("https://example.com/docs/.well-known/skills/pdf-tools");
    expect(pick(s)).toMatchObject({
      kind: "well_known",
      sourceId: "https://example.com/.well-known/skills/pdf-tools",
      key: "pdf-tools",
      trust: "community",
    });
    expect(s.wellKnown).toEqual({ origin: "https://example.com", name: "pdf-tools" });
    expect(parse("http://127.0.0.1:8080/.well-known/skills/x/").wellKnown?.origin).toBe("http://127.0.0.1:8080");
  });
  test("userinfo and query never reach the id or the display", () => {
    const s = parse("https://u:secret@example.com/.well-known/skills/x?token=abc");
    expect(s.sourceId).toBe("https://example.com/.well-known/skills/x");
    expect(s.display).not.toContain("secret");
  });
  test("the index itself or a bad name is not a skill", () => {
    fails("https://e.com/.well-known/skills/index.json", "INVALID_PARAMS", /^cannot resolve skill source/);
    fails("https://e.com/.well-known/skills/a/b", "INVALID_PARAMS", /^cannot resolve skill source/);
    fails("https://e.com/.well-known/skills/x", "INVALID_PARAMS", /--ref applies only/, { ref: "v1" });
  });
  test("a dot segment, plain or percent-encoded, is refused before URL normalisation can drop it", () => {
    // WHATWG turns `/.well-known/skills/..` into `/.well-known/`: matched afterwards it would be a git URL.
    for (const s of [
      "http://127.0.0.1:1/.well-known/skills/..",
      "http://127.0.0.1:1/.well-known/skills/../",
      "http://127.0.0.1:1/.well-known/skills/%2e%2e",
      "http://127.0.0.1:1/.well-known/skills/%2E.",
      "http://127.0.0.1:1/.well-known/skills/.",
      "http://127.0.0.1:1/.well-known/skills/%2e?x=1",
      "http://127.0.0.1:1/.well-known/skills/x/.",
      "http://127.0.0.1:1/.well-known/skills/x/%2e%2e/y",
      "http://127.0.0.1:1/.well-known/skills/../../repo.git",
      "http://127.0.0.1:1/docs/../.well-known/skills/x",
      "http://127.0.0.1:1/.well-known\\skills\\..",
    ])
      fails(s, "INVALID_PARAMS", `cannot resolve skill source '${s.replace(/\?.*/, "")}'`);
    expect(() => parse("https://u:pw@e.com/.well-known/skills/..")).toThrow(
      "cannot resolve skill source 'https://e.com/",
    );
    // A name that merely holds dots is a name.
    expect(parse("https://e.com/.well-known/skills/a..b").wellKnown?.name).toBe("a..b");
  });
});

describe("row 7: git URLs", () => {
  test("https with fragment ref and subdir", () => {
    const s = parse("https://example.com/r.git#v1.2:skills/foo");
    expect(pick(s)).toEqual({
      kind: "git",
      sourceId: "https://example.com/r.git",
      display: "https://example.com/r.git#v1.2:skills/foo",
      trust: "community",
      cloneUrl: "https://example.com/r.git",
      ref: "v1.2",
      pinned: false,
      subdir: "skills/foo",
      key: null,
    });
    expect(pick(parse("https://example.com/r.git#:skills/foo"))).toMatchObject({ ref: null, subdir: "skills/foo" });
  });
  test("git+, scp-like, ssh and file forms", () => {
    expect(parse("git+https://example.com/r.git").sourceId).toBe("https://example.com/r.git");
    expect(parse("git+ssh://git@example.com/r.git").sourceId).toBe("ssh://git@example.com/r.git");
    expect(pick(parse("git@github.com:o/r.git#main"))).toMatchObject({
      kind: "git",
      sourceId: "git@github.com:o/r.git",
      cloneUrl: "git@github.com:o/r.git",
      ref: "main",
    });
    expect(parse("ssh://git@example.com:2222/r.git").sourceId).toBe("ssh://git@example.com:2222/r.git");
    const f = parse(`file://${root}/r.git#dev`);
    expect(pick(f)).toMatchObject({ kind: "git", sourceId: `file://${root}/r.git`, ref: "dev" });
    expect(parse("http://127.0.0.1:9/r.git").kind).toBe("git");
  });
  test("userinfo and query are stripped from the id and display, kept for the clone", () => {
    const s = parse("https://user:tok@example.com/r.git?x=1#v1");
    expect(s.sourceId).toBe("https://example.com/r.git");
    expect(s.display).toBe("https://example.com/r.git#v1");
    expect(s.cloneUrl).toBe("https://user:tok@example.com/r.git?x=1");
    expect(parse("ssh://git:pw@example.com/r.git").sourceId).toBe("ssh://git@example.com/r.git");
  });
  test("fragment vs flags", () => {
    fails("https://e.com/r.git#v1", "INVALID_PARAMS", "--ref conflicts with the ref given in the source", {
      ref: "v2",
    });
    fails("https://e.com/r.git#v1:a", "INVALID_PARAMS", "--path conflicts with the subdir given in the source", {
      path: "b",
    });
    expect(pick(parse("https://e.com/r.git#v1", { path: "a" }))).toMatchObject({ ref: "v1", subdir: "a" });
    fails("https://e.com/r.git#", "INVALID_PARAMS", "empty #fragment in git source");
    fails("https://e.com/r.git#-x", "INVALID_PARAMS", "invalid git ref '-x'");
    fails("https://e.com/r.git#v1:../..", "INVALID_PARAMS", "invalid subdir '../..'");
  });
});

describe("row 8: registry refs", () => {
  test("three or more segments; namespace official is official", () => {
    const s = parse("official/devops/k8s-rollout");
    expect(pick(s)).toMatchObject({ kind: "registry", sourceId: "official/devops/k8s-rollout", trust: "official" });
    expect(s.key).toBe("k8s-rollout");
    expect(s.registryRef).toBe("official/devops/k8s-rollout");
    expect(parse("acme/a/b/c").trust).toBe("community");
  });
});

describe("rejected inputs", () => {
  test("bare names, two-segment refs, empty input", () => {
    fails("foo", "INVALID_PARAMS", "cannot resolve skill source 'foo'");
    fails("a/b", "INVALID_PARAMS", "cannot resolve skill source 'a/b'");
    fails("   ", "INVALID_PARAMS", "cannot resolve skill source ''");
    fails("a/b.c/d", "INVALID_PARAMS", "cannot resolve skill source 'a/b.c/d'");
  });
  test("option injection as a URL never parses", () => {
    fails("--upload-pack=touch /tmp/x", "INVALID_PARAMS", "cannot resolve skill source '--upload-pack=touch /tmp/x'");
    fails("-oProxyCommand=x", "INVALID_PARAMS", /^cannot resolve/);
  });
  test("ext:: and other transport helpers", () => {
    fails("ext::sh -c touch% /tmp/x", "INVALID_PARAMS", "git transport helpers like ext:: are not allowed");
    fails("git+ext::sh -c x", "INVALID_PARAMS", "git transport helpers like ext:: are not allowed");
    fails("fd::3", "INVALID_PARAMS", "git transport helpers like ext:: are not allowed");
  });
  test("ssh hosts or users starting with '-'", () => {
    fails("ssh://-oProxyCommand=touch%20x/r.git", "INVALID_PARAMS", /^refusing git host/);
    fails("ssh://-oProxyCommand=x@host/r.git", "INVALID_PARAMS", /^refusing git host/);
    fails("git@-oProxyCommand=x:r.git", "INVALID_PARAMS", /^refusing git host/);
    fails("git@host:-r.git", "INVALID_PARAMS", /^refusing git host/);
    fails("git+ssh://-oProxyCommand=x/r", "INVALID_PARAMS", /^refusing git host/);
  });
  test("control characters anywhere", () => {
    fails("https://e.com/r.git\u0000x", "INVALID_PARAMS", "skill source contains control characters");
    fails("gh:o/r@v1\u001b[31m", "INVALID_PARAMS", "skill source contains control characters");
    fails("https://e.com/r\u007f.git", "INVALID_PARAMS", "skill source contains control characters");
  });
  test("malformed percent escapes", () => {
    fails("https://github.com/o/r/tree/%E0/x", "INVALID_PARAMS", /^cannot resolve skill source/);
    fails("https://e.com/.well-known/skills/%E0", "INVALID_PARAMS", /^cannot resolve skill source/);
    fails("ssh://%E0@host/r.git", "INVALID_PARAMS", /^cannot resolve skill source/);
    fails("https://github.com/o/r/tree/%2D%2Dupload-pack=x", "INVALID_PARAMS", "invalid git ref '--upload-pack=x'");
  });
  test("unsupported schemes and remote file:// hosts", () => {
    fails("ftp://e.com/r.git", "INVALID_PARAMS", "cannot resolve skill source 'ftp://e.com/r.git'");
    fails("git://e.com/r.git", "INVALID_PARAMS", /^cannot resolve/);
    fails("file://evil.example/r.git", "INVALID_PARAMS", /^file:\/\/ git sources must be local paths/);
  });
  test("error messages never show userinfo or a query", () => {
    let msg = "";
    try {
      parse("ftp://user:secret@e.com/r?token=abc");
    } catch (e) {
      msg = (e as Error).message;
    }
    expect(msg).toBe("cannot resolve skill source 'ftp://e.com/r'");
  });
  test("a password holding an unencoded '#' is never echoed, not even its tail", () => {
    for (const s of ["https://user:pa#ss@example.invalid/r.git", "git+http://u:x#y:z@h.invalid/r", "ssh://u:a#b@h/r"]) {
      fails(s, "INVALID_PARAMS", /^cannot resolve skill source '/);
      try {
        parse(s);
      } catch (e) {
        expect((e as Error).message).not.toMatch(/ss@|pa|y:z|a#b/);
      }
    }
  });
});

describe("specFromRecord", () => {
  const rec = (kind: string | null, id: string | null, ref: string | null = null, subdir: string | null = null) => ({
    key: "k",
    source_kind: kind,
    source_id: id,
    source_ref: ref,
    subdir,
    trust_level: "official",
  });
  test("rebuilds git, github, local, registry, hermes and well-known specs", () => {
    expect(pick(specFromRecord(rec("git", "https://e.com/r.git", "v1", "skills/x"), opts()))).toMatchObject({
      kind: "git",
      cloneUrl: "https://e.com/r.git",
      ref: "v1",
      subdir: "skills/x",
      trust: "community",
    });
    expect(pick(specFromRecord(rec("github", "o/r", null, "a"), opts()))).toMatchObject({
      kind: "github",
      cloneUrl: "https://github.com/o/r.git",
      subdir: "a",
    });
    expect(specFromRecord(rec("local", "/x/y"), opts()).localPath).toBe("/x/y");
    expect(specFromRecord(rec("registry", "acme/a/b"), opts()).trust).toBe("community");
    expect(specFromRecord(rec("hermes", "hermes:bundled/x"), opts()).key).toBe("x");
    expect(specFromRecord(rec("well_known", "https://e.com/.well-known/skills/x"), opts()).key).toBe("x");
  });
  test("update --ref replaces the recorded ref; a pin stays a pin", () => {
    expect(specFromRecord(rec("git", "https://e.com/r.git", "v1"), opts({ ref: "v2" })).ref).toBe("v2");
    expect(specFromRecord(rec("github", "o/r", "c".repeat(40)), opts()).pinned).toBe(true);
  });
  test("sources that cannot be updated, and hostile records", () => {
    for (const r of [rec("draft", "x"), rec("bundle", "x"), rec("builtin", "x"), rec(null, null), rec("git", null)]) {
      expect(() => specFromRecord(r, opts())).toThrow("Skill 'k' cannot be updated from its source");
    }
    expect(() => specFromRecord(rec("git", "https://e.com/r.git", "--upload-pack=x"), opts())).toThrow(
      "invalid git ref '--upload-pack=x'",
    );
    expect(() => specFromRecord(rec("git", "ext::sh -c x"), opts())).toThrow();
    expect(() => specFromRecord(rec("github", "o/r", null, "../../etc"), opts())).toThrow("invalid subdir '../../etc'");
    expect(() => specFromRecord(rec("registry", "gh:o/r"), opts())).toThrow("cannot be updated");
  });
});
