// install.md §3 against real git: clones over file:// and smart HTTP, refs, tags, pins, sparse
// subdirs, and the hostile inputs that must never run anything.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { chmod } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LemonError } from "../../../src/core/errors.ts";
import {
  type CloneRequest,
  cloneRepo,
  gitEnv,
  redactText,
  remoteCommit,
} from "../../../src/core/skills/install/git.ts";
import { gitHttpServer, hangServer, type TestServer } from "../../support/git-http-server.ts";
import {
  createRepo,
  type GitRepo,
  git,
  gitTestEnv,
  historyRepo,
  multiSkillRepo,
  skillMd,
} from "../../support/git-repos.ts";

const root = realpathSync(mkdtempSync(join(tmpdir(), "lemon-git-")));
const repos = join(root, "repos");
mkdirSync(repos);
const home = join(root, "home");
mkdirSync(home);
const env = { PATH: process.env.PATH, HOME: home, GIT_CONFIG_GLOBAL: join(home, ".gitconfig") };
let hist: Awaited<ReturnType<typeof historyRepo>>;
let many: GitRepo;
let server: TestServer;
let n = 0;

function freshDir(): string {
  const d = join(root, `fetch-${n++}`);
  mkdirSync(d, { mode: 0o700 });
  return d;
}

const req = (url: string, more: Partial<CloneRequest> = {}): CloneRequest => ({
  url,
  ref: null,
  pinned: false,
  subdir: null,
  display: "test-source",
  ...more,
});

async function failure(p: Promise<unknown>): Promise<LemonError> {
  try {
    await p;
  } catch (e) {
    expect(LemonError.is(e)).toBe(true);
    const le = e as LemonError;
    expect(le.message).not.toContain("\n");
    return le;
  }
  throw new Error("expected a failure");
}

beforeAll(async () => {
  hist = await historyRepo(repos, "hist");
  many = await multiSkillRepo(repos, "many", ["alpha", "beta"]);
  server = gitHttpServer(repos);
});
afterAll(() => {
  server.stop();
  rmSync(root, { recursive: true, force: true });
});

describe("clone", () => {
  test("remote HEAD over file://: the commit, the files, no .git", async () => {
    const into = freshDir();
    const r = await cloneRepo(req(hist.repo.url), into, { env });
    expect(r.commit).toBe(hist.c2);
    expect(readdirSync(r.dir).sort()).toEqual(["SKILL.md"]);
    expect(existsSync(join(r.dir, ".git"))).toBe(false);
  });
  test("each git process is reported with its subcommand (for benchmarks)", async () => {
    const seen: string[] = [];
    await cloneRepo(req(many.url, { subdir: "skills/alpha" }), freshDir(), {
      env,
      onGitCommand: (cmd, ms) => {
        expect(ms).toBeGreaterThanOrEqual(0);
        seen.push(cmd);
      },
    });
    expect(seen).toEqual(["clone", "sparse-checkout", "rev-parse"]);
  });
  test("a branch, a lightweight tag and an annotated tag", async () => {
    expect((await cloneRepo(req(hist.repo.url, { ref: "dev" }), freshDir(), { env })).commit).toBe(hist.dev);
    expect((await cloneRepo(req(hist.repo.url, { ref: "v1" }), freshDir(), { env })).commit).toBe(hist.c1);
    expect((await cloneRepo(req(hist.repo.url, { ref: "r1" }), freshDir(), { env })).commit).toBe(hist.c1);
  });
  test("over smart HTTP", async () => {
    const r = await cloneRepo(req(`${server.url}/hist.git`, { ref: "v1" }), freshDir(), { env });
    expect(r.commit).toBe(hist.c1);
    expect(server.requests.some((p) => p.startsWith("/hist.git/info/refs"))).toBe(true);
  });
  test("a missing ref is NOT_FOUND", async () => {
    const e = await failure(cloneRepo(req(hist.repo.url, { ref: "nope" }), freshDir(), { env }));
    expect(e.code).toBe("NOT_FOUND");
    expect(e.message).toBe("git ref 'nope' not found in test-source");
  });
  test("an empty repository has no commits", async () => {
    const empty = join(repos, "empty.git");
    mkdirSync(empty);
    await git(empty, "init", "--bare", "-q");
    const e = await failure(cloneRepo(req(`file://${empty}`), freshDir(), { env }));
    expect(e.message).toBe("test-source has no commits");
  });
  test("a missing repository fails in one redacted line", async () => {
    const url = `${server.url.replace("http://", "http://user:s3cret@")}/missing.git?token=abc`;
    const e = await failure(cloneRepo(req(url), freshDir(), { env }));
    expect(e.code).toBe("OPERATION_FAILED");
    expect(e.message).toStartWith("git clone failed: ");
    expect(e.message).not.toContain("s3cret");
    expect(e.message).not.toContain("token=abc");
  });
});

describe("commit pins", () => {
  test("a pin is fetched shallowly and checked out detached", async () => {
    const r = await cloneRepo(req(hist.repo.url, { ref: hist.c1, pinned: true }), freshDir(), { env });
    expect(r.commit).toBe(hist.c1);
    expect(existsSync(join(r.dir, ".git"))).toBe(false);
  });
  test("a server refusing unadvertised commits (protocol v0) gets the full-fetch fallback", async () => {
    const lone = await createRepo(repos, "lone", { "SKILL.md": skillMd("lone", "one") });
    const first = lone.head;
    await lone.commit({ "SKILL.md": skillMd("lone", "two") });
    const v0 = gitHttpServer(repos, {}, { protocolV0: true });
    try {
      const r = await cloneRepo(req(`${v0.url}/lone.git`, { ref: first, pinned: true }), freshDir(), { env });
      expect(r.commit).toBe(first);
    } finally {
      v0.stop();
    }
  });
  test("a pin the repository does not have fails", async () => {
    const e = await failure(cloneRepo(req(hist.repo.url, { ref: "0".repeat(40), pinned: true }), freshDir(), { env }));
    expect(["NOT_FOUND", "OPERATION_FAILED"]).toContain(e.code);
  });
});

describe("sparse subdir", () => {
  test("only the subdir (plus root files) is checked out, over file:// and HTTP", async () => {
    for (const url of [many.url, `${server.url}/many.git`]) {
      const r = await cloneRepo(req(url, { subdir: "skills/alpha" }), freshDir(), { env });
      expect(existsSync(join(r.dir, "skills", "alpha", "SKILL.md"))).toBe(true);
      expect(existsSync(join(r.dir, "skills", "beta"))).toBe(false);
    }
  });
  test("with a server that filters, blobs outside the subdir are never downloaded", async () => {
    const noise = new Uint8Array(300_000).map(() => Math.floor(Math.random() * 256));
    const mono = await createRepo(repos, "mono", {
      "skills/small/SKILL.md": skillMd("small"),
      "vendor/blob.bin": noise,
    });
    await git(mono.bare, "config", "uploadpack.allowFilter", "true");
    const bound = { env, maxCheckoutBytes: 150_000 };
    const r = await cloneRepo(req(mono.url, { subdir: "skills/small" }), freshDir(), bound);
    expect(existsSync(join(r.dir, "skills", "small", "SKILL.md"))).toBe(true);
    const e = await failure(cloneRepo(req(mono.url), freshDir(), bound));
    expect(e.message).toBe("git checkout exceeds 150000 bytes");
  });
  test("with a pin", async () => {
    const r = await cloneRepo(req(many.url, { subdir: "skills/beta", ref: many.head, pinned: true }), freshDir(), {
      env,
    });
    expect(existsSync(join(r.dir, "skills", "beta", "SKILL.md"))).toBe(true);
    expect(existsSync(join(r.dir, "skills", "alpha"))).toBe(false);
  });
  test("a subdir starting with '-' is a path, not an option", async () => {
    const dash = await createRepo(repos, "dash", { "-x/SKILL.md": skillMd("x") });
    const r = await cloneRepo(req(dash.url, { subdir: "-x" }), freshDir(), { env });
    expect(existsSync(join(r.dir, "-x", "SKILL.md"))).toBe(true);
  });
});

describe("hostile input runs nothing", () => {
  const marker = join(root, "pwned");
  test("--upload-pack as a URL or a ref, ext:: and ssh option hosts", async () => {
    const attempts: CloneRequest[] = [
      req(`--upload-pack=touch ${marker}`),
      req(hist.repo.url, { ref: `--upload-pack=touch ${marker}` }),
      req(hist.repo.url, { ref: `--upload-pack=touch ${marker}`, pinned: true }),
      req(`ext::sh -c touch% ${marker}`),
      req(`ssh://-oProxyCommand=touch%20${marker}/r.git`),
      req(`-oProxyCommand=touch ${marker}:r.git`),
    ];
    for (const a of attempts) {
      await failure(cloneRepo(a, freshDir(), { env }));
      expect(existsSync(marker)).toBe(false);
    }
  });
  test("hooks from the user's global config never run", async () => {
    const hooks = join(root, "evil-hooks");
    mkdirSync(hooks);
    for (const h of ["post-checkout", "post-merge", "reference-transaction"]) {
      writeFileSync(join(hooks, h), `#!/bin/sh\ntouch ${marker}\n`);
      await chmod(join(hooks, h), 0o755);
    }
    const cfg = join(root, "evil.gitconfig");
    writeFileSync(cfg, `[core]\n\thooksPath = ${hooks}\n`);
    const e = { ...env, GIT_CONFIG_GLOBAL: cfg };
    await cloneRepo(req(hist.repo.url), freshDir(), { env: e });
    await cloneRepo(req(hist.repo.url, { ref: hist.c1, pinned: true }), freshDir(), { env: e });
    expect(existsSync(marker)).toBe(false);
  });
  test("GIT_DIR and other redirecting variables are scrubbed", async () => {
    const e = { ...env, GIT_DIR: join(root, "elsewhere"), GIT_CONFIG_PARAMETERS: "'core.hooksPath'='/x'" };
    expect(gitEnv(e).GIT_DIR).toBeUndefined();
    expect(gitEnv(e).GIT_CONFIG_PARAMETERS).toBeUndefined();
    expect(gitEnv(e)).toMatchObject({ GIT_TERMINAL_PROMPT: "0", GIT_CONFIG_NOSYSTEM: "1" });
    const r = await cloneRepo(req(hist.repo.url), freshDir(), { env: e });
    expect(r.commit).toBe(hist.c2);
    expect(existsSync(join(root, "elsewhere"))).toBe(false);
  });

  test("a repository enclosing the temp or fetch dir lends no config", async () => {
    const encl = join(root, "enclosing");
    mkdirSync(join(encl, "tmp"), { recursive: true });
    const evil = await createRepo(repos, "evil", { "SKILL.md": skillMd("evil") });
    await Bun.spawn(["git", "init", "-q", encl], { env: gitTestEnv() }).exited;
    await Bun.spawn(["git", "-C", encl, "config", `url.${evil.url}.insteadOf`, hist.repo.url], { env: gitTestEnv() })
      .exited;
    expect(await remoteCommit(hist.repo.url, null, { env: { ...env, TMPDIR: join(encl, "tmp") } })).toBe(
      await hist.repo.rev("main"),
    );
    const dir = join(encl, "tmp", "fetch");
    mkdirSync(dir);
    expect((await cloneRepo(req(hist.repo.url), dir, { env })).commit).toBe(await hist.repo.rev("main"));
  });
});

describe("bounds", () => {
  test("a server that never answers: TIMEOUT", async () => {
    const hang = hangServer();
    try {
      const e = await failure(cloneRepo(req(`${hang.url}/r.git`), freshDir(), { env, timeoutMs: 1500 }));
      expect(e.code).toBe("TIMEOUT");
      expect(e.message).toBe("git clone timed out after 2 s");
      const e2 = await failure(remoteCommit(`${hang.url}/r.git`, null, { env, timeoutMs: 1000 }));
      expect(e2.code).toBe("TIMEOUT");
    } finally {
      hang.stop();
    }
  });
  test("git missing from PATH: UNAVAILABLE", async () => {
    const e = await failure(cloneRepo(req(hist.repo.url), freshDir(), { env: { ...env, PATH: join(root, "none") } }));
    expect(e.code).toBe("UNAVAILABLE");
    expect(e.message).toBe("git is not installed");
  });
  test("a checkout larger than the bound is refused", async () => {
    const big = await createRepo(repos, "big", { "SKILL.md": skillMd("big"), "data.txt": "x".repeat(200_000) });
    const e = await failure(cloneRepo(req(big.url), freshDir(), { env, maxCheckoutBytes: 100_000 }));
    expect(e.message).toBe("git checkout exceeds 100000 bytes");
  });
});

describe("progress", () => {
  test("a fast clone reports nothing", async () => {
    const lines: string[] = [];
    await cloneRepo(req(hist.repo.url), freshDir(), { env, onProgress: (l) => lines.push(l) });
    expect(lines).toEqual([]);
  });
  test("a clone still running after a second streams git's progress lines", async () => {
    const slow = gitHttpServer(repos, {}, { delayMs: 1300 });
    const lines: string[] = [];
    try {
      await cloneRepo(req(`${slow.url}/hist.git`), freshDir(), { env, onProgress: (l) => lines.push(l) });
    } finally {
      slow.stop();
    }
    expect(lines.length).toBeGreaterThan(0);
    for (const l of lines) {
      expect(l).toMatch(/^(remote: )?[A-Z][a-z]+/);
      expect(l).not.toContain("\r");
    }
  });
  test("text a server sends (remote: lines) never reaches progress unless it is git's own progress", async () => {
    const hook = join(root, "pack-hook.sh");
    writeFileSync(
      hook,
      `#!/bin/sh\nprintf 'SECURITY AUDIT PASSED \\033[2J\\nCounting objects: AUDIT PASSED\\nTotal AUDIT\\nReceiving objects: AUDIT\\n' >&2\nsleep 1.2\nexec "$@"\n`,
    );
    await chmod(hook, 0o755);
    const chatty = gitHttpServer(repos, { GIT_CONFIG_PARAMETERS: `'uploadpack.packObjectsHook'='${hook}'` });
    const lines: string[] = [];
    try {
      await cloneRepo(req(`${chatty.url}/hist.git`), freshDir(), { env, onProgress: (l) => lines.push(l) });
    } finally {
      chatty.stop();
    }
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.join("\n")).not.toContain("AUDIT");
    expect(lines.join("\n")).not.toContain("\u001b");
  });
  test("an abort signal ends a hung clone", async () => {
    const hang = hangServer();
    const ctl = new AbortController();
    setTimeout(() => ctl.abort(), 300);
    try {
      const e = await failure(cloneRepo(req(`${hang.url}/r.git`), freshDir(), { env, signal: ctl.signal }));
      expect(e.message).toBe("git aborted");
    } finally {
      hang.stop();
    }
  });
});

describe("remoteCommit", () => {
  test("HEAD, branches, lightweight and annotated (peeled) tags, over file:// and HTTP", async () => {
    for (const url of [hist.repo.url, `${server.url}/hist.git`]) {
      expect(await remoteCommit(url, null, { env })).toBe(hist.c2);
      expect(await remoteCommit(url, "main", { env })).toBe(hist.c2);
      expect(await remoteCommit(url, "dev", { env })).toBe(hist.dev);
      expect(await remoteCommit(url, "v1", { env })).toBe(hist.c1);
      expect(await remoteCommit(url, "r1", { env })).toBe(hist.c1);
    }
  });
  test("upstream moves", async () => {
    const before = await remoteCommit(hist.repo.url, "dev", { env });
    await hist.repo.checkout("dev");
    const after = await hist.repo.commit({ "more.md": "more\n" });
    await hist.repo.checkout("main");
    expect(await remoteCommit(hist.repo.url, "dev", { env })).toBe(after);
    expect(after).not.toBe(before);
  });
  test("a pin answers itself; a missing ref is NOT_FOUND", async () => {
    expect(await remoteCommit(hist.repo.url, "A".repeat(40), { env })).toBe("a".repeat(40));
    const e = await failure(remoteCommit(hist.repo.url, "nope", { env }));
    expect(e.code).toBe("NOT_FOUND");
  });
});

test("redactText drops userinfo, queries and control characters", () => {
  expect(redactText("fatal: unable to access 'https://u:p@h.example/r.git?t=1': 403\u001b[0m")).toBe(
    "fatal: unable to access 'https://h.example/r.git': 403 [0m",
  );
});
