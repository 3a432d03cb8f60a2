// `lemon skill hermes` (cli.md §2.11) against a GitHub-shaped server on 127.0.0.1 serving a real
// git repository of corpus skills: the human table (with and without --details), the JSON
// document, --install (repeatable) with and without --approve, and argument errors.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CORPUS_DIR, corpusAvailable } from "../support/corpus.ts";
import { git } from "../support/git-repos.ts";
import { githubServer, hermesRepo, type GitHubServer } from "../support/github-server.ts";
import { sandbox, type Sandbox } from "../support/sandbox.ts";

const HAS = corpusAvailable();
let root = "";
let work = "";
let hub: GitHubServer;

beforeAll(async () => {
  if (!HAS) return;
  root = await mkdtemp(join(tmpdir(), "lemon-hermes-cli-"));
  work = await hermesRepo(root, [
    { from: join(CORPUS_DIR, "hermes-agent-skills/arxiv"), to: "skills/research/arxiv" },
    { from: join(CORPUS_DIR, "hermes-agent-skills/gif-search"), to: "skills/media/gif-search" },
    { from: join(CORPUS_DIR, "hermes-agent-optional-skills/accelerate"), to: "optional-skills/accelerate" },
  ]);
  hub = await githubServer(work);
});
afterAll(async () => {
  hub?.stop();
  if (root) await rm(root, { recursive: true, force: true });
});

const run = (box: Sandbox, argv: string[]) =>
  box.cli(["skill", "hermes", ...argv], {
    env: { LEMON_GITHUB_API_URL: hub.url, LEMON_GITHUB_RAW_URL: hub.rawUrl },
  });

describe.skipIf(!HAS)("lemon skill hermes", () => {
  test("human listing: ID and CATEGORY; --details adds DESCRIPTION; a query filters", async () => {
    await using box = await sandbox();
    const r = await run(box, []);
    expect([r.code, r.stderr]).toEqual([0, ""]);
    expect(r.stdout).toBe(
      `ID${" ".repeat(31)}CATEGORY\n` +
        "hermes:bundled/media/gif-search  media\n" +
        "hermes:bundled/research/arxiv    research\n" +
        "hermes:optional/accelerate       other\n",
    );
    const d = await run(box, ["arx", "--details"]);
    expect(d.code).toBe(0);
    expect(d.stdout.split("\n")[0]).toMatch(/^ID +CATEGORY +DESCRIPTION$/);
    expect(d.stdout).toContain("hermes:bundled/research/arxiv");
    expect(d.stdout).not.toContain("gif-search");
    const none = await run(box, ["zzz-nothing"]);
    expect(none.stdout).toBe("No Hermes skills found.\n");
  });

  test("JSON document of cli.md §2.11", async () => {
    await using box = await sandbox();
    const r = await run(box, ["--json", "--collection", "optional"]);
    expect(r.code).toBe(0);
    expect(r.json()).toEqual({
      ok: true,
      source: "github",
      commit: await git(work, "rev-parse", "HEAD"),
      truncated: false,
      skills: [
        {
          id: "hermes:optional/accelerate",
          key: "accelerate",
          name: "accelerate",
          description: "",
          category: "other",
          collection: "optional",
          path: "optional-skills/accelerate",
          sha: await git(work, "rev-parse", "HEAD:optional-skills/accelerate/SKILL.md"),
          tree_sha: await git(work, "rev-parse", "HEAD:optional-skills/accelerate"),
        },
      ],
      installed: [],
    });
  });

  test("--install needs --approve off a terminal; with it each id is installed", async () => {
    await using box = await sandbox();
    const denied = await run(box, ["--install", "bundled/research/arxiv"]);
    expect(denied.code).toBe(1);
    expect(denied.stderr).toContain("FORBIDDEN");
    expect(existsSync(join(box.agentDir, "skill", "arxiv"))).toBe(false);
    const r = await run(box, [
      "--install",
      "hermes:bundled/research/arxiv",
      "--install",
      "optional/accelerate",
      "--approve",
    ]);
    expect([r.code, r.stderr]).toEqual([0, ""]);
    const lines = r.stdout.split("\n");
    expect(lines[0]).toMatch(/^Installed 'arxiv' \(official, audit (pass|warn)\) at /);
    expect(lines[0]).toEndWith(join(box.agentDir, "skill", "arxiv"));
    expect(lines[1]).toMatch(/^Installed 'accelerate' \(official, audit (pass|warn)\) at /);
    expect(existsSync(join(box.agentDir, "skill", "accelerate", "SKILL.md"))).toBe(true);
    const again = await run(box, ["--install", "bundled/research/arxiv", "--approve", "--json"]);
    expect(again.code).toBe(1);
    expect(again.json()).toMatchObject({ ok: false, error: { code: "CONFLICT" } });
  });

  test("--install A,B --json: when B fails the report still lists A as installed, B with its error, exit 1", async () => {
    await using box = await sandbox();
    const r = await run(box, ["--install", "bundled/research/arxiv,bundled/research/nope", "--approve", "--json"]);
    expect([r.code, r.stderr]).toEqual([1, ""]);
    const doc = r.json() as Record<string, unknown>;
    expect(doc).toMatchObject({
      ok: false,
      source: "github",
      commit: await git(work, "rev-parse", "HEAD"),
      installed: [{ action: "installed", skill: { key: "arxiv" }, lock: { source_kind: "hermes" } }],
      failed: {
        id: "hermes:bundled/research/nope",
        error: { code: "NOT_FOUND", message: "hermes skill 'hermes:bundled/research/nope' not found at main" },
      },
    });
    expect(existsSync(join(box.agentDir, "skill", "arxiv", "SKILL.md"))).toBe(true);
    // The first id failing: nothing installed, the later ids not tried.
    const first = await run(box, [
      "--install",
      "bundled/research/nope",
      "--install",
      "optional/accelerate",
      "--approve",
      "--json",
    ]);
    expect([first.code, first.stderr]).toEqual([1, ""]);
    expect(first.json()).toMatchObject({ ok: false, installed: [], failed: { id: "hermes:bundled/research/nope" } });
    expect(existsSync(join(box.agentDir, "skill", "accelerate"))).toBe(false);
    // Human output: the installed line on stdout, then the error.
    const human = await run(box, ["--install", "optional/accelerate,bundled/research/nope", "--approve"]);
    expect(human.code).toBe(1);
    expect(human.stdout).toMatch(/^Installed 'accelerate' /);
    expect(human.stderr).toBe("error [NOT_FOUND]: hermes skill 'hermes:bundled/research/nope' not found at main\n");
  });

  test("on a terminal the listing ends with a multi-select; picked rows are installed after their approvals", async () => {
    await using box = await sandbox();
    const env = { LEMON_GITHUB_API_URL: hub.url, LEMON_GITHUB_RAW_URL: hub.rawUrl };
    const none = await box.cli(["skill", "hermes"], { env, answers: [""] });
    expect(none.code).toBe(0);
    expect(none.stdout).toContain("hermes:bundled/research/arxiv");
    expect(none.stderr).toBe("Install which? Row numbers (1-3) or ids, comma separated; empty for none: ");
    // Row 2 and an id without its prefix; a wrong pick is asked again; each install asks [y/N].
    const r = await box.cli(["skill", "hermes"], { env, answers: ["9", "2, optional/accelerate", "y", "y", "y", "y"] });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("not in the list: 9");
    expect(r.stdout).toMatch(/Installed 'arxiv' \(official, audit (pass|warn)\)/);
    expect(r.stdout).toMatch(/Installed 'accelerate' \(official, audit (pass|warn)\)/);
    expect(existsSync(join(box.agentDir, "skill", "arxiv", "SKILL.md"))).toBe(true);
  });

  test("argument errors exit 2", async () => {
    await using box = await sandbox();
    const bad = await run(box, ["--collection", "extra"]);
    expect(bad.code).toBe(2);
    const empty = await run(box, ["--install", ","]);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain("--install needs a Hermes id");
    const badId = await run(box, ["--install", "bundled/../x", "--approve"]);
    expect(badId.code).toBe(2);
  });
});

test("a bad GitHub root in the environment: one redacted error line, exit 1, no usage; discover warns the same", async () => {
  await using box = await sandbox();
  const env = { GITHUB_TOKEN: "t", LEMON_GITHUB_API_URL: "http://user:SECRETPW@[bad" };
  const r = await box.cli(["skill", "hermes"], { env });
  expect([r.code, r.stdout, r.stderr]).toEqual([
    1,
    "",
    "error [INVALID_REQUEST]: invalid URL in LEMON_GITHUB_API_URL: <invalid url>\n",
  ]);
  const d = await box.cli(["skill", "discover", "deploy"], { env });
  expect(d.stderr).toContain("warn: github: invalid URL in LEMON_GITHUB_API_URL: <invalid url>\n");
  expect(d.stderr + d.stdout).not.toContain("SECRETPW");
});
