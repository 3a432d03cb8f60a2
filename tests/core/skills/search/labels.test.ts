// Every labelled relevance set stays valid against the corpus (scripts/bench/check-labels.ts):
// unique ids, displayable keys, splits and kinds as each file promises.
import { expect, test } from "bun:test";
import { join } from "node:path";
import { CORPUS_DIR, referenceCorpusAvailable } from "../../../support/corpus.ts";

test.skipIf(!referenceCorpusAvailable())(
  "check-labels passes on every set",
  () => {
    const script = join(import.meta.dir, "../../../../scripts/bench/check-labels.ts");
    const run = Bun.spawnSync([process.execPath, script, CORPUS_DIR], { stdout: "pipe", stderr: "pipe" });
    const err = run.stderr.toString();
    expect(err).toBe("");
    expect(run.exitCode).toBe(0);
    expect(run.stdout.toString()).toContain("labels ok");
  },
  60_000,
);
