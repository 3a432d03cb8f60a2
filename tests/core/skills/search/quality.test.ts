// CI run of the quality half of scripts/bench/relevance.ts on the real corpus (skills.md §7.2).
// The assertions hold on the held-out half, whose queries were never used to choose weights (nor
// the baselines' settings, which were picked on the tune half too). The corpus is read once and
// each engine indexes it once.
import { expect, test } from "bun:test";
import { join } from "node:path";
import { formatQuality, runQuality } from "../../../../scripts/bench/relevance-quality.ts";
import { CORPUS_DIR, referenceCorpusAvailable } from "../../../support/corpus.ts";

const queries = join(import.meta.dir, "../../../fixtures/relevance/queries.json");

test.skipIf(!referenceCorpusAvailable())(
  "lemon out-ranks MiniSearch, Orama and SQLite FTS5 on the held-out queries",
  async () => {
    const { report } = await runQuality(CORPUS_DIR, queries, { split: "heldout" });
    console.log(formatQuality(report));
    const lemon = report.lemon.heldout;
    expect(lemon.n).toBeGreaterThanOrEqual(90);
    for (const name of ["minisearch", "orama", "fts5"] as const) {
      const b = report[name].heldout;
      expect(lemon.mrr10).toBeGreaterThan(b.mrr10);
      expect(lemon.mrr3).toBeGreaterThan(b.mrr3);
      expect(lemon.ndcg3).toBeGreaterThan(b.ndcg3);
      expect(lemon.recall3).toBeGreaterThanOrEqual(b.recall3);
      expect(lemon.hit3).toBeGreaterThan(b.hit3);
    }
  },
  120_000,
);
