// A 20-skill corpus laid out like the real one (<source>/<key>/SKILL.md, two sources), so the
// benchmarks run end to end in a second or two. Keys are the first labelled skills of the
// relevance queries, so the quality half has something to find; the text is made from the key.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const QUERIES = join(import.meta.dir, "..", "fixtures", "relevance", "queries.json");

export async function tinyCorpus(dir: string, size = 20): Promise<string> {
  const raw: unknown = await Bun.file(QUERIES).json();
  const keys = new Set<string>();
  if (Array.isArray(raw))
    for (const q of raw) {
      const relevant: unknown = typeof q === "object" && q !== null && "relevant" in q ? q.relevant : [];
      if (Array.isArray(relevant)) for (const k of relevant) if (typeof k === "string" && keys.size < size) keys.add(k);
    }
  if (keys.size < size) throw new Error(`${QUERIES}: fewer than ${size} labelled skills`);
  [...keys].forEach((key, i) => {
    const words = key.split("-").join(" ");
    const skill = join(dir, `source-${i % 2}`, key);
    mkdirSync(skill, { recursive: true });
    writeFileSync(
      join(skill, "SKILL.md"),
      `---\nname: ${key}\n` +
        `description: Use for ${words} work, from the first ${words} step to a checked result.\n---\n\n` +
        `# ${words}\n\nSteps for ${words}: read the request, do the ${words} task, check the output.\n`,
    );
  });
  return dir;
}
