// `lemon skill discover` (cli.md §2.10) and the online half of `lemon skill search` (cli.md §2.9)
// against loopback servers: a GitHub-shaped search API, a registry and a well-known index.
import { afterEach, expect, test } from "bun:test";
import { join } from "node:path";
import { sandbox, type Sandbox } from "../support/sandbox.ts";

const servers: { stop(force?: boolean): void }[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.stop(true);
});

interface Hit {
  path: string;
  auth: string | null;
}

function serve(handler: (u: URL) => Response | Promise<Response>): { origin: string; hits: Hit[] } {
  const hits: Hit[] = [];
  const s = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      const u = new URL(req.url);
      hits.push({ path: u.pathname, auth: req.headers.get("authorization") });
      return handler(u);
    },
  });
  servers.push(s);
  return { origin: `http://127.0.0.1:${s.port}`, hits };
}

interface Online {
  box: Sandbox;
  gh: ReturnType<typeof serve>;
  reg: ReturnType<typeof serve>;
  wk: ReturnType<typeof serve>;
}

async function online(): Promise<Online> {
  const box = await sandbox();
  const gh = serve((u) =>
    Response.json({
      items:
        u.searchParams.get("q")?.includes(" helm ") === true
          ? [
              {
                full_name: "acme/helm-skill",
                name: "helm-skill",
                description: "Helm charts, fast",
                html_url: "https://github.com/acme/helm-skill",
                stargazers_count: 12,
              },
            ]
          : [],
    }),
  );
  const reg = serve((u) =>
    u.pathname === "/search"
      ? Response.json({ skills: [{ ref: "official/devops/helm", name: "helm", description: "Official Helm skill" }] })
      : new Response("", { status: 404 }),
  );
  const wk = serve((u) =>
    u.pathname === "/.well-known/skills/index.json"
      ? Response.json({ skills: [{ name: "helm-lint", description: "Lint charts", files: ["SKILL.md"] }] })
      : new Response("", { status: 404 }),
  );
  box.env.LEMON_AGENT_DIR = box.agentDir;
  box.env.LEMON_CLAUDE_SKILLS_DIR = join(box.root, "g");
  box.env.LEMON_SNAPSHOT_WORKER = "never";
  box.env.LEMON_GITHUB_API_URL = gh.origin;
  box.env.LEMON_GITHUB_RAW_URL = "http://127.0.0.1:9";
  box.env.LEMON_SKILLS_REGISTRY_URL = reg.origin;
  box.env.GITHUB_TOKEN = "ghp_topsecret";
  // The env's registry wins over the file's (install.md §4.4); the file's would fail.
  await box.write(
    join(box.agentDir, "config.toml"),
    `[skills]\nregistry_url = "http://127.0.0.1:9"\n\n[skills.discovery]\nwell_known = ["${wk.origin}"]\n`,
  );
  await box.skill("g", "helm-charts", { name: "helm-charts", description: "Scaffold Helm charts for Kubernetes." });
  return { box, gh, reg, wk };
}

test("discover: JSON merges the three sources; human prints ID SOURCE SCORE DESCRIPTION", async () => {
  const { box, gh, reg, wk } = await online();
  await using _ = box;
  const j = await box.cli(["skill", "discover", "helm", "--json"]);
  expect(j.code).toBe(0);
  expect(j.json()).toEqual({
    ok: true,
    query: "helm",
    results: [
      {
        source: "registry",
        id: "official/devops/helm",
        name: "helm",
        description: "Official Helm skill",
        url: `${reg.origin}/skills/official/devops/helm`,
        score: 100,
        validated: true,
      },
      {
        source: "github",
        id: "gh:acme/helm-skill",
        name: "helm-skill",
        description: "Helm charts, fast",
        url: "https://github.com/acme/helm-skill",
        score: 82,
        validated: false,
      },
      {
        source: "well_known",
        id: `${wk.origin}/.well-known/skills/helm-lint`,
        name: "helm-lint",
        description: "Lint charts",
        url: `${wk.origin}/.well-known/skills/helm-lint`,
        score: 60,
        validated: false,
      },
    ],
    warnings: [],
  });
  expect(gh.hits[0]?.auth).toBe("Bearer ghp_topsecret");
  expect(reg.hits.every((h) => h.auth === null) && wk.hits.every((h) => h.auth === null)).toBe(true);

  const human = await box.cli(["skill", "discover", "helm", "--max", "1"]);
  expect(human.code).toBe(0);
  expect(human.stdout).toMatch(
    /^ID\s+SOURCE\s+SCORE\s+DESCRIPTION\nofficial\/devops\/helm\s+registry\s+100\s+Official Helm skill\n$/,
  );
  expect(human.stderr).toBe("");
  expect(human.stdout + human.stderr).not.toContain("ghp_topsecret");
});

test("discover: a failing source is a warning on stderr, exit 0; nothing found says so", async () => {
  const { box } = await online();
  await using _ = box;
  // Answers that are not retried keep the test fast: a body that is not JSON.
  const broken = serve(() => new Response("<html>oops</html>"));
  box.env.LEMON_SKILLS_REGISTRY_URL = `${broken.origin}/reg`;
  const r = await box.cli(["skill", "discover", "nothing-matches"]);
  expect(r.code).toBe(0);
  expect(r.stdout).toBe("No online skills found.\n");
  expect(r.stderr).toBe(`warn: registry: ${broken.origin}/reg/search did not return valid JSON\n`);
  const j = (await box.cli(["skill", "discover", "nothing-matches", "--json"])).json();
  expect(j).toMatchObject({ ok: true, results: [], warnings: [{ source: "registry" }] });
  expect((await box.cli(["skill", "discover", "nothing-matches", "--quiet"])).stderr).toBe("");
});

test("discover: bad arguments exit 2", async () => {
  await using box = await sandbox();
  for (const argv of [
    ["skill", "discover"],
    ["skill", "discover", "x", "--max", "0"],
    ["skill", "discover", "x", "--max", "ten"],
  ]) {
    const r = await box.cli(argv);
    expect([argv, r.code]).toEqual([argv, 2]);
  }
  const help = (await box.cli(["skill", "--help"])).stdout;
  expect(help).toMatch(/^ {2}discover +Search online skill sources/m);
});

test("search: local and online sections; --max-online cuts; --no-online asks nobody", async () => {
  const { box, gh, reg, wk } = await online();
  await using _ = box;
  const human = await box.cli(["skill", "search", "helm"]);
  expect(human.code).toBe(0);
  const [localPart, onlinePart] = human.stdout.split("\nOnline skills\n");
  expect(localPart).toStartWith("Local skills\nRANK");
  expect(localPart).toContain("helm-charts");
  expect(onlinePart).toMatch(/^ID\s+SOURCE\s+SCORE\s+DESCRIPTION\n/);
  expect(onlinePart?.split("\n").filter((l) => l !== "").length).toBe(4);
  expect(human.stderr).toBe("");

  const j = (await box.cli(["skill", "search", "helm", "--json", "--max-online", "2"])).json();
  expect(j.ok).toBe(true);
  expect((j.local as { key: string }[])[0]?.key).toBe("helm-charts");
  expect((j.online as { id: string }[]).map((o) => o.id)).toEqual(["official/devops/helm", "gh:acme/helm-skill"]);
  expect(j.warnings).toEqual([]);

  const before = gh.hits.length + reg.hits.length + wk.hits.length;
  const off = await box.cli(["skill", "search", "helm", "--no-online", "--json"]);
  expect(off.json()).toMatchObject({ ok: true, online: [], warnings: [] });
  expect(gh.hits.length + reg.hits.length + wk.hits.length).toBe(before);
  const offHuman = await box.cli(["skill", "search", "helm", "--no-online"]);
  expect(offHuman.stdout).not.toContain("Online skills");
  expect(offHuman.stderr).toBe("");
});

test("search: every online source down, local results still shown and warnings on stderr", async () => {
  await using box = await sandbox();
  box.env.LEMON_AGENT_DIR = box.agentDir;
  box.env.LEMON_CLAUDE_SKILLS_DIR = join(box.root, "g");
  box.env.LEMON_SNAPSHOT_WORKER = "never";
  const denied = serve(() => new Response("no", { status: 403 }));
  box.env.LEMON_GITHUB_API_URL = denied.origin;
  await box.skill("g", "helm-charts", { name: "helm-charts", description: "Scaffold Helm charts for Kubernetes." });
  const r = await box.cli(["skill", "search", "helm"]);
  expect(r.code).toBe(0);
  expect(r.stdout).toContain("helm-charts");
  expect(r.stdout).toContain("\nOnline skills\nNo online skills found.\n");
  expect(r.stderr).toBe(`warn: github: HTTP 403 from ${denied.origin}/search/repositories\n`);
});
