/**
 * @module scripts/bench/stat-floor
 * The stat floor in Bun: what the runtime alone costs to stat every path of a list the way
 * lemon's identity check does (`fs.statSync`, following links, a missing path not an error),
 * with nothing else of lemon. relevance-turns.ts compiles it like lemon (`bun build --compile`,
 * hello.ts) and runs it once per fresh process, so it pays the cold process's unoptimised code
 * as lemon's check does. Self-contained: the benchmark compiles this file's text as it is.
 *
 *   stat-floor PATH-LIST sync|split
 *
 * `sync` stats every path on the main thread; `split` sends the first half to the runtime's
 * thread pool (`fs.stat` callbacks, all in flight at once) while the main thread stats the rest.
 * Timed in-process from the first stat to the last result, after the list is read: process
 * start and the list are excluded, as they are from lemon's figure (which starts at its first
 * stat with the snapshot already open). Prints `{"ms":…,"n":…}`.
 */
import { readFileSync, stat, statSync, type Stats } from "node:fs";

const [list, mode] = process.argv.slice(2);
if (!list || (mode !== "sync" && mode !== "split")) {
  console.error("usage: stat-floor PATH-LIST sync|split");
  process.exit(2);
}
const paths = readFileSync(list, "utf8").split("\n");
const n = paths.length;
// Every result is kept, as lemon keeps its numbers, so no stat is optimised away.
const out = new Array<Stats | undefined>(n);
const pooled = mode === "split" ? n >> 1 : 0;

const t = performance.now();
await new Promise<void>((resolve) => {
  let done = 0;
  let mainDone = false;
  const finish = () => {
    if (mainDone && done === pooled) resolve();
  };
  for (let i = 0; i < pooled; i++)
    stat(paths[i]!, (err, st) => {
      out[i] = err ? undefined : st;
      done++;
      finish();
    });
  for (let i = pooled; i < n; i++) out[i] = statSync(paths[i]!, { throwIfNoEntry: false });
  mainDone = true;
  finish();
});
const ms = performance.now() - t;
console.log(JSON.stringify({ ms, n, missing: out.filter((s) => s === undefined).length }));
