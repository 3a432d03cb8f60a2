/**
 * @module scripts/bench/check-labels
 * Validates every labelled relevance set in tests/fixtures/relevance/ against the corpus: the
 * shape of each entry, ids unique across all sets, every relevant key a displayable skill of the
 * corpus (as the quality benchmark sees it), no key listed twice in one entry, and the split a
 * set promises (outsider sets, tune-v2 and tune-noanswer hold one split only). Prints counts per
 * set, split and kind; exits 1 on any problem.
 *
 *   bun scripts/bench/check-labels.ts [corpus-dir]
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { requireCorpus } from "./corpus.ts";
import { corpusDocs, corpusLemon } from "./relevance-quality.ts";

const DIR = join(import.meta.dir, "../../tests/fixtures/relevance");

/** Sets whose every entry must carry one split: held-out sets must never leak into tuning. */
const ONLY_SPLIT: Record<string, "tune" | "heldout"> = {
  "outsider-short.json": "heldout",
  "outsider-long.json": "heldout",
  "tune-v2.json": "tune",
  "tune-noanswer.json": "tune",
};

/** Word-count bounds the outsider sets were written to (answerable entries only). */
const WORDS: Record<string, { min: number; max: number }> = {
  "outsider-short.json": { min: 1, max: 25 },
  "outsider-long.json": { min: 40, max: 200 },
};

interface Entry {
  id: string;
  query: string;
  relevant: string[];
  kind: string;
  split: string;
  note?: string;
}

function asEntry(v: unknown, where: string, problems: string[]): Entry | null {
  if (typeof v !== "object" || v === null || Array.isArray(v)) {
    problems.push(`${where}: not an object`);
    return null;
  }
  const o = v as Record<string, unknown>;
  const bad: string[] = [];
  if (typeof o.id !== "string" || o.id === "") bad.push("id");
  if (typeof o.query !== "string" || o.query.trim() === "") bad.push("query");
  if (!Array.isArray(o.relevant) || !o.relevant.every((k) => typeof k === "string")) bad.push("relevant");
  if (typeof o.kind !== "string" || o.kind === "") bad.push("kind");
  if (o.split !== "tune" && o.split !== "heldout") bad.push("split");
  if (o.note !== undefined && typeof o.note !== "string") bad.push("note");
  const extra = Object.keys(o).filter((k) => !["id", "query", "relevant", "kind", "split", "note"].includes(k));
  if (extra.length > 0) bad.push(`unknown field(s) ${extra.join(",")}`);
  if (bad.length > 0) {
    problems.push(`${where}: bad ${bad.join(", ")}`);
    return null;
  }
  return o as unknown as Entry;
}

function words(s: string): number {
  return s.split(/\s+/).filter((w) => w !== "").length;
}

async function main(): Promise<number> {
  const corpus = requireCorpus(process.argv[2]);
  await using c = await corpusLemon(corpus);
  const displayable = new Set((await corpusDocs(c.registry)).map((d) => d.key));
  // Keys of the corpus that this platform hides (macOS-only skills on linux): queries.json predates
  // the rule and keeps one such request, which every benchmark skips (it has no answer it can judge).
  const known = new Set([...new Bun.Glob("*/*/SKILL.md").scanSync({ cwd: corpus })].map((p) => p.split("/")[1] ?? ""));
  const notes: string[] = [];

  const problems: string[] = [];
  const seenIds = new Map<string, string>();
  const files = readdirSync(DIR)
    .filter((f) => f.endsWith(".json"))
    .sort();
  for (const file of files) {
    const raw: unknown = await Bun.file(join(DIR, file)).json();
    if (!Array.isArray(raw)) {
      problems.push(`${file}: not a JSON array`);
      continue;
    }
    const counts = new Map<string, number>();
    let answerable = 0;
    let empty = 0;
    raw.forEach((v, i) => {
      const e = asEntry(v, `${file}[${i}]`, problems);
      if (!e) return;
      const where = `${file} ${e.id}`;
      const prev = seenIds.get(e.id);
      if (prev) problems.push(`${where}: id also used in ${prev}`);
      else seenIds.set(e.id, file);
      const only = ONLY_SPLIT[file];
      if (only && e.split !== only) problems.push(`${where}: split "${e.split}", this set holds "${only}" only`);
      if (new Set(e.relevant).size !== e.relevant.length) problems.push(`${where}: a relevant key is listed twice`);
      for (const k of e.relevant)
        if (displayable.has(k)) continue;
        else if (file === "queries.json" && known.has(k))
          notes.push(`${where}: "${k}" is hidden on this platform; the benchmarks skip this request`);
        else problems.push(`${where}: "${k}" is no displayable corpus skill`);
      if ((e.kind === "no-answer") !== (e.relevant.length === 0))
        problems.push(`${where}: kind "${e.kind}" with ${e.relevant.length} relevant key(s)`);
      const bound = WORDS[file];
      const n = words(e.query);
      if (bound && e.relevant.length > 0 && (n < bound.min || n > bound.max))
        problems.push(`${where}: ${n} words, outside ${bound.min}–${bound.max}`);
      if (e.relevant.length > 0) answerable++;
      else empty++;
      const key = `${e.split}/${e.kind}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
    });
    console.log(`${file}: ${raw.length} entries (${answerable} answerable, ${empty} no-answer)`);
    for (const [k, n] of [...counts].sort()) console.log(`  ${k.padEnd(28)} ${n}`);
  }
  console.log(`corpus: ${displayable.size} displayable skills`);
  for (const n of notes) console.log(`note: ${n}`);
  if (problems.length === 0) {
    console.log("labels ok");
    return 0;
  }
  for (const p of problems) console.error(p);
  console.error(`${problems.length} problem(s)`);
  return 1;
}

process.exit(await main());
