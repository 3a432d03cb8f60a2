/**
 * Audit benchmark and corpus report: audits every skill under a corpus (laid out
 * <source>/<key>/SKILL.md; default: as scripts/bench/corpus.ts finds it) cold, then again with the cache,
 * and prints pass/warn/block counts, the rules behind every block and warn, and wall times.
 *
 *   npx bun scripts/bench/audit.ts [CORPUS] [--list]
 */
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { requireCorpus } from "./corpus.ts";
import { auditBundles, formatFinding, type AuditReport } from "../../src/core/skills/audit/index.ts";

const args = process.argv.slice(2);
const corpus = requireCorpus(args.find((a) => !a.startsWith("--")));
const list = args.includes("--list");

async function skillDirs(root: string): Promise<string[]> {
  const out: string[] = [];
  for (const src of await readdir(root, { withFileTypes: true })) {
    if (!src.isDirectory()) continue;
    for (const k of await readdir(join(root, src.name), { withFileTypes: true }))
      if (k.isDirectory()) out.push(join(root, src.name, k.name));
  }
  return out.sort();
}

const tmp = await mkdtemp(join(tmpdir(), "lemon-audit-bench-"));
const cacheFile = join(tmp, "skills.audit.json");
try {
  const dirs = await skillDirs(corpus);
  // Several sources share key names; one cache needs unique keys.
  const keyOf = (d: string) => d.slice(corpus.length + 1);
  let t = performance.now();
  const cold = await auditBundles(dirs, { cacheFile, keyOf });
  const coldMs = performance.now() - t;
  t = performance.now();
  const warm = await auditBundles(dirs, { cacheFile, keyOf });
  const warmMs = performance.now() - t;
  t = performance.now();
  await auditBundles(dirs, {});
  const noCacheMs = performance.now() - t;

  const counts = { pass: 0, warn: 0, block: 0 };
  const byRule = new Map<string, number>();
  for (const r of cold) {
    counts[r.verdict]++;
    for (const f of r.findings)
      if (f.severity === "critical" || f.severity === "high") {
        const k = `${f.severity} ${f.rule}`;
        byRule.set(k, (byRule.get(k) ?? 0) + 1);
      }
  }
  const cachedHits = warm.filter((r) => r.cached).length;
  const rel = (r: AuditReport) => r.path.slice(corpus.length + 1);
  console.log(`corpus: ${corpus} (${dirs.length} skills)`);
  console.log(`verdicts: pass ${counts.pass}, warn ${counts.warn}, block ${counts.block}`);
  const rules = [...byRule].sort().map(([k, v]) => `${k}=${v}`);
  console.log(`high/critical findings by rule: ${rules.join(", ") || "none"}`);
  const at = (r: AuditReport, severity: string) =>
    r.findings
      .filter((f) => f.severity === severity)
      .map(formatFinding)
      .join("; ");
  for (const r of cold.filter((x) => x.verdict === "block")) console.log(`BLOCK ${rel(r)}: ${at(r, "critical")}`);
  if (list) for (const r of cold.filter((x) => x.verdict === "warn")) console.log(`warn  ${rel(r)}: ${at(r, "high")}`);
  console.log(`cold audit (cache written): ${coldMs.toFixed(0)} ms`);
  console.log(`warm audit (cache reused ${cachedHits}/${dirs.length}): ${warmMs.toFixed(0)} ms`);
  console.log(`audit without cache: ${noCacheMs.toFixed(0)} ms`);
  console.log(`reproduce: npx bun scripts/bench/audit.ts ${corpus}${list ? " --list" : ""}`);
} finally {
  await rm(tmp, { recursive: true, force: true });
}
