// Online discovery (install.md §11) against real loopback servers: a GitHub-shaped search API, a
// registry and well-known indexes; merging, dedupe, token confinement, failing sources, bad input.
import { afterEach, expect, test } from "bun:test";
import {
  checkWellKnownOrigin,
  discover,
  discoverConfig,
  mergeResults,
  type DiscoverConfig,
  type DiscoveryResult,
} from "../../../../src/core/skills/online/discover.ts";
import {
  ghRepo as repo,
  githubApi,
  json,
  registrySearch as registry,
  serve,
  stopServers,
  wellKnown,
} from "../../../support/discovery-servers.ts";

afterEach(stopServers);

function cfg(over: Partial<DiscoverConfig>): DiscoverConfig {
  return {
    registryUrl: null,
    wellKnown: [],
    githubApi: "http://127.0.0.1:9",
    githubRaw: "http://127.0.0.1:9",
    githubToken: null,
    timeoutMs: 2000,
    retryDelaysMs: [1, 1],
    ...over,
  };
}

test("three sources merged: scores of §11, sorted by score then id, cut to max", async () => {
  const gh = githubApi([
    repo("acme/k8s-rollout", 500, "Kubernetes rollouts"),
    repo("zed/tools", 7, "has a k8s-rollout helper"),
    repo("bad/../x", 900),
    { full_name: 42 },
  ]);
  const reg = registry([
    { ref: "official/devops/k8s-rollout", name: "k8s-rollout", description: "Rollouts" },
    { id: "team/ops/k8s-rollback", description: "Rollback" },
    { ref: "two/segments" },
    { ref: "../../etc" },
  ]);
  const wk = wellKnown([
    { name: "k8s-rollout", description: "From the web", files: ["SKILL.md", "scripts/run.sh"] },
    { name: "other", description: "unrelated", files: ["SKILL.md"] },
    { name: "k8s-rollout-evil", files: ["SKILL.md", "../escape"] },
    { name: "k8s-rollout-abs", files: ["SKILL.md", "/etc/passwd"] },
    { name: "k8s-rollout-bs", files: ["SKILL.md", "a\\..\\b"] },
    { name: "k8s-rollout-nul", files: ["SKILL.md", "a\u0000b"] },
    { name: "k8s-rollout-many", files: ["SKILL.md", ...Array.from({ length: 2000 }, (_, i) => `f${i}`)] },
    { name: "k8s-rollout-nomd", files: ["README.md"] },
    { name: "k8s-rollout/x", files: ["SKILL.md"] },
  ]);
  const r = await discover(
    "k8s-rollout",
    undefined,
    cfg({ githubApi: gh.origin, registryUrl: `${reg.origin}/`, wellKnown: [wk.origin] }),
  );
  expect(r.warnings).toEqual([]);
  const rows = r.results.map((x) => [x.source, x.id, x.score, x.validated]);
  expect(rows).toEqual([
    ["github", "gh:acme/k8s-rollout", 150, false],
    ["registry", "official/devops/k8s-rollout", 100, true],
    ["registry", "team/ops/k8s-rollback", 99, true],
    ["well_known", `${wk.origin}/.well-known/skills/k8s-rollout`, 60, false],
    ["github", "gh:zed/tools", 27, false],
  ]);
  expect(r.results[1]).toMatchObject({
    name: "k8s-rollout",
    description: "Rollouts",
    url: `${reg.origin}/skills/official/devops/k8s-rollout`,
  });
  expect(r.results[2]?.name).toBe("k8s-rollback");
  expect(r.results[3]).toMatchObject({ url: r.results[3]?.id, description: "From the web" });
  const q = gh.seen[0]?.query;
  expect(q?.get("q")).toBe("topic:lemon-skill k8s-rollout in:name,description,readme");
  expect([q?.get("sort"), q?.get("order"), q?.get("per_page")]).toEqual(["stars", "desc", "10"]);
  expect(gh.seen[0]?.accept).toBe("application/vnd.github+json");
  expect(reg.seen[0]?.query.get("limit")).toBe("10");
  expect(reg.seen[0]?.path).toBe("/search");

  const two = await discover("k8s-rollout", 2, cfg({ githubApi: gh.origin, registryUrl: reg.origin }));
  expect(two.results.map((x) => x.id)).toEqual(["gh:acme/k8s-rollout", "official/devops/k8s-rollout"]);
  expect(reg.seen[1]?.query.get("limit")).toBe("2");
});

test("dedupe keeps the higher score; ties sort by id", () => {
  const hit = (id: string, score: number, source: DiscoveryResult["source"] = "github"): DiscoveryResult => ({
    source,
    id,
    name: id,
    description: "",
    url: "",
    score,
    validated: false,
  });
  const merged = mergeResults(
    [
      [hit("b", 10), hit("a", 10), hit("x", 5)],
      [hit("x", 70, "registry"), hit("b", 3)],
    ],
    10,
  );
  expect(merged.map((m) => [m.id, m.score, m.source])).toEqual([
    ["x", 70, "registry"],
    ["a", 10, "github"],
    ["b", 10, "github"],
  ]);
});

test("GITHUB_TOKEN goes to the GitHub API only, never to a registry, a well-known host or a redirect target", async () => {
  const wk = wellKnown([{ name: "deploy", files: ["SKILL.md"] }]);
  const reg = registry([{ ref: "acme/ops/deploy" }]);
  const gh = serve((u) =>
    u.pathname === "/search/repositories" ? json({ items: [repo("acme/deploy", 1)] }) : json({}, { status: 404 }),
  );
  const config = discoverConfig(
    { GITHUB_TOKEN: "ghp_secret", LEMON_GITHUB_API_URL: `${gh.origin}/`, LEMON_GITHUB_RAW_URL: "http://127.0.0.1:9" },
    { registryUrl: reg.origin, wellKnown: [wk.origin], httpTimeoutMs: 2000 },
  );
  const r = await discover("deploy", 5, config);
  expect(r.warnings).toEqual([]);
  expect(r.results.map((x) => x.source).sort()).toEqual(["github", "registry", "well_known"]);
  expect(gh.seen[0]?.auth).toBe("Bearer ghp_secret");
  expect(reg.seen[0]?.auth).toBeNull();
  expect(wk.seen[0]?.auth).toBeNull();

  // A GitHub API answer that redirects to another origin: the token stays behind.
  const other = serve(() => json({ items: [] }));
  const hop = serve((u) => Response.redirect(`${other.origin}${u.pathname}${u.search}`, 302));
  const r2 = await discover("deploy", 5, cfg({ githubApi: hop.origin, githubToken: "ghp_secret" }));
  expect(r2.warnings).toEqual([]);
  expect(hop.seen[0]?.auth).toBe("Bearer ghp_secret");
  expect(other.seen[0]?.auth).toBeNull();
  expect(JSON.stringify(r2)).not.toContain("ghp_secret");
});

test("a failing source adds a warning and the others still answer", async () => {
  const badJson = serve(() => new Response("{not json", { headers: { "content-type": "application/json" } }));
  const huge = serve(() => new Response("x".repeat(5 * 1024 * 1024)));
  const wrongShape = wellKnown([]);
  const shape = serve(() => json({ skills: "nope" }));
  const missing = serve(() => new Response("gone", { status: 404 }));
  const wk = wellKnown([{ name: "deploy", description: "deploy things", files: ["SKILL.md"] }]);
  const r = await discover(
    "deploy",
    10,
    cfg({
      githubApi: huge.origin,
      registryUrl: badJson.origin,
      wellKnown: [missing.origin, shape.origin, wrongShape.origin, wk.origin],
    }),
  );
  expect(r.results.map((x) => x.id)).toEqual([`${wk.origin}/.well-known/skills/deploy`]);
  const msgs = Object.fromEntries(r.warnings.map((w) => [`${w.source}:${w.message.slice(0, 40)}`, w.message]));
  const bySource = (s: string) => r.warnings.filter((w) => w.source === s).map((w) => w.message);
  expect(bySource("github")).toEqual(["response exceeds 4194304 bytes"]);
  expect(bySource("registry")[0]).toContain("did not return valid JSON");
  const wkMsgs = bySource("well_known");
  expect(wkMsgs.length).toBe(2);
  expect(wkMsgs[0]).toStartWith(`${missing.origin}: `);
  expect(wkMsgs[0]).toContain("not found");
  expect(wkMsgs[1]).toBe(`${shape.origin}: invalid well-known index: /skills: expected array`);
  expect(Object.keys(msgs).length).toBe(4);
});

test("GitHub rate limit: one request, the warning names the reset time", async () => {
  const reset = 1_900_000_000;
  const gh = serve(
    () =>
      new Response('{"message":"API rate limit exceeded"}', {
        status: 403,
        headers: { "x-ratelimit-remaining": "0", "x-ratelimit-reset": String(reset) },
      }),
  );
  const r = await discover("deploy", 10, cfg({ githubApi: gh.origin }));
  expect(r.warnings).toEqual([
    {
      source: "github",
      message: `rate limited by ${gh.origin}; the limit resets at ${new Date(reset * 1000).toISOString().replace(".000Z", "Z")}`,
    },
  ]);
  expect(gh.seen.length).toBe(1);
  // A plain 403 (no exhausted limit) is an HTTP failure, not a rate limit.
  const denied = serve(() => new Response("no", { status: 403 }));
  const r2 = await discover("deploy", 10, cfg({ githubApi: denied.origin }));
  expect(r2.warnings[0]?.message).toBe(`HTTP 403 from ${denied.origin}/search/repositories`);
});

test("a hanging server is cut by the timeout and named in the warning; the response body is never shown", async () => {
  const hang = serve(() => new Promise<Response>(() => {}));
  const leak = serve(() => new Response("SECRET-BODY", { status: 500 }));
  const r = await discover("x", 10, cfg({ githubApi: hang.origin, registryUrl: `${leak.origin}/api`, timeoutMs: 150 }));
  expect(r.results).toEqual([]);
  const gh = r.warnings.find((w) => w.source === "github");
  expect(gh?.message).toBe(`request to ${hang.origin}/search/repositories timed out after 150 ms`);
  const reg = r.warnings.find((w) => w.source === "registry");
  expect(reg?.message).toBe(`HTTP 500 from ${leak.origin}/api/search`);
  expect(leak.seen.length).toBe(3);
  expect(JSON.stringify(r)).not.toContain("SECRET-BODY");
});

test("well-known origins: https, or http only on loopback; an origin only", async () => {
  expect(checkWellKnownOrigin("https://skills.example.com/")).toBe("https://skills.example.com");
  expect(checkWellKnownOrigin("http://127.0.0.1:8080")).toBe("http://127.0.0.1:8080");
  expect(checkWellKnownOrigin("http://localhost:1")).toBe("http://localhost:1");
  for (const bad of [
    "http://example.com",
    "ftp://example.com",
    "file:///etc",
    "https://u:p@example.com",
    "https://example.com/x",
    "nope",
  ])
    expect(() => checkWellKnownOrigin(bad)).toThrow();
  const r = await discover("x", 10, cfg({ wellKnown: ["http://example.com", "https://a:b@example.com/?t=1"] }));
  const wk = r.warnings.filter((w) => w.source === "well_known").map((w) => w.message);
  expect(wk).toEqual([
    "http://example.com/ is not an https origin (http only on loopback)",
    "https://example.com/ must be an origin only (no path, query or credentials)",
  ]);
  expect(JSON.stringify(r)).not.toContain("a:b");
});

test("remote text is flattened and clamped; invisible and control characters never reach output", async () => {
  const reg = registry([
    { ref: "acme/ops/deploy", name: "de\u001b[31mploy\u202e", description: `line1\nline2\u0007 ${"d".repeat(3000)}` },
  ]);
  const r = await discover("deploy", 10, cfg({ registryUrl: reg.origin }));
  const hit = r.results[0];
  expect(hit?.name).toBe("deploy");
  expect(hit?.description.startsWith("line1 line2 d")).toBe(true);
  expect(Array.from(hit?.description ?? "").length).toBe(1024);
});

test("invalid arguments fail; no registry configured means no registry request and no warning", async () => {
  await expect(discover("   ", 10, cfg({}))).rejects.toMatchObject({ code: "INVALID_PARAMS" });
  await expect(discover("x", 0, cfg({}))).rejects.toMatchObject({ code: "INVALID_PARAMS" });
  await expect(discover("x", 1.5, cfg({}))).rejects.toMatchObject({ code: "INVALID_PARAMS" });
  const gh = githubApi([]);
  const r = await discover("x", 500, cfg({ githubApi: gh.origin }));
  expect(r).toEqual({ results: [], warnings: [] });
});

test("module: skills.discover and skills.search read the env and config.skills (discovery.well_known, registry_url)", async () => {
  const { createLemon } = await import("../../../../src/core/index.ts");
  const { sandbox } = await import("../../../support/sandbox.ts");
  await using box = await sandbox();
  const gh = githubApi([repo("acme/deploy", 3, "deploy it")]);
  const reg = registry([{ ref: "acme/ops/deploy", description: "deploy from the registry" }]);
  const wk = wellKnown([{ name: "deploy", files: ["SKILL.md"] }]);
  await using lemon = createLemon({
    cwd: box.project,
    // The module option wins over the env (install.md §4.4), which wins over the file.
    env: {
      ...box.env,
      LEMON_GITHUB_API_URL: gh.origin,
      LEMON_GITHUB_RAW_URL: "http://127.0.0.1:9",
      LEMON_SKILLS_REGISTRY_URL: "http://127.0.0.1:9",
    },
    curator: false,
    config: { skills: { registry_url: reg.origin, discovery: { well_known: [wk.origin] } } },
  });
  const d = await lemon.skills.discover("deploy", { max: 2 });
  expect(d.results.map((r) => r.id)).toEqual(["acme/ops/deploy", "gh:acme/deploy"]);
  expect(d.warnings).toEqual([]);
  const s = await lemon.skills.search("deploy", { maxOnline: 1 });
  expect(s.online.map((r) => r.id)).toEqual(["acme/ops/deploy"]);
  const before = gh.seen.length;
  expect((await lemon.skills.search("deploy", { online: false })).online).toEqual([]);
  expect(gh.seen.length).toBe(before);
  for (const call of [
    () => lemon.skills.discover("deploy", { max: 0 }),
    () => lemon.skills.discover("deploy", { max: "3" as unknown as number }),
    () => lemon.skills.discover(7 as unknown as string),
    () => lemon.skills.search("deploy", { maxOnline: -1 }),
  ])
    await expect(call()).rejects.toMatchObject({ code: "INVALID_PARAMS" });
});

test("a query over 200 characters: discover refuses it, search stays local with a warning", async () => {
  const long = "deploy ".repeat(40);
  await expect(discover(long, 10, cfg({}))).rejects.toThrow("query must be at most 200 characters");
  const { combinedSearch } = await import("../../../../src/core/skills/search/search.ts");
  let asked = false;
  const r = await combinedSearch(
    long,
    {},
    {
      local: async () => [],
      online: async () => {
        asked = true;
        return { results: [], warnings: [] };
      },
    },
  );
  expect(asked).toBe(false);
  expect(r.warnings).toEqual([
    { source: "online", message: "query longer than 200 characters; online sources were not asked" },
  ]);
});

test("HTTP_PROXY of the context routes discovery requests (issue 15 item 4)", async () => {
  const { createLemon } = await import("../../../../src/core/index.ts");
  const { sandbox } = await import("../../../support/sandbox.ts");
  await using box = await sandbox();
  const gh = githubApi([repo("acme/deploy", 3, "deploy it")]);
  const seen: string[] = [];
  const proxy = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const u = new URL(req.url);
      seen.push(u.host);
      const res = await fetch(`${gh.origin}${u.pathname}${u.search}`, { headers: req.headers });
      return new Response(await res.arrayBuffer(), { status: res.status, headers: res.headers });
    },
  });
  try {
    await using lemon = createLemon({
      cwd: box.project,
      env: { ...box.env, HTTP_PROXY: `http://127.0.0.1:${proxy.port}`, LEMON_GITHUB_API_URL: "http://gh-api.invalid" },
      curator: false,
      readConfigFile: false,
    });
    const d = await lemon.skills.discover("deploy", { max: 1 });
    expect(d.results.map((r) => r.id)).toEqual(["gh:acme/deploy"]);
    expect(seen).toEqual(["gh-api.invalid"]);
  } finally {
    proxy.stop(true);
  }
});

test("an invalid GitHub root in the environment is a github warning saying what skill hermes says", async () => {
  const config = discoverConfig(
    { GITHUB_TOKEN: "t", LEMON_GITHUB_API_URL: "http://user:SECRETPW@[bad" },
    { registryUrl: null, wellKnown: [], httpTimeoutMs: 2000 },
  );
  const r = await discover("deploy", 5, config);
  expect(r.warnings).toEqual([{ source: "github", message: "invalid URL in LEMON_GITHUB_API_URL: <invalid url>" }]);
  const raw = discoverConfig(
    { LEMON_GITHUB_API_URL: "http://127.0.0.1:9", LEMON_GITHUB_RAW_URL: "http://[bad" },
    { registryUrl: null, wellKnown: [], httpTimeoutMs: 2000 },
  );
  expect((await discover("deploy", 5, raw)).warnings).toEqual([
    { source: "github", message: "invalid URL in LEMON_GITHUB_RAW_URL: <invalid url>" },
  ]);
});
