// The registry source (install.md §4.4): search and entry lookups against a loopback registry
// server, installs and updates that clone real git repositories over smart HTTP, trust from the
// namespace only, and every way an entry can be bad.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createContext, type LemonContext } from "../../../src/core/context.ts";
import { LemonError } from "../../../src/core/errors.ts";
import { createLemon } from "../../../src/core/index.ts";
import {
  fetchRegistryEntry,
  NO_REGISTRY,
  registryBase,
  registryFor,
  searchRegistry,
} from "../../../src/core/skills/online/registry.ts";
import { installSkill, type InstallRequest } from "../../../src/core/skills/install/install.ts";
import { updateSkill } from "../../../src/core/skills/install/update.ts";
import { createRepo, skillMd, type GitRepo } from "../../support/git-repos.ts";
import { gitHttpServer, hangServer, staticServer, type TestServer } from "../../support/git-http-server.ts";
import { sandbox, type Sandbox } from "../../support/sandbox.ts";

const root = realpathSync(mkdtempSync(join(tmpdir(), "lemon-registry-")));
const repos = join(root, "repos");
mkdirSync(repos, { recursive: true });
let git: TestServer;
let multi: GitRepo;
let c1 = "";
let c2 = "";
const fast = { retryDelaysMs: [1, 1] };

beforeAll(async () => {
  multi = await createRepo(repos, "catalog", {
    "skills/k8s-rollout/SKILL.md": skillMd("k8s-rollout", "first version"),
    "skills/other/SKILL.md": skillMd("other"),
    "README.md": "# catalog\n",
  });
  c1 = multi.head;
  await multi.tag("v1");
  c2 = await multi.commit({ "skills/k8s-rollout/SKILL.md": skillMd("k8s-rollout", "second version") }, "second");
  git = gitHttpServer(repos);
});
afterAll(() => {
  git.stop();
  rmSync(root, { recursive: true, force: true });
});

/** A registry whose entries map `/skills/<ref>` to a document; records each request's headers. */
function registry(entries: Record<string, unknown>, search: unknown = { skills: [] }) {
  const seen: { path: string; auth: string | null; ua: string | null }[] = [];
  const routes: Record<string, (req: Request) => Response> = {};
  const log = (req: Request) => {
    const u = new URL(req.url);
    seen.push({
      path: u.pathname + u.search,
      auth: req.headers.get("authorization"),
      ua: req.headers.get("user-agent"),
    });
  };
  routes["/search"] = (req) => {
    log(req);
    return Response.json(search);
  };
  for (const [ref, doc] of Object.entries(entries))
    routes[`/skills/${ref}`] = (req) => {
      log(req);
      return typeof doc === "string" ? new Response(doc) : Response.json(doc);
    };
  const srv = staticServer(routes);
  return { ...srv, seen };
}

async function failure(p: Promise<unknown>): Promise<LemonError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof LemonError) return e;
    throw e;
  }
  throw new Error("expected a failure");
}

const ctxOf = (box: Sandbox, env: Record<string, string | undefined> = {}): LemonContext =>
  createContext({ cwd: box.project, env: { ...box.env, ...env }, homeDir: box.home }, "test");

const install = (ctx: LemonContext, source: string, more: Partial<InstallRequest> = {}) =>
  installSkill(ctx, { source, global: true, agent: "lemon", approve: true, force: false, ...more });

const entryFor = (ref: string, more: Record<string, unknown> = {}) => ({
  ref,
  name: ref.split("/").pop(),
  description: "Roll out",
  clone_url: `${git.url}/catalog.git`,
  subdir: "skills/k8s-rollout",
  ...more,
});

describe("base URL", () => {
  test("module option, else LEMON_SKILLS_REGISTRY_URL, else [skills] registry_url; none is UNAVAILABLE", async () => {
    const env = { LEMON_SKILLS_REGISTRY_URL: "https://env.example/api/" };
    expect(registryBase({ option: "https://opt.example", env, config: "https://cfg.example" })).toBe(
      "https://opt.example",
    );
    expect(registryBase({ env, config: "https://cfg.example" })).toBe("https://env.example/api");
    expect(registryBase({ env: {}, config: "https://cfg.example" })).toBe("https://cfg.example");
    const none = await failure(Promise.resolve().then(() => registryBase({ env: {} })));
    expect([none.code, none.message]).toEqual(["UNAVAILABLE", NO_REGISTRY]);
    const bad = await failure(Promise.resolve().then(() => registryBase({ env: {}, config: "ftp://x.example" })));
    expect(bad.code).toBe("INVALID_REQUEST");
    await using box = await sandbox();
    await box.write(join(box.agentDir, "config.toml"), '[skills]\nregistry_url = "https://cfg.example/r"\n');
    expect((await registryFor(ctxOf(box))).base).toBe("https://cfg.example/r");
    expect((await registryFor(ctxOf(box, env))).base).toBe("https://env.example/api");
  });
});

describe("base URL through createLemon", () => {
  test("config.skills.registry_url wins over the env; readConfigFile: false ignores the file; http_timeout_ms applies", async () => {
    await using box = await sandbox();
    const ref = "acme/devops/k8s-rollout";
    const reg = registry({ [ref]: entryFor(ref) });
    const hang = hangServer();
    try {
      const env = { ...box.env, LEMON_SKILLS_REGISTRY_URL: hang.url };
      await using viaOption = createLemon({
        cwd: box.project,
        env,
        curator: false,
        config: { skills: { registry_url: reg.url } },
      });
      expect((await viaOption.skills.install(ref, { approve: true })).lock.source_kind).toBe("registry");
      await box.write(join(box.agentDir, "config.toml"), `[skills]\nregistry_url = "${reg.url}"\n`);
      await using noFile = createLemon({ cwd: box.project, env: box.env, curator: false, readConfigFile: false });
      const none = await failure(noFile.skills.install(ref, { approve: true, force: true }));
      expect([none.code, none.message]).toEqual(["UNAVAILABLE", NO_REGISTRY]);
      await using slow = createLemon({
        cwd: box.project,
        env,
        curator: false,
        config: { skills: { http_timeout_ms: 100 } },
      });
      const t = await failure(slow.skills.install(ref, { approve: true, force: true }));
      expect(t.code).toBe("TIMEOUT");
    } finally {
      reg.stop();
      hang.stop();
    }
  });
});

describe("search", () => {
  test("maps hits in order, accepts id for ref, drops invalid refs and repeats, cuts to limit, cleans text", async () => {
    const reg = registry(
      {},
      {
        skills: [
          { ref: "official/devops/k8s-rollout", name: "k8s \u001b[31mrollout\u001b[0m", description: "line\nbreak" },
          { id: "acme/tools/lint" },
          { ref: "../../etc/passwd", name: "evil" },
          { ref: "two/segments" },
          { ref: "official/devops/k8s-rollout" },
          "not an object",
          { ref: "acme/tools/third" },
        ],
      },
    );
    try {
      const hits = await searchRegistry(reg.url, "k8s roll", 2, fast);
      expect(hits).toEqual([
        { ref: "official/devops/k8s-rollout", name: "k8s rollout", description: "line break" },
        { ref: "acme/tools/lint", name: "lint", description: "" },
      ]);
      expect(reg.seen[0]?.path).toBe("/search?q=k8s%20roll&limit=2");
      expect(reg.seen[0]?.ua).toMatch(/^lemon\//);
    } finally {
      reg.stop();
    }
  });

  test("malformed JSON, a wrong shape and an oversized answer fail OPERATION_FAILED", async () => {
    const srv = staticServer({
      "/bad/search": "{not json",
      "/shape/search": JSON.stringify({ skills: "nope" }),
      "/big/search": () => new Response(new Uint8Array(5 * 1024 * 1024)),
    });
    try {
      const a = await failure(searchRegistry(`${srv.url}/bad`, "x", 5, fast));
      expect([a.code, a.message]).toEqual(["OPERATION_FAILED", `${srv.url}/bad/search did not return valid JSON`]);
      expect((await failure(searchRegistry(`${srv.url}/shape`, "x", 5, fast))).code).toBe("OPERATION_FAILED");
      const big = await failure(searchRegistry(`${srv.url}/big`, "x", 5, fast));
      expect(big.message).toBe(`response exceeds ${4 * 1024 * 1024} bytes`);
    } finally {
      srv.stop();
    }
  });

  test("a hanging registry times out", async () => {
    const srv = hangServer();
    try {
      const e = await failure(searchRegistry(srv.url, "x", 5, { ...fast, timeoutMs: 100 }));
      expect(e.code).toBe("TIMEOUT");
    } finally {
      srv.stop();
    }
  });
});

describe("HTTP behaviour", () => {
  test("a redirect to another origin is followed without credentials; a loop stops; 429 is retried", async () => {
    const ref = "acme/devops/k8s-rollout";
    const target = registry({ [ref]: entryFor(ref) });
    let limited = 0;
    const front = staticServer({
      [`/skills/${ref}`]: () =>
        new Response(null, { status: 302, headers: { location: `${target.url}/skills/${ref}` } }),
      "/loop/skills/acme/devops/k8s-rollout": (req) =>
        new Response(null, { status: 302, headers: { location: new URL(req.url).pathname } }),
      "/busy/skills/acme/devops/k8s-rollout": () =>
        limited++ === 0
          ? new Response("slow down", { status: 429, headers: { "retry-after": "0" } })
          : Response.json(entryFor(ref)),
    });
    try {
      expect((await fetchRegistryEntry(front.url, ref, fast)).ref).toBe(ref);
      expect(target.seen.map((x) => x.auth)).toEqual([null]);
      const loop = await failure(fetchRegistryEntry(`${front.url}/loop`, ref, fast));
      expect(loop.message).toBe(`too many redirects from ${front.url}/loop/skills/${ref}`);
      expect((await fetchRegistryEntry(`${front.url}/busy`, ref, fast)).ref).toBe(ref);
      expect(limited).toBe(2);
    } finally {
      front.stop();
      target.stop();
    }
  });
});

describe("proxy", () => {
  test("entry lookups go through HTTP_PROXY from the given env, with no credential", async () => {
    const ref = "acme/devops/k8s-rollout";
    const seen: { url: string; auth: string | null }[] = [];
    const proxy = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch(req) {
        seen.push({ url: req.url, auth: req.headers.get("authorization") });
        return Response.json(entryFor(ref));
      },
    });
    try {
      const env = { HTTP_PROXY: `http://127.0.0.1:${proxy.port}`, GITHUB_TOKEN: "ghp_secret" };
      const entry = await fetchRegistryEntry("http://registry.invalid", ref, { ...fast, env });
      expect(entry.ref).toBe(ref);
      expect(seen).toEqual([{ url: `http://registry.invalid/skills/${ref}`, auth: null }]);
    } finally {
      proxy.stop(true);
    }
  });
});

describe("entries", () => {
  test("404, a missing clone URL and every invalid git field have their exact errors", async () => {
    const ref = "acme/devops/k8s-rollout";
    const cases: Record<string, unknown> = {
      "acme/x/noclone": { ref: "acme/x/noclone", name: "n" },
      "acme/x/subdir": entryFor("acme/x/subdir", { subdir: "../outside" }),
      "acme/x/abs": entryFor("acme/x/abs", { subdir: "/etc" }),
      "acme/x/gitref": entryFor("acme/x/gitref", { git_ref: "--upload-pack=evil" }),
      "acme/x/commit": entryFor("acme/x/commit", { commit: "abc123" }),
      "acme/x/ext": entryFor("acme/x/ext", { clone_url: "ext::sh -c evil" }),
      "acme/x/opt": entryFor("acme/x/opt", { clone_url: "ssh://-oProxyCommand=evil/x" }),
      "acme/x/frag": entryFor("acme/x/frag", { clone_url: `${git.url}/catalog.git#main:skills` }),
      "acme/x/other": entryFor("official/x/other"),
      "acme/x/type": entryFor("acme/x/type", { subdir: 7 }),
      [ref]: entryFor(ref, { url: "ignored", clone_url: `${git.url}/catalog.git` }),
    };
    const reg = registry(cases);
    try {
      const nf = await failure(fetchRegistryEntry(reg.url, "acme/x/missing", fast));
      expect([nf.code, nf.message]).toEqual(["NOT_FOUND", "registry skill 'acme/x/missing' not found"]);
      const nc = await failure(fetchRegistryEntry(reg.url, "acme/x/noclone", fast));
      expect([nc.code, nc.message]).toEqual(["OPERATION_FAILED", "registry entry has no clone_url"]);
      for (const bad of ["subdir", "abs", "gitref", "commit", "ext", "opt", "frag", "other", "type"]) {
        const e = await failure(fetchRegistryEntry(reg.url, `acme/x/${bad}`, fast));
        expect([bad, e.code, e.message]).toEqual([bad, "OPERATION_FAILED", "registry entry is invalid"]);
      }
      const ok = await fetchRegistryEntry(reg.url, ref, fast);
      expect(ok).toMatchObject({ ref, cloneUrl: `${git.url}/catalog.git`, subdir: "skills/k8s-rollout", commit: null });
    } finally {
      reg.stop();
    }
  });

  test("a file:// clone URL only from a loopback or file: registry; `url` stands in for clone_url", async () => {
    const ref = "acme/devops/k8s-rollout";
    const doc = JSON.stringify({ ref, url: multi.url, subdir: "skills/k8s-rollout" });
    // A remote registry, answered in-process so no request leaves the machine.
    const remote = (async () => new Response(doc)) as unknown as typeof fetch;
    const e = await failure(fetchRegistryEntry("https://registry.example", ref, { ...fast, fetch: remote }));
    expect(e.message).toBe("registry entry is invalid");
    const reg = registry({ [ref]: JSON.parse(doc) });
    try {
      expect((await fetchRegistryEntry(reg.url, ref, fast)).cloneUrl).toBe(multi.url);
    } finally {
      reg.stop();
    }
  });
});

describe("install and update", () => {
  test("installs through git with subdir and ref; trust from the namespace, not the entry; no token sent", async () => {
    await using box = await sandbox();
    const reg = registry({
      "acme/devops/k8s-rollout": entryFor("acme/devops/k8s-rollout", { git_ref: "v1", trust_level: "official" }),
      "official/devops/k8s-rollout": entryFor("official/devops/k8s-rollout"),
    });
    try {
      const ctx = ctxOf(box, { LEMON_SKILLS_REGISTRY_URL: reg.url, GITHUB_TOKEN: "ghp_secret" });
      const approvals: string[] = [];
      const out = await install(ctx, "acme/devops/k8s-rollout", {
        approve: async (r) => {
          if (r.kind === "skill_install") approvals.push(`${r.kind}:${r.trustLevel}:${r.source}`);
          return true;
        },
      });
      if (out.kind !== "activated") throw new Error("not installed");
      expect(approvals[0]).toBe("skill_install:community:acme/devops/k8s-rollout");
      expect(out.key).toBe("k8s-rollout");
      expect(out.lock).toMatchObject({
        source_kind: "registry",
        source_id: "acme/devops/k8s-rollout",
        trust_level: "community",
        resolved_commit: c1,
        upstream_hash: c1,
      });
      expect(readFileSync(join(box.agentDir, "skill", "k8s-rollout", "SKILL.md"), "utf8")).toContain("first version");
      const off = await install(ctx, "official/devops/k8s-rollout", { as: "rollout2" });
      if (off.kind !== "activated") throw new Error("not installed");
      expect(off.lock).toMatchObject({ trust_level: "official", resolved_commit: c2 });
      expect(reg.seen.every((s) => s.auth === null)).toBe(true);
    } finally {
      reg.stop();
    }
  });

  test("a commit pin is checked out; update follows the entry to a new commit", async () => {
    await using box = await sandbox();
    const ref = "acme/devops/k8s-rollout";
    const entries: Record<string, unknown> = { [ref]: entryFor(ref, { commit: c1 }) };
    const reg = registry(entries);
    try {
      const ctx = ctxOf(box, { LEMON_SKILLS_REGISTRY_URL: reg.url });
      const out = await install(ctx, ref);
      if (out.kind !== "activated") throw new Error("not installed");
      expect(out.lock.resolved_commit).toBe(c1);
      const same = await updateSkill(ctx, "k8s-rollout", { global: true, approve: true, force: false, check: true });
      expect(same.status).toBe("up_to_date");
      reg.stop();
      const moved = registry({ [ref]: entryFor(ref, { commit: c2 }) });
      try {
        const ctx2 = ctxOf(box, { LEMON_SKILLS_REGISTRY_URL: moved.url });
        const check = await updateSkill(ctx2, "k8s-rollout", {
          global: true,
          approve: true,
          force: false,
          check: true,
        });
        expect(check).toMatchObject({ status: "update_available", from: c1, to: c2 });
        const done = await updateSkill(ctx2, "k8s-rollout", {
          global: true,
          approve: true,
          force: false,
          check: false,
        });
        expect(done.status).toBe("updated");
        expect(readFileSync(join(box.agentDir, "skill", "k8s-rollout", "SKILL.md"), "utf8")).toContain(
          "second version",
        );
      } finally {
        moved.stop();
      }
    } finally {
      reg.stop();
    }
  });

  test("no registry configured fails UNAVAILABLE before approval; an invalid entry installs nothing", async () => {
    await using box = await sandbox();
    let asked = 0;
    const approve = async () => {
      asked++;
      return true;
    };
    const none = await failure(install(ctxOf(box), "official/devops/k8s-rollout", { approve }));
    expect([none.code, none.message, asked]).toEqual(["UNAVAILABLE", NO_REGISTRY, 0]);
    const reg = registry({ "acme/devops/bad": entryFor("acme/devops/bad", { subdir: "a/../b" }) });
    try {
      const e = await failure(install(ctxOf(box, { LEMON_SKILLS_REGISTRY_URL: reg.url }), "acme/devops/bad"));
      expect([e.code, e.message]).toEqual(["OPERATION_FAILED", "registry entry is invalid"]);
      expect(() => readFileSync(join(box.agentDir, "skills.lock.json"))).toThrow();
    } finally {
      reg.stop();
    }
  });

  test("a file: registry (a plain directory of JSON files) installs too", async () => {
    await using box = await sandbox();
    const ref = "acme/devops/k8s-rollout";
    const dir = join(box.root, "registry");
    await box.write(join(dir, "skills", ref), JSON.stringify(entryFor(ref, { clone_url: multi.url })));
    await box.write(join(dir, "search"), JSON.stringify({ skills: [{ ref, name: "k8s-rollout" }] }));
    const base = `file://${dir}`;
    expect(await searchRegistry(base, "anything", 10)).toEqual([{ ref, name: "k8s-rollout", description: "" }]);
    const out = await install(ctxOf(box, { LEMON_SKILLS_REGISTRY_URL: base }), ref);
    expect(out.kind === "activated" && out.lock.resolved_commit).toBe(c2);
    const nf = await failure(fetchRegistryEntry(base, "acme/devops/none"));
    expect(nf.message).toBe("registry skill 'acme/devops/none' not found");
  });
});

describe("CLI", () => {
  test("skill install of a registry ref: --list, then a JSON install (community: not the official namespace)", async () => {
    await using box = await sandbox();
    const ref = "acme/devops/k8s-rollout";
    const reg = registry({ [ref]: entryFor(ref, { subdir: "skills" }) });
    try {
      const env = { LEMON_SKILLS_REGISTRY_URL: reg.url };
      const list = await box.cli(["skill", "install", ref, "--list", "--json"], { env });
      expect(list.code).toBe(0);
      expect((list.json().skills as { key: string }[]).map((s) => s.key).sort()).toEqual(["k8s-rollout", "other"]);
      const out = await box.cli(["skill", "install", ref, "--skill", "k8s-rollout", "--approve", "--json"], { env });
      expect(out.code).toBe(0);
      expect(out.json()).toMatchObject({
        ok: true,
        action: "installed",
        skill: { key: "k8s-rollout", trust_level: "community" },
      });
      const none = await box.cli(["skill", "install", "acme/devops/missing", "--approve", "--json"], { env });
      expect(none.code).toBe(1);
      expect(none.json().error).toMatchObject({
        code: "NOT_FOUND",
        message: "registry skill 'acme/devops/missing' not found",
      });
      const unset = await box.cli(["skill", "install", ref, "--approve"]);
      expect(unset.code).toBe(1);
      expect(unset.stderr).toContain(NO_REGISTRY);
    } finally {
      reg.stop();
    }
  });
});
