/**
 * @module scripts/bench/replicate
 * Larger skill corpora for the relevance benchmark: the real corpus (`<source>/<key>/SKILL.md`)
 * replicated `copies` times with varied keys (`<source>-rNN/<key>-rNN/SKILL.md`), each SKILL.md a
 * hard link to the original (a copy where linking fails). Built once into a directory named after
 * its shape and reused across runs: a `.complete` marker is written last.
 *
 * One scan root reads at most 20,000 directory entries (skills.md §2.2), so a large corpus is
 * split over several roots (`root-0`, `root-1`, …), replicas dealt round-robin.
 */
import { copyFileSync, existsSync, linkSync, mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

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
