// CI run of the independent held-out sets (issue 16 items 2-3): requests written without reading
// the skills (outsider-short.json) and long multi-sentence requests as agents receive them
// (outsider-long.json), each with requests no skill answers. Nothing was chosen on them: weights
// and the cut-off were tuned on queries.json's tune half and tune-v2.json only.
//
// Issue 16's targets (MRR@10 >= 0.80, hit@3 >= 0.85, no-answer empty >= 0.80, with the cut-off,
// strictly ahead of FTS5 and MiniSearch) are not reached; scripts/bench/relevance.md has the gap.
// What is asserted is what the run reaches, a little under the measured figure (2026-12-01, the
// gate-and-tail cut-off chosen on the tune sets for >= 80% of their no-answer requests emptied):
// with the cut-off, short .599/.651 empty .900, long .706/.760 empty .818; the uncut list is
// strictly ahead of SQLite FTS5 and MiniSearch on both (short .665/.723, long .822/.891).
import { expect, test } from "bun:test";
import { formatSets, presentSets, runSets } from "../../../../scripts/bench/relevance-sets.ts";
import { CORPUS_DIR, referenceCorpusAvailable } from "../../../support/corpus.ts";

const FLOORS: Record<string, { mrr10: number; hit3: number; empty: number }> = {
  "outsider-short": { mrr10: 0.58, hit3: 0.63, empty: 0.86 },
  "outsider-long": { mrr10: 0.69, hit3: 0.74, empty: 0.77 },
};

const sets = presentSets((s) => s.name in FLOORS);

test.skipIf(!referenceCorpusAvailable() || sets.length === 0)(
  "outsider sets: floors with the cut-off, no-answer requests come back empty, the uncut list ahead of FTS5 and MiniSearch",
  async () => {
    const report = await runSets(CORPUS_DIR, sets, ["lemon", "lemon-uncut", "minisearch", "fts5"]);
    console.log(formatSets(report));
    for (const set of sets) {
      const row = report[set.name]!;
      const floor = FLOORS[set.name]!;
      const cut = row.lemon;
      expect(cut.n).toBeGreaterThanOrEqual(100);
      expect(cut.mrr10).toBeGreaterThanOrEqual(floor.mrr10);
      expect(cut.hit3).toBeGreaterThanOrEqual(floor.hit3);
      expect(cut.nNoAnswer ?? 0).toBeGreaterThanOrEqual(20);
      expect(cut.empty ?? 0).toBeGreaterThanOrEqual(floor.empty);
      // The baselines never come back empty on these requests.
      for (const b of [row.minisearch, row.fts5]) {
        expect(row["lemon-uncut"].mrr10).toBeGreaterThan(b.mrr10);
        expect(row["lemon-uncut"].hit3).toBeGreaterThan(b.hit3);
      }
    }
  },
  240_000,
);
