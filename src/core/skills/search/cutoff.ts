/**
 * @module skills/search/cutoff
 * The "nothing fits" cut-off (issue 16 item 3). A hit is returned only when its score is a large
 * enough share of what the request could score in that snapshot: every query word's best weight ×
 * idf (`Scored.norm`), plus, for each word no skill contains at all, the snapshot's largest idf
 * (`Scored.missing`: a request about COBOL copybooks in a catalog without COBOL is mostly
 * unanswered). Long requests get a gentler share (their story words raise the most a skill could
 * score without making any skill less right). The share scales with the catalog's breadth
 * (`Scored.breadth`): calibrated on 1,124 skills, it would cut good answers in a catalog of ten,
 * whose idf is noise. That scaling alone let a single incidental word through a tiny catalog ("bake
 * a chocolate cake" kept a skill for a near spelling of "cake", issue 16): in a narrow catalog a hit
 * below the full share must match at least `narrowWords` of a request's words (a short query of
 * fewer words needs them all), since idf there cannot tell an incidental word from the point of
 * the request, while a count of matched words still can. Never cut: a query equal to a key or name
 * (skills.md §7.1 rule 5), and requests in other languages, which match through the glossary's
 * few English words and whose own words are rightly missing (measured again for issue 16 on the
 * tune sets' non-English requests: cutting them at the full share costs tune-v2 0.17 MRR@10, at a
 * quarter of it still 0.04, and empties none of its two no-answer ones; so they stay uncut).
 *
 * Chosen on the tune sets only (queries.json tune half, tune-v2.json, tune-noanswer.json;
 * scripts/bench/relevance.md): the smallest gate at which at least 80% of the tune sets' no-answer
 * requests come back empty, short (79) and long (77) alike (issue 16 item 3's target). That costs
 * answerable requests: on tune-v2 the short ones keep MRR@10 0.578 of the uncut 0.672 and the long
 * ones 0.816 of 0.859; 35 of 430 answerable tune requests lose a right answer from their first
 * three, against 18 at the earlier gate of 0.24, which emptied 68% of the same no-answer requests.
 * Features tried beside the share and not kept (no better at telling the two apart, cross-validated
 * AUC 0.94-0.95 for all): the gap to the second hit, the request's length, the share matched in
 * name, keywords and description only, and words reached only through a near spelling.
 */
import type { Hit, ParsedQuery, Scored } from "./score.ts";

export const CUTOFF = {
  /**
   * The gate: the scope's best hit must reach score / (norm + missing) >= this (for a request of up
   * to `longFrom` words), or the scope answers nothing.
   */
  minShare: 0.305,
  /** Below the best hit, a hit of a scope that passed the gate needs this share (a looser bar). */
  tailShare: 0.16,
  /** Beyond this many query words the share is multiplied by (words / longFrom) ^ longPower. */
  longFrom: 6,
  longPower: 0.25,
  /** In a narrow catalog, a hit below the full share must match this many of the request's words. */
  narrowWords: 2,
  /** 0: requests in other languages are cut too. */
  spareForeign: 1,
};

/**
 * Whether a hit survives the cut-off in the snapshot it was scored in. Whether a request is
 * answered at all is decided once, on the best hit (the gate); the hits after it only need the
 * looser tail share. Measured on the tune sets (scripts/bench/relevance.md): deciding per hit at
 * the gate's share also cut the right skill at rank 2 or 3 under a confident first hit, and the
 * gate with a tail beats it at every threshold tried (tune-v2 short MRR@10 0.615 vs 0.605, long
 * 0.845 vs 0.836, the same no-answer requests emptied).
 */
export function keeps(h: Hit, q: ParsedQuery, scored: Scored): boolean {
  if (h.exact || (q.foreign === true && CUTOFF.spareForeign === 1)) return true;
  const most = scored.norm + scored.missing;
  if (most <= 0) return true;
  const top = scored.hits[0];
  if (top === undefined || top === h) return passes(h, q, scored, most, CUTOFF.minShare);
  if (!top.exact && !passes(top, q, scored, most, CUTOFF.minShare)) return false;
  return passes(h, q, scored, most, CUTOFF.tailShare);
}

function passes(h: Hit, q: ParsedQuery, scored: Scored, most: number, bar: number): boolean {
  const long = Math.max(1, q.slots / CUTOFF.longFrom) ** CUTOFF.longPower;
  const share = (h.score / most) * long;
  if (share < bar * scored.breadth) return false;
  if (scored.breadth >= 1 || share >= bar) return true;
  const slots = Math.min(q.slots, 32);
  return matchedWords(h.bits, slots) >= Math.min(CUTOFF.narrowWords, slots);
}

/** How many of the request's first `slots` words a hit matched. */
function matchedWords(bits: number, slots: number): number {
  let n = 0;
  for (let i = 0; i < slots; i++) if ((bits >>> i) & 1) n++;
  return n;
}
