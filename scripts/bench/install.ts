#!/usr/bin/env bun
/**
 * @module scripts/bench/install
 * What installing and updating skills costs the compiled binary, and how much of it is lemon's
 * own work rather than git's (issue #11):
 *
 *   bun scripts/bench/install.ts [--runs N] [--skills N] [--bin PATH] [--rebuild]
 *
 * --runs N     measured runs per case (default 10), after one unmeasured round
 * --skills N   installed git skills `update --all --check` checks (default 50)
 * --bin PATH   measure this binary instead of dist/lemon-<host>/
 * --rebuild    rebuild dist/ even when it exists
 *
 * Cases, alternating: a compiled hello-world (the floor of any process); `skill install` of a
 * local skill and of a file:// git skill (a fresh agent dir per run); `update --all --check` over
 * N installed git skills from N repositories; one `update <key> --check`. Every git child lemon
 * starts runs through a PATH shim that logs its start and end (bash's EPOCHREALTIME, no extra
 * process), so each run splits into time inside git (the union of the intervals) and lemon's own time (wall − git).
 * The shim's own start-up (~1 ms a call) lands on lemon's side.
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { hostTarget } from "../targets.ts";
import { hostBinary } from "./binary.ts";
import { buildHello } from "./hello.ts";
import { pct, spawnSample } from "./measure.ts";

interface Options {
  runs: number;
  skills: number;
  bin: string | null;
  rebuild: boolean;
}

function fail(msg: string): never {
  console.error(`install bench: ${msg}`);
  process.exit(2);
}

function parseOptions(argv: string[]): Options {
  const o: Options = { runs: 10, skills: 50, bin: null, rebuild: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const value = () => argv[++i] ?? fail(`${a} needs a value`);
    if (a === "--runs") o.runs = Math.max(1, Number.parseInt(value(), 10) || 0);
    else if (a === "--skills") o.skills = Math.max(1, Number.parseInt(value(), 10) || 0);
    else if (a === "--bin") o.bin = resolve(value());
    else if (a === "--rebuild") o.rebuild = true;
    else fail(`unknown option '${a}'`);
  }
  return o;
}

/** Runs git for the bench's own setup (never through the shim). */
function git(cwd: string, ...args: string[]): void {
  const p = Bun.spawnSync(["git", "-c", "init.defaultBranch=main", ...args], {
    cwd,
    env: {
      ...process.env,
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_CONFIG_GLOBAL: "/dev/null",
      GIT_AUTHOR_NAME: "bench",
      GIT_AUTHOR_EMAIL: "bench@example.invalid",
      GIT_COMMITTER_NAME: "bench",
      GIT_COMMITTER_EMAIL: "bench@example.invalid",
    },
    stdout: "ignore",
    stderr: "pipe",
  });
  if (p.exitCode !== 0) fail(`git ${args.join(" ")}: ${p.stderr.toString().trim()}`);
}

const SKILL = (key: string) =>
  `---\nname: ${key}\ndescription: Use this skill when benchmarking ${key} installs.\n---\n# ${key}\n\nSteps.\n`;

/**
 * `copies` bare repos `<name>-<i>.git` holding one skill at the root (SKILL.md plus a reference
 * file), all pushed from one work tree; their file:// URLs. Distinct repositories, so `update
 * --all --check` asks each one (skills of one repository would share a single ls-remote).
 */
function skillRepos(root: string, name: string, copies: number): string[] {
  const work = join(root, `${name}.work`);
  mkdirSync(join(work, "references"), { recursive: true });
  writeFileSync(join(work, "SKILL.md"), SKILL(name));
  writeFileSync(join(work, "references", "guide.md"), `# ${name}\n`);
  git(work, "init", "-q");
  git(work, "add", "-A");
  git(work, "commit", "-q", "-m", "initial");
  const urls: string[] = [];
  for (let i = 0; i < copies; i++) {
    const bare = join(root, `${name}-${i}.git`);
    git(root, "init", "-q", "--bare", bare);
    git(work, "push", "-q", bare, "HEAD:refs/heads/main");
    urls.push(pathToFileURL(bare).href);
  }
  return urls;
}

/** A `git` earlier on PATH that logs `<start> <end>` (seconds) of each call to LEMON_BENCH_GIT_LOG. */
function gitShim(dir: string): string {
  const real = Bun.which("git");
  if (!real) fail("git is not installed");
  mkdirSync(dir, { recursive: true });
  const shim = join(dir, "git");
  writeFileSync(
    shim,
    `#!/bin/bash\ns=$EPOCHREALTIME\n${JSON.stringify(real)} "$@"\nrc=$?\necho "$s $EPOCHREALTIME" >> "$LEMON_BENCH_GIT_LOG"\nexit $rc\n`,
  );
  chmodSync(shim, 0o755);
  return dir;
}

/** Milliseconds covered by the logged intervals (overlapping calls counted once), and the call count. */
function gitTime(log: string): { ms: number; calls: number } {
  if (!existsSync(log)) return { ms: 0, calls: 0 };
  const spans = readFileSync(log, "utf8")
    .trim()
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => l.split(" ").map(Number) as [number, number])
    .sort((a, b) => a[0] - b[0]);
  let ms = 0;
  let end = -Infinity;
  for (const [s, e] of spans) {
    if (e <= end) continue;
    ms += (e - Math.max(s, end)) * 1000;
    end = e;
  }
  return { ms, calls: spans.length };
}

interface Sample {
  wallMs: number;
  gitMs: number;
  gitCalls: number;
}

interface Case {
  name: string;
  /** Prepares one run (fresh dirs) and returns its argv, cwd and env. */
  prepare(run: number): { argv: string[]; cwd: string; env: Record<string, string> };
}

const pad = (s: string, n: number, right = false) => (right ? s.padStart(n) : s.padEnd(n));

async function main(): Promise<void> {
  const o = parseOptions(process.argv.slice(2));
  const scratch = mkdtempSync(join(tmpdir(), "lemon-bench-install-"));
  try {
    const lemon = hostBinary(o, "install bench");
    const hello = buildHello(scratch);
    const home = join(scratch, "home");
    const work = join(scratch, "work");
    const repos = join(scratch, "repos");
    for (const d of [home, work, repos]) mkdirSync(d, { recursive: true });
    const shim = gitShim(join(scratch, "shim"));
    const log = join(scratch, "git.log");
    const base = {
      PATH: `${shim}:${process.env.PATH ?? ""}`,
      HOME: home,
      USERPROFILE: home,
      NO_COLOR: "1",
      TMPDIR: scratch,
      LEMON_BENCH_GIT_LOG: log,
    };
    const local = join(scratch, "src", "local-skill");
    mkdirSync(join(local, "references"), { recursive: true });
    writeFileSync(join(local, "SKILL.md"), SKILL("local-skill"));
    writeFileSync(join(local, "references", "guide.md"), "# guide\n");
    const urls = skillRepos(repos, "git-skill", o.skills);
    const url = urls[0]!;

    // N installed git skills in one agent dir for the checks, each from its own repository.
    const checkAgent = join(scratch, "agent-check");
    const checkEnv = { ...base, LEMON_AGENT_DIR: checkAgent };
    for (let i = 0; i < o.skills; i++) {
      const r = spawnSample(
        [lemon, "skill", "install", urls[i]!, "--as", `s${i}`, "--approve", "--json"],
        work,
        checkEnv,
        true,
      );
      if (!r.ok) fail(`setup install ${i} failed: ${r.stderr.trim().split("\n")[0]}`);
    }

    let fresh = 0;
    const freshAgent = () => join(scratch, `agent-${fresh++}`);
    const cases: Case[] = [
      { name: "hello-world", prepare: () => ({ argv: [hello], cwd: work, env: base }) },
      {
        name: "skill install <local dir>",
        prepare: () => ({
          argv: [lemon, "skill", "install", local, "--approve", "--json"],
          cwd: work,
          env: { ...base, LEMON_AGENT_DIR: freshAgent() },
        }),
      },
      {
        name: "skill install file://…git",
        prepare: () => ({
          argv: [lemon, "skill", "install", url, "--approve", "--json"],
          cwd: work,
          env: { ...base, LEMON_AGENT_DIR: freshAgent() },
        }),
      },
      {
        name: "skill update s0 --check",
        prepare: () => ({ argv: [lemon, "skill", "update", "s0", "--check", "--json"], cwd: work, env: checkEnv }),
      },
      {
        name: `skill update --all --check [${o.skills}]`,
        prepare: () => ({ argv: [lemon, "skill", "update", "--all", "--check", "--json"], cwd: work, env: checkEnv }),
      },
    ];
    const runCase = (c: Case, run: number, capture: boolean) => {
      rmSync(log, { force: true });
      const p = c.prepare(run);
      const r = spawnSample(p.argv, p.cwd, p.env, capture);
      const g = gitTime(log);
      return { r, sample: { wallMs: r.sample.wallMs, gitMs: g.ms, gitCalls: g.calls } satisfies Sample };
    };
    // One unmeasured round: the page cache, and a check that every case works.
    for (const c of cases) {
      const { r } = runCase(c, -1, true);
      if (!r.ok) fail(`'${c.name}' failed: ${r.stderr.trim().split("\n")[0]}`);
    }
    const samples = new Map<string, Sample[]>(cases.map((c) => [c.name, []]));
    for (let i = 0; i < o.runs; i++) for (const c of cases) samples.get(c.name)!.push(runCase(c, i, false).sample);

    const med = (name: string, f: keyof Sample) =>
      pct(
        samples.get(name)!.map((s) => s[f]),
        50,
      );
    const t = hostTarget();
    console.log(`lemon install/update — ${t.name}, Bun ${Bun.version}, ${o.runs} alternating runs per case`);
    console.log(`binary: ${lemon}\n`);
    console.log(
      [
        pad("case", 36),
        pad("wall p50", 9, true),
        pad("p90", 7, true),
        pad("git p50", 8, true),
        pad("calls", 6, true),
        pad("lemon p50", 10, true),
      ].join(" "),
    );
    for (const c of cases) {
      const s = samples.get(c.name)!;
      const own = s.map((x) => x.wallMs - x.gitMs);
      console.log(
        [
          pad(c.name, 36),
          pad(
            pct(
              s.map((x) => x.wallMs),
              50,
            ).toFixed(1),
            9,
            true,
          ),
          pad(
            pct(
              s.map((x) => x.wallMs),
              90,
            ).toFixed(1),
            7,
            true,
          ),
          pad(med(c.name, "gitMs").toFixed(1), 8, true),
          pad(String(Math.round(med(c.name, "gitCalls"))), 6, true),
          pad(pct(own, 50).toFixed(1), 10, true),
        ].join(" "),
      );
    }
    const helloWall = med("hello-world", "wallMs");
    const gitCase = "skill install file://…git";
    const own = pct(
      samples.get(gitCase)!.map((x) => x.wallMs - x.gitMs),
      50,
    );
    console.log(
      `\n${gitCase}: lemon-side ${own.toFixed(1)} ms beyond ${med(gitCase, "gitMs").toFixed(1)} ms of git ` +
        `(target ≤ 150 ms); floor: hello-world ${helloWall.toFixed(1)} ms, the git commands themselves`,
    );
    const localCase = "skill install <local dir>";
    console.log(
      `${localCase}: ${med(localCase, "wallMs").toFixed(1)} ms, ${(med(localCase, "wallMs") - helloWall).toFixed(1)} ms over hello-world`,
    );
    const one = med("skill update s0 --check", "wallMs");
    const all = med(`skill update --all --check [${o.skills}]`, "wallMs");
    console.log(
      `update --all --check over ${o.skills} git skills: ${all.toFixed(1)} ms vs ${o.skills} × one check ` +
        `${(one * o.skills).toFixed(1)} ms (${((one * o.skills) / all).toFixed(1)}× faster; remote checks 8 at a time)`,
    );
    console.log("\nwall, git and lemon (= wall − git) in ms; calls = git processes lemon started");
    const args = process.argv.slice(2).join(" ");
    console.log(`reproduce: npx bun scripts/bench/install.ts${args ? ` ${args}` : ""}`);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

await main();
