// Bundle-size budgets (DESIGN.md §7): each public entry bundled in memory, minified, dependencies
// external, so the number is lemon's own code. Raising a budget is a visible edit with a reason:
// update the measured figure and the date beside it.
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { exists, publicEntries, REPO } from "./graph.ts";

interface Budget {
  entry: string;
  /** Bytes of all outputs (entry plus lazily imported code, inlined without splitting). */
  max: number;
  why: string;
}

const KB = 1024;

const BUDGETS: Budget[] = [
  // measured 236,744 B (2026-12-01; 184,017 B before issues 9-10): the catalog plus relevance, the
  // audit engine and MCP configuration behind createLemon; raised from 208 KiB for issue 9's audit
  // rule classes (data flow, DNS exfiltration, credentials, persistence, remote instructions), the
  // strict JSON reader, lock recovery and signal cleanup, and issue 10's generated mcp.json checks
  { entry: "src/core/index.ts", max: 256 * KB, why: 'package export "."' },
  // measured 180,596 B (2026-12-01; 146,596 B before issues 9-10): catalog, lint, relevance and the
  // audit (lazily imported, counted because this bundle inlines it); raised from 160 KiB for issue
  // 9's audit rule classes and hardening
  { entry: "src/core/skills/index.ts", max: 200 * KB, why: 'package export "./skills"' },
  // measured 69,985 B (2026-12-01; 43,588 B before issues 9-10: the strict JSON reader, mcp.json's
  // TypeBox schema and generated checks); the SDK is external and loaded lazily
  { entry: "src/core/mcp/index.ts", max: 128 * KB, why: 'package export "./mcp"' },
  // measured 1,322 B (2026-12-01): the executable entry must stay tiny, it is parsed on every start
  { entry: "src/cli/main.ts", max: 4 * KB, why: "answers --version and --help before the CLI loads" },
];

async function bundledBytes(entry: string): Promise<number> {
  const out = await Bun.build({
    entrypoints: [join(REPO, entry)],
    target: "bun",
    minify: true,
    packages: "external",
  });
  if (!out.success) throw new Error(out.logs.map(String).join("\n"));
  return out.outputs.reduce((sum, o) => sum + o.size, 0);
}

describe("bundle size budgets", () => {
  test("every package export has a budget", () => {
    expect(publicEntries().filter((e) => !BUDGETS.some((b) => b.entry === e))).toEqual([]);
  });

  for (const b of BUDGETS) {
    test.skipIf(!exists(b.entry))(`${b.entry} (${b.why}) stays under ${b.max} bytes`, async () => {
      expect(await bundledBytes(b.entry)).toBeLessThanOrEqual(b.max);
    });
  }
});
