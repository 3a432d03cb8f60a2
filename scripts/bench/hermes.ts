#!/usr/bin/env bun
/**
 * @module scripts/bench/hermes
 * `lemon skill hermes --details --json` over the 171 Hermes skills of the corpus (bundled and
 * optional), served by the GitHub-shaped loopback server of the tests from a real git repository:
 * wall time and HTTP requests, cold (a fresh agent dir each run) and with the ETag cache of the
 * run before (same agent dir). The server runs in this process; lemon is a child process.
 *
 *   bun scripts/bench/hermes.ts [--runs N] [--bin PATH]
 *
 * Default: `bun --no-env-file src/cli/main.ts`; --bin measures a compiled binary.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { githubServer, hermesRepo } from "../../tests/support/github-server.ts";
import { findCorpus } from "./corpus.ts";

const REPO = resolve(import.meta.dir, "..", "..");

function options(argv: string[]) {
  const o = { runs: 5, bin: null as string | null };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--runs") o.runs = Math.max(1, Number.parseInt(argv[++i] ?? "", 10) || 1);
    else if (argv[i] === "--bin") o.bin = resolve(argv[++i] ?? "");
  }
  return o;
}

const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

async function main() {
  const o = options(process.argv.slice(2));
  const corpus = findCorpus();
  if (!corpus) throw new Error("no corpus (see scripts/bench/corpus.ts)");
  const root = mkdtempSync(join(tmpdir(), "lemon-bench-hermes-"));
  try {
    const skills: { from: string; to: string }[] = [];
    for (const [src, dir] of [
      ["hermes-agent-skills", "skills"],
      ["hermes-agent-optional-skills", "optional-skills"],
    ] as const) {
      for (const name of readdirSync(join(corpus, src))) {
        if (!existsSync(join(corpus, src, name, "SKILL.md"))) continue;
        // Categories as the real catalog has them: a handful, by the name's first letter.
        const category = `cat-${name[0]?.toLowerCase() ?? "x"}`;
        skills.push({ from: join(corpus, src, name), to: `${dir}/${category}/${name}` });
      }
    }
    const work = await hermesRepo(root, skills);
    const hub = await githubServer(work);
    const argv = o.bin ? [o.bin] : [process.execPath, "--no-env-file", join(REPO, "src/cli/main.ts")];
    const run = async (agentHome: string) => {
      const env = {
        PATH: process.env.PATH ?? "",
        HOME: agentHome,
        LEMON_HOME: join(agentHome, ".lemon"),
        LEMON_GITHUB_API_URL: hub.url,
        LEMON_GITHUB_RAW_URL: hub.rawUrl,
        NO_COLOR: "1",
      };
      hub.requests.length = 0;
      const t0 = performance.now();
      const p = Bun.spawn([...argv, "skill", "hermes", "--details", "--json"], {
        env,
        cwd: agentHome,
        stdout: "pipe",
        stderr: "pipe",
      });
      const out = await new Response(p.stdout).text();
      const code = await p.exited;
      const ms = performance.now() - t0;
      if (code !== 0) throw new Error(`lemon exited ${code}: ${await new Response(p.stderr).text()}`);
      const doc = JSON.parse(out) as { skills: { description: string }[] };
      const described = doc.skills.filter((s) => s.description !== "").length;
      return {
        ms,
        requests: hub.requests.length,
        conditional: hub.requests.filter((r) => r.ifNoneMatch).length,
        skills: doc.skills.length,
        described,
      };
    };
    const cold: Awaited<ReturnType<typeof run>>[] = [];
    const warm: Awaited<ReturnType<typeof run>>[] = [];
    for (let i = 0; i < o.runs; i++) {
      const home = mkdtempSync(join(root, "home-"));
      cold.push(await run(home));
      warm.push(await run(home));
    }
    hub.stop();
    const line = (name: string, rs: typeof cold) =>
      `| ${name} | ${p50(rs.map((r) => r.ms)).toFixed(1)} | ${Math.min(...rs.map((r) => r.ms)).toFixed(1)} | ${rs[0]?.requests} | ${rs[0]?.conditional} | ${rs[0]?.skills} | ${rs[0]?.described} |`;
    console.log(`runs: ${o.runs}, ${argv.length > 1 ? "source" : "binary"}`);
    console.log("| case | p50 ms | min ms | requests | conditional | skills | with description |");
    console.log("|---|---:|---:|---:|---:|---:|---:|");
    console.log(line("cold (no cache)", cold));
    console.log(line("warm (ETag cache)", warm));
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

await main();
