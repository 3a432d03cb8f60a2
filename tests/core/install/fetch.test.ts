// fetchSource for each kind (install.md §4.1–§4.3, §4.6) and the HTTP client of §3, against real
// repositories and real loopback servers.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { VERSION } from "../../../src/core/build-info.ts";
import { LemonError } from "../../../src/core/errors.ts";
import { createLemon } from "../../../src/core/index.ts";
import { type FetchOptions, fetchSource } from "../../../src/core/skills/install/fetch.ts";
import { getJson, httpGet, retryAfterMs } from "../../../src/core/skills/install/http.ts";
import { parseSource } from "../../../src/core/skills/install/source.ts";
import { gitHttpServer, hangServer, staticServer, type TestServer } from "../../support/git-http-server.ts";
import { createRepo, historyRepo, multiSkillRepo, skillMd } from "../../support/git-repos.ts";

const root = realpathSync(mkdtempSync(join(tmpdir(), "lemon-fetch-")));
const repos = join(root, "repos");
const home = join(root, "home");
const cwd = join(root, "cwd");
for (const d of [repos, home, cwd, join(repos, "owner")]) mkdirSync(d, { recursive: true });
const env: Record<string, string | undefined> = { PATH: process.env.PATH, HOME: home };
let server: TestServer;
let hist: Awaited<ReturnType<typeof historyRepo>>;
let n = 0;

function into(): string {
  const d = join(root, `into-${n++}`);
  mkdirSync(d, { mode: 0o700 });
  return d;
}
const parse = (s: string, more: { ref?: string; path?: string; env?: Record<string, string | undefined> } = {}) =>
  parseSource(s, {
    cwd,
    homeDir: home,
    env: more.env ?? env,
    ...(more.ref ? { ref: more.ref } : {}),
    ...(more.path ? { path: more.path } : {}),
  });
const fast: FetchOptions = { env, retryDelaysMs: [0, 0] };

async function failure(p: Promise<unknown>): Promise<LemonError> {
  try {
    await p;
  } catch (e) {
    expect(LemonError.is(e)).toBe(true);
    expect((e as LemonError).message).not.toContain("\n");
    return e as LemonError;
  }
  throw new Error("expected a failure");
}

beforeAll(async () => {
  hist = await historyRepo(repos, "hist");
  await multiSkillRepo(join(repos, "owner"), "skills", ["alpha", "beta"]);
  server = gitHttpServer(repos);
});
afterAll(() => {
  server.stop();
  rmSync(root, { recursive: true, force: true });
});

describe("local", () => {
  test("the root is the real source path itself; --path selects inside it", async () => {
    mkdirSync(join(cwd, "src", "skills", "x"), { recursive: true });
    const r = await fetchSource(parse("./src"), into(), fast);
    expect(r).toEqual({ root: join(cwd, "src"), resolvedCommit: null, upstreamHash: null });
    expect((await fetchSource(parse("./src", { path: "skills/x" }), into(), fast)).root).toBe(
      join(cwd, "src", "skills", "x"),
    );
  });
  test("a symlinked subdir, or one under a symlink, is refused; a missing one is NOT_FOUND", async () => {
    mkdirSync(join(cwd, "l", "real"), { recursive: true });
    symlinkSync(join(cwd, "l", "real"), join(cwd, "l", "link"));
    const e = await failure(fetchSource(parse("./l", { path: "link" }), into(), fast));
    expect(e.code).toBe("INVALID_REQUEST");
    expect(e.message).toBe("symlink_not_allowed: link");
    mkdirSync(join(cwd, "l", "real", "deeper"));
    expect((await failure(fetchSource(parse("./l", { path: "link/deeper" }), into(), fast))).message).toBe(
      "symlink_not_allowed: link",
    );
    const m = await failure(fetchSource(parse("./l", { path: "nope" }), into(), fast));
    expect(m.code).toBe("NOT_FOUND");
  });
});

describe("git and github", () => {
  test("a git URL with a fragment ref: commit recorded as resolved and upstream", async () => {
    const r = await fetchSource(parse(`${hist.repo.url}#v1`), into(), fast);
    expect(r.resolvedCommit).toBe(hist.c1);
    expect(r.upstreamHash).toBe(hist.c1);
    expect(readFileSync(join(r.root, "SKILL.md"), "utf8")).toContain("first version");
    expect(existsSync(join(r.root, ".git"))).toBe(false);
  });
  test("gh: through LEMON_GITHUB_GIT_URL over HTTP, with a subdir", async () => {
    const genv = { ...env, LEMON_GITHUB_GIT_URL: server.url };
    const spec = parse("gh:owner/skills/skills/beta", { env: genv });
    const r = await fetchSource(spec, into(), { ...fast, env: genv });
    expect(r.root.endsWith(join("repo", "skills", "beta"))).toBe(true);
    expect(readdirSync(r.root).sort()).toEqual(["SKILL.md", "notes.md"]);
  });
  test("a subdir that is a symlink in the repository is refused", async () => {
    const linky = await createRepo(repos, "linky", { "skills/real/SKILL.md": skillMd("real") });
    symlinkSync("skills/real", join(linky.work, "alias"));
    await linky.commit({}, "add a symlink");
    const e = await failure(fetchSource(parse(`${linky.url}#:alias`), into(), fast));
    expect(e.message).toBe("symlink_not_allowed: alias");
    const m = await failure(fetchSource(parse(`${linky.url}#:skills/none`), into(), fast));
    expect(m.code).toBe("NOT_FOUND");
  });
});

describe("registry and hermes", () => {
  test("answer UNAVAILABLE", async () => {
    expect((await failure(fetchSource(parse("official/a/b"), into(), fast))).message).toBe(
      "no skills registry configured; set LEMON_SKILLS_REGISTRY_URL or [skills] registry_url",
    );
    // Hermes is fetched (tests/core/skills/online/hermes.test.ts); a checkout that is not there fails.
    const none = join(tmpdir(), "lemon-no-hermes-checkout");
    const h = await failure(
      fetchSource(parse("hermes:bundled/x"), into(), { ...fast, env: { ...env, LEMON_HERMES_REPO: none } }),
    );
    expect(h.code).toBe("NOT_FOUND");
    expect(h.message).toBe(`LEMON_HERMES_REPO is not a directory: ${none}`);
  });
});

describe("well_known", () => {
  const index = (files: unknown, name = "pdf") =>
    JSON.stringify({
      skills: [
        { name: "other", files: [] },
        { name, files },
      ],
    });
  function wk(routes: Parameters<typeof staticServer>[0]): TestServer {
    return staticServer(routes);
  }
  test("fetches the listed files into the fetch dir", async () => {
    const srv = wk({
      "/.well-known/skills/index.json": index(["SKILL.md", "scripts/run.sh"]),
      "/.well-known/skills/pdf/SKILL.md": skillMd("pdf"),
      "/.well-known/skills/pdf/scripts/run.sh": "echo hi\n",
    });
    try {
      const dir = into();
      const r = await fetchSource(parse(`${srv.url}/docs/.well-known/skills/pdf`), dir, fast);
      expect(r.root).toBe(join(dir, "well-known"));
      expect(r.resolvedCommit).toBeNull();
      expect(readFileSync(join(r.root, "scripts", "run.sh"), "utf8")).toBe("echo hi\n");
      expect(srv.requests).toContain("/.well-known/skills/index.json");
    } finally {
      srv.stop();
    }
  });
  test("hostile or broken indexes are refused before any file is fetched", async () => {
    const cases: [unknown, RegExp][] = [
      [["../x", "SKILL.md"], /file path "\.\.\/x" is empty, '\.' or '\.\.' segment/],
      [["/etc/passwd", "SKILL.md"], /is absolute/],
      [["a\\b", "SKILL.md"], /backslash or NUL/],
      [["SKILL.md", "a\u0000"], /backslash or NUL/],
      [["x".repeat(513), "SKILL.md"], /empty or too long/],
      [["README.md"], /does not list SKILL\.md/],
      [["SKILL.md", "SKILL.md"], /listed twice/],
      [["SKILL.md", "a", "a/b"], /is also a directory/],
      [Array.from({ length: 2001 }, (_, i) => `f${i}`), /more than 2000 files/],
      ["not-a-list", /not found/],
    ];
    for (const [files, re] of cases) {
      const srv = wk({ "/.well-known/skills/index.json": index(files) });
      try {
        const e = await failure(fetchSource(parse(`${srv.url}/.well-known/skills/pdf`), into(), fast));
        expect(e.message).toMatch(re);
        expect(srv.requests).toEqual(["/.well-known/skills/index.json"]);
      } finally {
        srv.stop();
      }
    }
  });
  test("a failed download stops the others and fails only after all have stopped", async () => {
    const files = ["SKILL.md", ...Array.from({ length: 40 }, (_, i) => `f${i}.md`)];
    const routes: Parameters<typeof staticServer>[0] = { "/.well-known/skills/index.json": index(files) };
    routes["/.well-known/skills/pdf/SKILL.md"] = skillMd("pdf");
    for (let i = 0; i < 40; i++)
      routes[`/.well-known/skills/pdf/f${i}.md`] = async () => {
        await Bun.sleep(i === 3 ? 0 : 30);
        return i === 3 ? new Response("gone", { status: 404 }) : new Response("x");
      };
    const srv = wk(routes);
    try {
      const dir = into();
      const e = await failure(fetchSource(parse(`${srv.url}/.well-known/skills/pdf`), dir, fast));
      expect(e.code).toBe("NOT_FOUND");
      const count = srv.requests.length;
      rmSync(dir, { recursive: true, force: true });
      await Bun.sleep(100);
      expect(existsSync(dir)).toBe(false);
      expect(srv.requests.length).toBe(count);
      expect(count).toBeLessThan(files.length + 1);
    } finally {
      srv.stop();
    }
  });
  test("a missing name is NOT_FOUND; a non-JSON index fails without an excerpt", async () => {
    const srv = wk({ "/.well-known/skills/index.json": "<html>secret page</html>" });
    try {
      const e = await failure(fetchSource(parse(`${srv.url}/.well-known/skills/pdf`), into(), fast));
      expect(e.message).toBe(`${srv.url}/.well-known/skills/index.json did not return valid JSON`);
    } finally {
      srv.stop();
    }
    const srv2 = wk({ "/.well-known/skills/index.json": index(["SKILL.md"], "other-name") });
    try {
      const e = await failure(fetchSource(parse(`${srv2.url}/.well-known/skills/pdf`), into(), fast));
      expect(e.code).toBe("NOT_FOUND");
      expect(e.message).toBe(`well-known skill 'pdf' not found at ${srv2.url}/.well-known/skills`);
    } finally {
      srv2.stop();
    }
  });
});

describe("well_known and hermes: [skills] http_timeout_ms and the context's proxy", () => {
  test("the spec's httpTimeoutMs bounds every well-known and hermes request", async () => {
    const hang = hangServer();
    try {
      const spec = { ...parse(`${hang.url}/.well-known/skills/pdf`), httpTimeoutMs: 200 };
      const e = await failure(fetchSource(spec, into(), fast));
      expect([e.code, e.message]).toEqual([
        "TIMEOUT",
        `request to ${hang.url}/.well-known/skills/index.json timed out after 200 ms`,
      ]);
      const h = { ...parse("hermes:bundled/cat/x"), httpTimeoutMs: 200 };
      const he = await failure(
        fetchSource(h, into(), {
          ...fast,
          env: { ...env, LEMON_GITHUB_API_URL: hang.url, LEMON_GITHUB_RAW_URL: hang.url },
        }),
      );
      expect([he.code, he.message]).toEqual([
        "TIMEOUT",
        `request to ${hang.url}/repos/NousResearch/hermes-agent/commits/main timed out after 200 ms`,
      ]);
    } finally {
      hang.stop();
    }
  });
  test("HTTP_PROXY of the fetch env routes well-known requests", async () => {
    const seen: string[] = [];
    const proxy = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch(req) {
        const u = new URL(req.url);
        seen.push(`${u.host}${u.pathname}`);
        if (u.pathname === "/.well-known/skills/index.json")
          return Response.json({ skills: [{ name: "pdf", files: ["SKILL.md"] }] });
        return new Response(skillMd("pdf"));
      },
    });
    try {
      const proxied = { ...fast, env: { ...env, HTTP_PROXY: `http://127.0.0.1:${proxy.port}` } };
      const r = await fetchSource(parse("http://wk.invalid/.well-known/skills/pdf"), into(), proxied);
      expect(readFileSync(join(r.root, "SKILL.md"), "utf8")).toBe(skillMd("pdf"));
      expect(seen).toEqual(["wk.invalid/.well-known/skills/index.json", "wk.invalid/.well-known/skills/pdf/SKILL.md"]);
    } finally {
      proxy.stop(true);
    }
  });
  test("install and update of a well-known skill take [skills] http_timeout_ms from the instance", async () => {
    const box = join(root, "wk-lemon");
    mkdirSync(join(box, "home"), { recursive: true });
    mkdirSync(join(box, "project"), { recursive: true });
    let hang = false;
    const srv = staticServer({
      "/.well-known/skills/index.json": () =>
        hang ? new Promise<Response>(() => {}) : Response.json({ skills: [{ name: "pdf", files: ["SKILL.md"] }] }),
      "/.well-known/skills/pdf/SKILL.md": skillMd("pdf"),
    });
    const lemon = createLemon({
      cwd: join(box, "project"),
      env: { PATH: process.env.PATH, HOME: join(box, "home"), LEMON_HOME: join(box, "home", ".lemon") },
      curator: false,
      config: { skills: { http_timeout_ms: 250 } },
    });
    try {
      hang = true;
      const src = `${srv.url}/.well-known/skills/pdf`;
      const e = await failure(lemon.skills.install(src, { approve: true, global: true }));
      expect(e.message).toBe(`request to ${srv.url}/.well-known/skills/index.json timed out after 250 ms`);
      hang = false;
      await lemon.skills.install(src, { approve: true, global: true });
      hang = true;
      const u = await failure(lemon.skills.update("pdf", { global: true, check: true }));
      expect(u.message).toBe(`request to ${srv.url}/.well-known/skills/index.json timed out after 250 ms`);
    } finally {
      await lemon.close();
      srv.stop();
    }
  });
});

describe("http client", () => {
  test("User-Agent lemon/<version>; 404 is NOT_FOUND with the redacted URL", async () => {
    let ua = "";
    const srv = staticServer({
      "/a": (req) => {
        ua = req.headers.get("user-agent") ?? "";
        return new Response("{}");
      },
    });
    try {
      expect(await getJson(`${srv.url}/a`, {})).toEqual({});
      expect(ua).toBe(`lemon/${VERSION}`);
      const u = srv.url.replace("http://", "http://me:pw@");
      const e = await failure(httpGet(`${u}/missing?token=t`, { maxBytes: 10 }));
      expect(e.code).toBe("NOT_FOUND");
      expect(e.message).toBe(`${srv.url}/missing not found (HTTP 404)`);
    } finally {
      srv.stop();
    }
  });
  test("caps: Content-Length over the cap, and an endless body stopped at the cap", async () => {
    const endless = () =>
      new Response(
        new ReadableStream({
          pull(c) {
            c.enqueue(new Uint8Array(64 * 1024));
          },
        }),
      );
    const srv = staticServer({ "/big": "x".repeat(2000), "/endless": endless });
    try {
      expect((await failure(httpGet(`${srv.url}/big`, { maxBytes: 1000 }))).message).toBe(
        "response exceeds 1000 bytes",
      );
      const e = await failure(httpGet(`${srv.url}/endless`, { maxBytes: 16 * 1024 * 1024 }));
      expect(e.code).toBe("OPERATION_FAILED");
      expect(e.message).toBe("response exceeds 16777216 bytes");
    } finally {
      srv.stop();
    }
  });
  test("redirects: followed up to 5, never to another scheme", async () => {
    const hop = (i: number) => () => new Response(null, { status: 302, headers: { location: `/r${i + 1}` } });
    const routes: Parameters<typeof staticServer>[0] = {
      "/r5": "done",
      "/file": () => Response.redirect("file:///etc/passwd", 302),
    };
    for (let i = 0; i < 5; i++) routes[`/r${i}`] = hop(i);
    for (let i = 6; i < 12; i++)
      routes[`/s${i}`] = () => new Response(null, { status: 302, headers: { location: `/s${i + 1}` } });
    const srv = staticServer(routes);
    try {
      const ok = await httpGet(`${srv.url}/r0`, { maxBytes: 100 });
      expect(new TextDecoder().decode(ok.body)).toBe("done");
      expect(ok.url).toBe(`${srv.url}/r5`);
      expect((await failure(httpGet(`${srv.url}/s6`, { maxBytes: 100 }))).message).toBe(
        `too many redirects from ${srv.url}/s6`,
      );
      expect((await failure(httpGet(`${srv.url}/file`, { maxBytes: 100 }))).message).toMatch(
        /^refusing redirect to file:/,
      );
    } finally {
      srv.stop();
    }
  });
  test("a bearer token stays on its origin", async () => {
    const seen: (string | null)[] = [];
    const other = staticServer({
      "/x": (req) => {
        seen.push(req.headers.get("authorization"));
        return new Response("ok");
      },
    });
    const srv = staticServer({
      "/a": (req) => {
        seen.push(req.headers.get("authorization"));
        return Response.redirect(`${other.url}/x`, 302);
      },
    });
    try {
      await httpGet(`${srv.url}/a`, { maxBytes: 100, token: { value: "tok", origins: [srv.url, other.url] } });
      expect(seen).toEqual(["Bearer tok", null]);
    } finally {
      srv.stop();
      other.stop();
    }
  });
  test("5xx and 429 are retried twice, honouring Retry-After; then the error", async () => {
    let calls = 0;
    const srv = staticServer({
      "/flaky": () =>
        ++calls < 3
          ? new Response("busy", { status: calls === 1 ? 503 : 429, headers: { "retry-after": "0" } })
          : new Response("ok"),
      "/down": () => new Response("secret body", { status: 500 }),
    });
    try {
      expect(
        new TextDecoder().decode((await httpGet(`${srv.url}/flaky`, { maxBytes: 10, retryDelaysMs: [0, 0] })).body),
      ).toBe("ok");
      expect(calls).toBe(3);
      const e = await failure(httpGet(`${srv.url}/down`, { maxBytes: 10, retryDelaysMs: [0, 0] }));
      expect(e.message).toBe(`HTTP 500 from ${srv.url}/down`);
      expect(srv.requests.filter((p) => p === "/down").length).toBe(3);
    } finally {
      srv.stop();
    }
    expect(retryAfterMs("3")).toBe(3000);
    expect(retryAfterMs("120")).toBe(10_000);
    expect(retryAfterMs(new Date(10_000 + 2000).toUTCString(), 10_000)).toBe(2000);
    expect(retryAfterMs("soon")).toBeNull();
  });
  test("a server that never answers: TIMEOUT, not retried", async () => {
    const hang = hangServer();
    try {
      const e = await failure(httpGet(`${hang.url}/x`, { maxBytes: 10, timeoutMs: 300, retryDelaysMs: [0, 0] }));
      expect(e.code).toBe("TIMEOUT");
      expect(e.message).toBe(`request to ${hang.url}/x timed out after 300 ms`);
      expect(hang.requests.length).toBe(1);
    } finally {
      hang.stop();
    }
  });
  test("a refused connection is retried, then fails in one line", async () => {
    const srv = staticServer({});
    const url = srv.url;
    srv.stop();
    const e = await failure(httpGet(`${url}/x`, { maxBytes: 10, retryDelaysMs: [0, 0] }));
    expect(e.message).toBe(`request to ${url}/x failed`);
  });
});
