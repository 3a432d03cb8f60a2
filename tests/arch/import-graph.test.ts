// Architecture rules from DESIGN.md §1 and §7, checked on the static import graph (no timings):
// the embeddable core never loads the CLI's libraries, the hot paths never load the heavy ones
// eagerly, and only core/context.ts reads process globals.
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { chain, exists, REPO, staticGraph } from "./graph.ts";

/** The package's `exports` targets. An entry not written yet is skipped, never silently passed. */
const PUBLIC_ENTRIES = ["src/core/index.ts", "src/core/skills/index.ts", "src/core/mcp/index.ts"];

/** Start-up hot paths: the executable entry, the CLI proper (loaded for every command) and the skills entry. */
const LEAN_ENTRIES = ["src/cli/main.ts", "src/cli/entry.ts", "src/core/skills/index.ts"];

const CLI_ONLY = ["citty", "consola"];
/** Loaded with import() inside the one module that wraps each (DESIGN.md §7). */
const HEAVY = ["@modelcontextprotocol/sdk", "yaml", "smol-toml", "ofetch"];

function offenders(entry: string, packages: string[], forbidCli: boolean): string[] {
  const g = staticGraph(entry);
  const out: string[] = [];
  for (const p of packages) {
    const from = g.packages.get(p);
    if (from !== undefined) out.push(`${p} via ${chain(g, from)}`);
  }
  if (forbidCli) for (const f of g.files.keys()) if (f.startsWith("src/cli/")) out.push(`${f} via ${chain(g, f)}`);
  return out;
}

describe("public entries stay free of the CLI", () => {
  for (const entry of PUBLIC_ENTRIES) {
    test.skipIf(!exists(entry))(`${entry} never reaches citty, consola or src/cli/`, () => {
      expect(offenders(entry, CLI_ONLY, true)).toEqual([]);
    });
  }
});

describe("hot paths load heavy libraries lazily", () => {
  for (const entry of LEAN_ENTRIES) {
    test.skipIf(!exists(entry))(`${entry} never statically reaches ${HEAVY.join(", ")}`, () => {
      expect(offenders(entry, HEAVY, false)).toEqual([]);
    });
  }

  test("cli/main.ts statically reaches nothing but its static usage text", () => {
    // Everything else arrives through the dynamic import of the CLI entry, so `--version` and
    // `--help` parse none of it.
    const g = staticGraph("src/cli/main.ts");
    expect([...g.files.keys()].sort()).toEqual(["src/cli/main.ts", "src/cli/top-usage.ts"]);
    expect([...g.packages.keys()]).toEqual([]);
  });
});

describe("a relevance query against a current snapshot loads only the query path", () => {
  // `lemon skill relevant` and `findRelevant` run on every agent turn: building, SKILL.md parsing,
  // the catalog scan, settings and TypeBox load only when a scope needs them.
  const LAZY = [
    "src/core/skills/catalog.ts",
    "src/core/skills/load.ts",
    "src/core/skills/lint.ts",
    "src/core/skills/settings.ts",
    "src/core/skills/search/builder.ts",
    "src/core/skills/search/scope-build.ts",
    "src/core/skills/search/worker-client.ts",
    "src/core/fsx/atomic.ts",
  ];
  for (const entry of ["src/cli/commands/skill/relevant.ts", "src/core/skills/search/relevance.ts"]) {
    test(`${entry} reaches neither TypeBox nor ${LAZY.length} build-side modules statically`, () => {
      const g = staticGraph(entry);
      const hits = [...LAZY.filter((f) => g.files.has(f)).map((f) => chain(g, f)), ...["@sinclair/typebox", ...HEAVY].filter((p) => g.packages.has(p)).map((p) => `${p} via ${chain(g, g.packages.get(p)!)}`)];
      expect(hits).toEqual([]);
    });
  }
});

function tsFiles(dir: string): string[] {
  const out: string[] = [];
  for (const d of readdirSync(join(REPO, dir), { withFileTypes: true })) {
    const rel = `${dir}/${d.name}`;
    if (d.isDirectory()) out.push(...tsFiles(rel));
    else if (d.name.endsWith(".ts")) out.push(rel);
  }
  return out;
}

/** Comments may name the globals (to explain why they are not read); code may not. */
function stripComments(src: string): string {
  return src.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'`\\])\/\/.*$/gm, "$1");
}

const PROCESS_GLOBALS = /\bprocess\.env\b|\bprocess\.cwd\s*\(|\bhomedir\s*\(|\bBun\.env\b/;

test("only src/core/context.ts reads process.env, process.cwd() or os.homedir()", () => {
  const hits: string[] = [];
  for (const file of tsFiles("src/core")) {
    if (file === "src/core/context.ts") continue;
    const lines = stripComments(readFileSync(join(REPO, file), "utf8")).split("\n");
    lines.forEach((line, i) => {
      if (PROCESS_GLOBALS.test(line)) hits.push(`${relative(REPO, join(REPO, file))}:${i + 1}: ${line.trim()}`);
    });
  }
  expect(hits).toEqual([]);
});
