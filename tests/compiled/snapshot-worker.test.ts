// The search snapshot worker inside the compiled binary (skills.md §7.3, DESIGN.md §5): with
// LEMON_SNAPSHOT_WORKER=always a worker that cannot start or build fails the command instead of
// falling back to an in-process build, so a ranked answer plus a LEMSNAP file on disk proves the
// worker entry was bundled and ran. Built for the host from a throwaway copy, like smoke.test.ts.
import { beforeAll, describe, expect, test } from "bun:test";
import { compiledBinary } from "./binary.ts";
import { readdir } from "node:fs/promises";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { hostTarget } from "../../scripts/targets.ts";
import { sandbox, type Sandbox } from "../support/sandbox.ts";

const host = hostTarget();
let binary = "";

beforeAll(async () => {
  binary = await compiledBinary();
}, 240_000);

/** Forty project skills on unrelated topics plus the one the query is about. */
async function project(): Promise<Sandbox> {
  const box = await sandbox();
  const root = join(box.project, ".lemon", "skill");
  const topics = [
    "pdf forms",
    "spreadsheet formulas",
    "slide decks",
    "kubernetes manifests",
    "terraform modules",
    "grafana dashboards",
    "sql indexes",
    "react hooks",
    "vue components",
    "python packaging",
    "go channels",
    "rust lifetimes",
    "bash scripts",
    "git rebase",
    "github actions",
    "gitlab pipelines",
    "helm charts",
    "istio routing",
    "prometheus alerts",
    "stripe billing",
    "oauth login",
    "jwt tokens",
    "graphql schemas",
    "rest pagination",
    "websocket reconnects",
    "redis caching",
    "kafka consumers",
    "airflow dags",
    "dbt models",
    "spark joins",
    "pandas merges",
    "matplotlib charts",
    "latex papers",
    "citation styles",
    "email drafts",
    "meeting notes",
    "release notes",
    "changelogs",
    "code review",
    "threat models",
  ];
  for (const [i, t] of topics.entries())
    await box.skill(
      root,
      `topic-${String(i).padStart(2, "0")}`,
      { name: `topic-${i}`, description: `Guidance for ${t}.` },
      `# ${t}\n\nSteps for ${t}.\n`,
    );
  await box.skill(
    root,
    "docker-cleanup",
    { name: "docker-cleanup", description: "Prune stopped containers, dangling images and unused volumes." },
    "# Docker cleanup\n\nRun `docker system prune` to reclaim disk space.\n",
  );
  return box;
}

describe(`snapshot worker in the compiled binary (${host.name})`, () => {
  test("skill relevant --json builds the snapshot in the worker and ranks from it", async () => {
    await using box = await project();
    const agentDir = join(box.root, "agent");
    const env = { ...box.env, LEMON_AGENT_DIR: agentDir, LEMON_SNAPSHOT_WORKER: "always" };
    const p = Bun.spawnSync([binary, "skill", "relevant", "free disk space taken by old docker images", "--json"], {
      cwd: box.project,
      env,
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    });
    const stderr = p.stderr.toString();
    expect(stderr).toBe("");
    expect(p.exitCode).toBe(0);
    const doc = JSON.parse(p.stdout.toString()) as {
      ok: boolean;
      results: { rank: number; skill: { key: string; scope: string } }[];
    };
    expect(doc.ok).toBe(true);
    expect(doc.results[0]).toMatchObject({ rank: 1, skill: { key: "docker-cleanup", scope: "project" } });

    const dir = join(agentDir, "cache", "skills");
    expect(existsSync(dir)).toBe(true);
    const snaps = (await readdir(dir)).filter((f) => f.endsWith(".snap"));
    expect(snaps.length).toBeGreaterThan(0);
    for (const f of snaps) expect(new TextDecoder().decode(readFileSync(join(dir, f)).subarray(0, 7))).toBe("LEMSNAP");

    // A second run opens the snapshot the worker wrote and answers the same.
    const again = Bun.spawnSync([binary, "skill", "relevant", "free disk space taken by old docker images", "--json"], {
      cwd: box.project,
      env,
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    });
    expect(again.exitCode).toBe(0);
    expect(JSON.parse(again.stdout.toString())).toEqual(doc);
  });
});
