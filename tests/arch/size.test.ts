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
  // measured 488,282 B (2026-12-01, issues 11-13 and 15; 236,744 B after issues 9-10): everything
  // createLemon can reach, lazily imported code included: the install engine (sources, hardened git,
  // staging, journal, lock, update, remove), the agent tools (read_skill, skill_manage with its
  // descriptor-relative writes), the usage sidecar, events and curator, the MCP client host (trust,
  // naming, inventory, reconnect ladder, calls, registry, status; the SDK itself is external), the
  // Hermes catalog and online discovery. Raised from 256 KiB; each part is imported on first use.
  { entry: "src/core/index.ts", max: 576 * KB, why: 'package export "."' },
  // measured 291,046 B (2026-12-01; 180,596 B after issues 9-10): the catalog, lint, relevance and
  // audit plus, lazily, install/update/remove, the lockfile and provenance, the Hermes catalog and
  // online search that SkillRegistry now offers; raised from 200 KiB for issues 11 and 15
  { entry: "src/core/skills/index.ts", max: 352 * KB, why: 'package export "./skills"' },
  // measured 204,904 B (2026-12-01, issues 14 and 17 with their hardening; 127,962 B after issue
  // 13): configuration plus, lazily, the client host, transports and project trust, the OAuth
  // engine (discovery, URL safety, token endpoint, DCR, PKCE listener, token store and refresh
  // lock: about 45 KB), its wiring and sampling (about 10 KB) and `lemon mcp serve` (about 20 KB
  // with its HTTP guard, backpressure and sanitising); the SDK stays external and loads only when a
  // server is contacted or served; raised from 176 KiB
  { entry: "src/core/mcp/index.ts", max: 208 * KB, why: 'package export "./mcp"' },
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
