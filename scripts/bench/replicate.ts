/**
 * @module scripts/bench/replicate
 * Larger skill corpora for the relevance benchmark: the real corpus (`<source>/<key>/SKILL.md`)
 * replicated `copies` times with varied keys (`<source>-rNN/<key>-rNN/SKILL.md`), each SKILL.md a
 * hard link to the original (a copy where linking fails). Built once into a directory named after
 * its shape and reused across runs: a `.complete` marker is written last.
 *
 * One scan root reads at most 20,000 directory entries (skills.md §2.2), so a large corpus is
 * split over several roots (`root-0`, `root-1`, …), replicas dealt round-robin. A scale is one
 * such corpus with the cwd and env a lemon process of the benchmark gets.
 */
import {
  copyFileSync,
  existsSync,
  linkSync,
  mkdirSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import type { Doc } from "./relevance-quality.ts";

export interface Replica {
  /** The root directories, in the order they should be configured. */
  roots: string[];
  skills: number;
}

/** The `<source>/<key>` pairs of a corpus holding a SKILL.md, sorted. */
export function corpusSkills(corpus: string): { source: string; key: string }[] {
  const out: { source: string; key: string }[] = [];
  for (const source of readdirSync(corpus).sort()) {
    const dir = join(corpus, source);
    let keys: string[];
    try {
      keys = readdirSync(dir).sort();
    } catch {
      continue;
    }
    for (const key of keys) if (existsSync(join(dir, key, "SKILL.md"))) out.push({ source, key });
  }
  return out;
}

/** The replicated corpus under `base` (created when missing); `rootCount` roots. */
export function replicate(corpus: string, base: string, copies: number, rootCount: number): Replica {
  const skills = corpusSkills(corpus);
  const dir = join(base, `corpus-x${copies}-r${rootCount}`);
  const roots = Array.from({ length: rootCount }, (_, i) => join(dir, `root-${i}`));
  const marker = join(dir, ".complete");
  if (existsSync(marker)) return { roots, skills: skills.length * copies };
  rmSync(dir, { recursive: true, force: true });
  for (const r of roots) mkdirSync(r, { recursive: true });
  for (let c = 0; c < copies; c++) {
    const tag = `r${String(c).padStart(3, "0")}`;
    const root = roots[c % rootCount]!;
    for (const s of skills) {
      const to = join(root, `${s.source}-${tag}`, `${s.key}-${tag}`);
      mkdirSync(to, { recursive: true });
      const from = join(corpus, s.source, s.key, "SKILL.md");
      try {
        linkSync(from, join(to, "SKILL.md"));
      } catch {
        copyFileSync(from, join(to, "SKILL.md"));
      }
    }
  }
  writeFileSync(marker, "");
  return { roots, skills: skills.length * copies };
}

/** One corpus size of the relevance benchmark: a cwd and the env a lemon process (or instance) gets. */
export interface Scale {
  name: string;
  skills: number;
  cwd: string;
  env: Record<string, string>;
  /** Some SKILL.md of the corpus, for the edit case. */
  sample: string;
}

/** The global roots a scale can set by env, in the order its roots fill them. */
const GLOBAL_ENV = [
  "LEMON_CLAUDE_SKILLS_DIR",
  "LEMON_CODEX_SKILLS_DIR",
  "LEMON_HARNESS_SKILLS_DIR",
  "LEMON_OMP_SKILLS_DIR",
];
const PROJECT_DIRS = [".claude/skills", ".codex/skills", ".agents/skills", ".omp/skills"];

/** 20, 200, 1.1k, 11k, 112k: the size of a scale as the tables name it. */
function sizeName(n: number): string {
  return n < 1000 ? String(n) : n < 10_000 ? `${(n / 1000).toFixed(1)}k` : `${Math.round(n / 1000)}k`;
}

/** A scale under `cache` whose roots are `roots`: up to four global ones by env, the rest linked into the cwd. */
export function makeScale(cache: string, skills: number, roots: string[]): Scale {
  const name = sizeName(skills);
  const base = join(cache, `scale-${name}`);
  const cwd = join(base, "cwd");
  const home = join(base, "home");
  mkdirSync(cwd, { recursive: true });
  mkdirSync(home, { recursive: true });
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "",
    HOME: home,
    USERPROFILE: home,
    NO_COLOR: "1",
    LEMON_AGENT_DIR: join(base, "agent"),
  };
  roots.forEach((r, i) => {
    if (i < GLOBAL_ENV.length) env[GLOBAL_ENV[i]!] = r;
    else {
      const link = join(cwd, PROJECT_DIRS[i - GLOBAL_ENV.length]!);
      if (!existsSync(link)) {
        mkdirSync(join(link, ".."), { recursive: true });
        symlinkSync(r, link);
      }
    }
  });
  const first = roots[0]!;
  const cat = readdirSync(first).sort()[0]!;
  const key = readdirSync(join(first, cat)).sort()[0]!;
  return { name, skills, cwd, env, sample: join(first, cat, key, "SKILL.md") };
}

/** The replicated documents MiniSearch indexes: the base corpus's, with the replica keys. */
export function replicatedDocs(base: Doc[], copies: number): Doc[] {
  if (copies === 1) return base;
  const out: Doc[] = [];
  for (let c = 0; c < copies; c++) {
    const tag = `-r${String(c).padStart(3, "0")}`;
    for (const d of base)
      out.push({ ...d, key: d.key + tag, name: `${d.key}${tag} ${d.name.slice(d.key.length + 1)}` });
  }
  return out;
}
