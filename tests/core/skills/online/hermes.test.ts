// The Hermes catalog (install.md §4.5) against a GitHub-shaped server on 127.0.0.1 answering from
// a real git repository of corpus skills: listing, filters, details, the ETag cache, install by
// download (no git), symlinks and submodules in the tree, a file that changed behind the tree,
// rate limits, bad ids, and a local checkout through LEMON_HERMES_REPO.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLemon, LemonError, type Lemon } from "../../../../src/core/index.ts";
import { proxyFor } from "../../../../src/core/skills/install/http.ts";
import { CORPUS_DIR, corpusAvailable } from "../../../support/corpus.ts";
import { git } from "../../../support/git-repos.ts";
import { githubServer, hermesRepo, type GitHubServer } from "../../../support/github-server.ts";
import { sandbox, type Sandbox } from "../../../support/sandbox.ts";

const HAS = corpusAvailable();
const C = (sub: string) => join(CORPUS_DIR, sub);
let root = "";
let work = "";
let hub: GitHubServer;

beforeAll(async () => {
  if (!HAS) return;
  root = await mkdtemp(join(tmpdir(), "lemon-hermes-"));
  work = await hermesRepo(root, [
    { from: C("hermes-agent-skills/arxiv"), to: "skills/research/arxiv" },
    { from: C("hermes-agent-skills/github-issues"), to: "skills/github/github-issues" },
    { from: C("hermes-agent-skills/gif-search"), to: "skills/media/gif-search" },
    { from: C("hermes-agent-optional-skills/1password"), to: "optional-skills/security/1password" },
    { from: C("hermes-agent-optional-skills/accelerate"), to: "optional-skills/accelerate" },
  ]);
  // Real special entries: a symlink and a submodule (gitlink) inside two skills.
  await Bun.write(join(work, "skills/bad/linked/SKILL.md"), "---\nname: linked\ndescription: d\n---\nx\n");
  await Bun.$`ln -s ../../../README.md ${join(work, "skills/bad/linked/readme")}`.quiet();
  await Bun.write(join(work, "skills/bad/sub/SKILL.md"), "---\nname: sub\ndescription: d\n---\nx\n");
  await Bun.write(join(work, "skills/bad/../..", "README.md"), "readme\n");
  await git(work, "add", "-A");
  const head = await git(work, "rev-parse", "HEAD");
  await git(work, "update-index", "--add", "--cacheinfo", `160000,${head},skills/bad/sub/vendor`);
  await git(work, "commit", "-q", "-m", "special entries");
  hub = await githubServer(work);
});
afterAll(async () => {
  hub?.stop();
  if (root) await rm(root, { recursive: true, force: true });
});

const envOf = (box: Sandbox, more: Record<string, string> = {}) => ({
  ...box.env,
  LEMON_GITHUB_API_URL: hub.url,
  LEMON_GITHUB_RAW_URL: hub.rawUrl,
  ...more,
});
const lemonOf = (box: Sandbox, more: Record<string, string> = {}): Lemon =>
  createLemon({ cwd: box.project, env: envOf(box, more), curator: false });

async function rejection(p: Promise<unknown>): Promise<LemonError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof LemonError) return err;
    throw err;
  }
  throw new Error("expected a rejection");
}

// A bad GitHub root in the environment is not an argument error, and its userinfo never shows.
test("an invalid LEMON_GITHUB_API_URL or RAW URL is one INVALID_REQUEST line with the URL redacted", async () => {
  await using box = await sandbox();
  const bad = "http://user:SECRETPW@[bad";
  const cases: [Record<string, string>, string][] = [
    [{ LEMON_GITHUB_API_URL: bad, GITHUB_TOKEN: "t" }, "LEMON_GITHUB_API_URL: <invalid url>"],
    [{ LEMON_GITHUB_API_URL: bad }, "LEMON_GITHUB_API_URL: <invalid url>"],
    [{ LEMON_GITHUB_API_URL: "http://127.0.0.1:9", LEMON_GITHUB_RAW_URL: bad }, "LEMON_GITHUB_RAW_URL: <invalid url>"],
    [{ LEMON_GITHUB_API_URL: "ftp://u:SECRETPW@127.0.0.1/x?t=SECRETPW" }, "LEMON_GITHUB_API_URL: ftp://127.0.0.1/x"],
  ];
  await using refLemon = createLemon({ cwd: box.project, env: { ...box.env, LEMON_HERMES_REF: "-x" }, curator: false });
  const ref = await rejection(refLemon.skills.hermesCatalog());
  expect([ref.code, ref.message]).toEqual(["INVALID_REQUEST", "invalid LEMON_HERMES_REF '-x'"]);
  for (const [env, shown] of cases) {
    await using lemon = createLemon({ cwd: box.project, env: { ...box.env, ...env }, curator: false });
    for (const call of [
      () => lemon.skills.hermesCatalog(),
      () => lemon.skills.install("hermes:bundled/x/y", { approve: true }),
    ]) {
      const e = await rejection(call());
      expect([e.code, e.message]).toEqual(["INVALID_REQUEST", `invalid URL in ${shown}`]);
    }
  }
});

describe.skipIf(!HAS)("remote catalog", () => {
  test("lists both collections sorted, one-segment ids in category other, no details by default", async () => {
    await using box = await sandbox();
    await using lemon = lemonOf(box);
    const cat = await lemon.skills.hermesCatalog();
    expect(cat.source).toBe("github");
    expect(cat.commit).toBe(await git(work, "rev-parse", "HEAD"));
    expect(cat.truncated).toBe(false);
    const ids = cat.skills.map((s) => s.id);
    expect(ids).toEqual([
      "hermes:bundled/bad/linked",
      "hermes:bundled/bad/sub",
      "hermes:bundled/github/github-issues",
      "hermes:bundled/media/gif-search",
      "hermes:bundled/research/arxiv",
      "hermes:optional/accelerate",
      "hermes:optional/security/1password",
    ]);
    const arxiv = cat.skills.find((s) => s.key === "arxiv");
    expect(arxiv).toMatchObject({
      key: "arxiv",
      name: "arxiv",
      description: "",
      category: "research",
      collection: "bundled",
      path: "skills/research/arxiv",
    });
    expect(arxiv?.sha).toBe(await git(work, "rev-parse", "HEAD:skills/research/arxiv/SKILL.md"));
    expect(arxiv?.tree_sha).toBe(await git(work, "rev-parse", "HEAD:skills/research/arxiv"));
    expect(cat.skills.find((s) => s.key === "accelerate")?.category).toBe("other");
  });

  test("filters: collection, exact category, query over key/category/path; details add name and description", async () => {
    await using box = await sandbox();
    await using lemon = lemonOf(box);
    expect((await lemon.skills.hermesCatalog({ collection: "optional" })).skills.map((s) => s.key)).toEqual([
      "accelerate",
      "1password",
    ]);
    expect((await lemon.skills.hermesCatalog({ category: "research" })).skills.map((s) => s.key)).toEqual(["arxiv"]);
    expect((await lemon.skills.hermesCatalog({ category: "resear" })).skills).toEqual([]);
    expect((await lemon.skills.hermesCatalog({ query: "GIF" })).skills.map((s) => s.key)).toEqual(["gif-search"]);
    const d = await lemon.skills.hermesCatalog({ details: true, category: "research" });
    expect(d.skills[0]?.description.length).toBeGreaterThan(10);
    const md = readFileSync(join(work, "skills/research/arxiv/SKILL.md"), "utf8");
    expect(md).toContain(d.skills[0]!.description.slice(0, 20));
    const unknown = await rejection(lemon.skills.hermesCatalog({ collection: "extra" as "all" }));
    expect(unknown.code).toBe("INVALID_PARAMS");
  });

  test("a second listing within the cache makes one conditional request; details come from the cache", async () => {
    await using box = await sandbox();
    await using lemon = lemonOf(box);
    hub.requests.length = 0;
    const cold = await lemon.skills.hermesCatalog({ details: true });
    const coldCount = hub.requests.length;
    expect(coldCount).toBe(2 + cold.skills.length);
    hub.requests.length = 0;
    const warm = await lemon.skills.hermesCatalog({ details: true });
    expect(warm.skills).toEqual(cold.skills);
    expect(hub.requests.length).toBe(1);
    expect(hub.requests[0]?.ifNoneMatch).toBe(`"c-${cold.commit}"`);
    expect(existsSync(join(box.agentDir, "cache", "hermes-catalog.json"))).toBe(true);
  });

  test("a details file whose bytes do not match its blob leaves the entry's details empty", async () => {
    await using box = await sandbox();
    await using lemon = lemonOf(box);
    hub.rawOverride.set("skills/media/gif-search/SKILL.md", "---\nname: evil\ndescription: injected\n---\n");
    try {
      const d = await lemon.skills.hermesCatalog({ details: true, category: "media" });
      expect(d.skills[0]).toMatchObject({ name: "gif-search", description: "" });
    } finally {
      hub.rawOverride.clear();
    }
  });

  test("GITHUB_TOKEN goes to the API and raw origins only", async () => {
    await using box = await sandbox();
    await using lemon = lemonOf(box, { GITHUB_TOKEN: "ghp_secret" });
    hub.requests.length = 0;
    await lemon.skills.hermesCatalog({ details: true, category: "research" });
    expect(hub.requests.length).toBeGreaterThan(0);
    expect(hub.requests.every((r) => r.authorization === "Bearer ghp_secret")).toBe(true);
  });

  test("rate limits: a far reset fails at once with the reset time; malformed JSON fails cleanly", async () => {
    await using box = await sandbox();
    await using lemon = lemonOf(box);
    const reset = Math.floor(Date.now() / 1000) + 3600;
    let hits = 0;
    hub.intercept = () => {
      hits++;
      return new Response("limit", {
        status: 403,
        headers: { "x-ratelimit-remaining": "0", "x-ratelimit-reset": String(reset) },
      });
    };
    try {
      const e = await rejection(lemon.skills.hermesCatalog());
      expect(e.code).toBe("OPERATION_FAILED");
      expect(e.message).toBe(
        `rate limited by ${hub.url}; the limit resets at ${new Date(reset * 1000).toISOString().replace(/\.\d{3}Z$/, "Z")}`,
      );
      expect(hits).toBe(1);
      hub.intercept = (_req, path) => (path.includes("/commits/") ? new Response("{not json") : null);
      const bad = await rejection(lemon.skills.hermesCatalog());
      expect(bad.message).toBe("invalid GitHub answer for commit 'main'");
      hub.intercept = (_req, path) => (path.includes("/git/trees/") ? Response.json({ sha: "x", tree: "nope" }) : null);
      const tree = await rejection(
        createLemon({
          cwd: box.project,
          env: envOf(box),
          curator: false,
          readConfigFile: false,
        }).skills.hermesCatalog(),
      );
      expect(tree.message).toBe("invalid GitHub answer for the repository tree");
    } finally {
      hub.intercept = null;
    }
  });

  test("a hanging server times out with [skills] http_timeout_ms; a redirect elsewhere gets no token", async () => {
    await using box = await sandbox();
    await using slow = createLemon({
      cwd: box.project,
      env: envOf(box),
      curator: false,
      config: { skills: { http_timeout_ms: 300 } },
    });
    hub.intercept = (_req, path) => (path.includes("/commits/") ? new Promise<Response>(() => {}) : null);
    try {
      const e = await rejection(slow.skills.hermesCatalog());
      expect(e.code).toBe("TIMEOUT");
      expect(e.message).toBe(
        `request to ${hub.url}/repos/NousResearch/hermes-agent/commits/main timed out after 300 ms`,
      );
    } finally {
      hub.intercept = null;
    }
    const seen: (string | null)[] = [];
    const other = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch(req) {
        seen.push(req.headers.get("authorization"));
        return Response.json({ sha: "0".repeat(40) });
      },
    });
    hub.intercept = (_req, path) =>
      path.includes("/commits/")
        ? new Response(null, { status: 302, headers: { location: `http://127.0.0.1:${other.port}/elsewhere` } })
        : null;
    try {
      await using lemon = lemonOf(box, { GITHUB_TOKEN: "ghp_secret" });
      await rejection(lemon.skills.hermesCatalog());
      expect(seen).toEqual([null]);
    } finally {
      hub.intercept = null;
      other.stop(true);
    }
  });

  test("HTTP_PROXY routes the requests (absolute-form to the proxy); NO_PROXY exempts hosts", async () => {
    await using box = await sandbox();
    const seen: string[] = [];
    const proxy = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      async fetch(req) {
        const u = new URL(req.url);
        seen.push(u.host);
        const res = await fetch(`${hub.url}${u.pathname}${u.search}`, { headers: req.headers });
        return new Response(await res.arrayBuffer(), { status: res.status, headers: res.headers });
      },
    });
    try {
      await using lemon = lemonOf(box, {
        HTTP_PROXY: `http://127.0.0.1:${proxy.port}`,
        LEMON_GITHUB_API_URL: "http://hermes-api.invalid",
        LEMON_GITHUB_RAW_URL: "http://hermes-raw.invalid/raw",
      });
      const cat = await lemon.skills.hermesCatalog({ details: true, category: "research" });
      expect(cat.skills[0]?.description).not.toBe("");
      expect(new Set(seen)).toEqual(new Set(["hermes-api.invalid", "hermes-raw.invalid"]));
    } finally {
      proxy.stop(true);
    }
    const env = {
      https_proxy: "http://p:3128",
      HTTP_PROXY: "http://p:3128",
      NO_PROXY: "localhost,.corp.example,[::1],10.0.0.1:8080",
    };
    expect(proxyFor("https://api.github.com/x", env)).toBe("http://p:3128");
    expect(proxyFor("http://localhost:9/x", env)).toBeUndefined();
    expect(proxyFor("https://git.corp.example/x", env)).toBeUndefined();
    expect(proxyFor("http://[::1]:5/x", env)).toBeUndefined();
    expect(proxyFor("http://10.0.0.1:8080/x", env)).toBeUndefined();
    expect(proxyFor("http://10.0.0.1:9090/x", env)).toBe("http://p:3128");
    expect(proxyFor("https://api.github.com/x", { ...env, no_proxy: "*" })).toBeUndefined();
    expect(proxyFor("https://api.github.com/x", {})).toBeUndefined();
  });

  test("a truncated tree adds the warning", async () => {
    await using box = await sandbox();
    await using lemon = lemonOf(box, { LEMON_HERMES_REF: "HEAD" });
    hub.truncated = true;
    try {
      const cat = await lemon.skills.hermesCatalog();
      expect(cat.truncated).toBe(true);
      expect(cat.warnings).toEqual(["catalog listing is truncated"]);
    } finally {
      hub.truncated = false;
    }
  });
});

describe.skipIf(!HAS)("install by download", () => {
  test("installs every blob of the skill's tree with official trust, tree sha and commit recorded", async () => {
    await using box = await sandbox();
    await using lemon = lemonOf(box);
    hub.requests.length = 0;
    const r = await lemon.skills.install("hermes:bundled/research/arxiv", { approve: true });
    const dest = join(box.agentDir, "skill", "arxiv");
    expect(r.skill.path).toBe(dest);
    expect(r.lock).toMatchObject({
      source_kind: "hermes",
      source_id: "hermes:bundled/research/arxiv",
      trust_level: "official",
      resolved_commit: await git(work, "rev-parse", "HEAD"),
      upstream_hash: await git(work, "rev-parse", "HEAD:skills/research/arxiv"),
    });
    const want = (await git(work, "ls-tree", "-r", "--name-only", "HEAD", "skills/research/arxiv"))
      .split("\n")
      .map((p) => p.slice("skills/research/arxiv/".length))
      .sort();
    const got = (readdirSync(dest, { recursive: true, withFileTypes: true }) as import("node:fs").Dirent[])
      .filter((d) => d.isFile())
      .map((d) => join(d.parentPath, d.name).slice(dest.length + 1))
      .sort();
    expect(got).toEqual(want);
    expect(readFileSync(join(dest, "SKILL.md"), "utf8")).toBe(
      readFileSync(join(work, "skills/research/arxiv/SKILL.md"), "utf8"),
    );
    // update --check asks for the tree only: up to date.
    const u = await lemon.skills.update("arxiv", { check: true });
    expect(u.status).toBe("up_to_date");
  });

  test("a symlink or a submodule in the skill's tree refuses the install; nothing is left", async () => {
    await using box = await sandbox();
    await using lemon = lemonOf(box);
    const link = await rejection(lemon.skills.install("hermes:bundled/bad/linked", { approve: true }));
    expect(link.code).toBe("INVALID_REQUEST");
    expect(link.message).toBe("symlink_not_allowed: readme");
    const sub = await rejection(lemon.skills.install("hermes:bundled/bad/sub", { approve: true }));
    expect(sub.message).toBe("special_file_not_allowed: vendor");
    expect(existsSync(join(box.agentDir, "skill", "linked"))).toBe(false);
    expect(existsSync(join(box.agentDir, "skill", "sub"))).toBe(false);
    expect(readdirSync(join(box.agentDir, "cache")).filter((n) => n.startsWith(".fetch"))).toEqual([]);
  });

  test("a file that changed behind the tree fails the install; nothing half-installed", async () => {
    await using box = await sandbox();
    await using lemon = lemonOf(box);
    hub.rawOverride.set(
      "skills/github/github-issues/SKILL.md",
      "---\nname: github-issues\ndescription: changed\n---\n",
    );
    try {
      const e = await rejection(lemon.skills.install("hermes:bundled/github/github-issues", { approve: true }));
      expect(e.code).toBe("OPERATION_FAILED");
      expect(e.message).toMatch(/^hermes file SKILL\.md does not match the tree at [0-9a-f]{12}; retry$/);
      expect(existsSync(join(box.agentDir, "skill", "github-issues"))).toBe(false);
      expect(existsSync(join(box.agentDir, "skills.lock.json"))).toBe(false);
    } finally {
      hub.rawOverride.clear();
    }
  });

  test("a tree entry whose path escapes the skill refuses the install; an oversized file fails at its cap", async () => {
    await using box = await sandbox();
    await using lemon = lemonOf(box);
    const head = await git(work, "rev-parse", "HEAD");
    const blob = await git(work, "rev-parse", "HEAD:skills/research/arxiv/SKILL.md");
    const real = (await (
      await fetch(`${hub.url}/repos/NousResearch/hermes-agent/git/trees/${head}?recursive=1`)
    ).json()) as {
      tree: unknown[];
    };
    const withEntry = (entry: Record<string, unknown>) => (_req: Request, path: string) =>
      path.includes("/git/trees/") ? Response.json({ sha: head, truncated: false, tree: [...real.tree, entry] }) : null;
    hub.intercept = withEntry({
      path: "skills/research/arxiv/../../../evil",
      mode: "100644",
      type: "blob",
      sha: blob,
      size: 1,
    });
    try {
      const e = await rejection(lemon.skills.install("hermes:bundled/research/arxiv", { approve: true }));
      expect(e.code).toBe("OPERATION_FAILED");
      expect(e.message).toBe('invalid path "../../../evil" in the hermes tree');
      hub.intercept = withEntry({
        path: "skills/research/arxiv/big.bin",
        mode: "100644",
        type: "blob",
        sha: blob,
        size: 1,
      });
      hub.rawOverride.set("skills/research/arxiv/big.bin", new Uint8Array(16 * 1024 * 1024 + 1));
      const big = await rejection(lemon.skills.install("hermes:bundled/research/arxiv", { approve: true }));
      expect(big.message).toBe(`response exceeds ${16 * 1024 * 1024} bytes`);
      expect(existsSync(join(box.agentDir, "skill", "arxiv"))).toBe(false);
    } finally {
      hub.intercept = null;
      hub.rawOverride.clear();
    }
  });

  test("unknown ids are NOT_FOUND; ids with '..' or an unknown collection do not resolve", async () => {
    await using box = await sandbox();
    await using lemon = lemonOf(box);
    const missing = await rejection(lemon.skills.install("hermes:bundled/research/nope", { approve: true }));
    expect(missing.code).toBe("NOT_FOUND");
    expect(missing.message).toBe("hermes skill 'hermes:bundled/research/nope' not found at main");
    for (const id of ["hermes:bundled/../x", "hermes:extra/research/arxiv"]) {
      const e = await rejection(lemon.skills.install(id, { approve: true }));
      expect(e.code).toBe("INVALID_PARAMS");
    }
  });
});

describe.skipIf(!HAS)("local checkout (LEMON_HERMES_REPO)", () => {
  test("walks the checkout with details from disk and the commit from .git; installs by copy", async () => {
    await using box = await sandbox();
    await using lemon = lemonOf(box, { LEMON_HERMES_REPO: work, LEMON_GITHUB_API_URL: "http://127.0.0.1:9" });
    const cat = await lemon.skills.hermesCatalog({ details: true, collection: "bundled", category: "research" });
    expect(cat.source).toBe("local");
    expect(cat.commit).toBe(await git(work, "rev-parse", "HEAD"));
    expect(cat.skills.map((s) => s.id)).toEqual(["hermes:bundled/research/arxiv"]);
    expect(cat.skills[0]?.description.length).toBeGreaterThan(10);
    const r = await lemon.skills.install("hermes:bundled/research/arxiv", { approve: true });
    expect(r.lock.trust_level).toBe("official");
    expect(r.lock.resolved_commit).toBe(cat.commit);
    expect(r.lock.upstream_hash).toBe(r.lock.bundle_hash);
    const link = await rejection(lemon.skills.install("hermes:bundled/bad/linked", { approve: true }));
    expect(link.message).toContain("symlink_not_allowed");
  });
});

describe.skipIf(!HAS)("update", () => {
  test("install downloads and the update check take [skills] http_timeout_ms, not the client default", async () => {
    await using box = await sandbox();
    await using lemon = createLemon({
      cwd: box.project,
      env: envOf(box),
      curator: false,
      config: { skills: { http_timeout_ms: 300 } },
    });
    const hang = (part: string) => {
      hub.intercept = (_req, path) => (path.includes(part) ? new Promise<Response>(() => {}) : null);
    };
    try {
      hang("/raw/");
      const d = await rejection(lemon.skills.install("hermes:bundled/media/gif-search", { approve: true }));
      expect(d.code).toBe("TIMEOUT");
      expect(d.message).toMatch(/^request to .*\/raw\/.* timed out after 300 ms$/);
      hub.intercept = null;
      await lemon.skills.install("hermes:bundled/media/gif-search", { approve: true });
      hang("/commits/");
      const u = await rejection(lemon.skills.update("gif-search", { check: true }));
      expect(u.message).toBe(
        `request to ${hub.url}/repos/NousResearch/hermes-agent/commits/main timed out after 300 ms`,
      );
    } finally {
      hub.intercept = null;
    }
  });

  test("a new commit that changes the skill's tree is an update; one that does not is up to date", async () => {
    await using box = await sandbox();
    await using lemon = lemonOf(box);
    await lemon.skills.install("hermes:bundled/media/gif-search", { approve: true });
    await Bun.write(join(work, "skills/github/github-issues/NOTES.md"), "elsewhere\n");
    await git(work, "add", "-A");
    await git(work, "commit", "-q", "-m", "another skill changes");
    expect((await lemon.skills.update("gif-search", { check: true })).status).toBe("up_to_date");
    await Bun.write(join(work, "skills/media/gif-search/NOTES.md"), "new file\n");
    await git(work, "add", "-A");
    await git(work, "commit", "-q", "-m", "gif-search changes");
    const tree = await git(work, "rev-parse", "HEAD:skills/media/gif-search");
    expect(await lemon.skills.update("gif-search", { check: true })).toMatchObject({
      status: "update_available",
      to: tree,
    });
    const u = await lemon.skills.update("gif-search", { approve: true });
    expect(u).toMatchObject({ status: "updated", to: tree });
    expect(readFileSync(join(box.agentDir, "skill", "gif-search", "NOTES.md"), "utf8")).toBe("new file\n");
  });
});
