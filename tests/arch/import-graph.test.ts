// Architecture rules, checked on the import graph (no timings):
// - the boundary: no core module names the CLI or a terminal library, in any kind of import
//   (static, `import()`, type-only), and the CLI reaches core only through the package's public
//   entries (package.json `exports`). Every file on disk is checked, reachable or not;
// - the hot paths never load the heavy libraries eagerly (static imports only: an `import()`
//   behind a branch is the point of lazy loading);
// - only core/context.ts reads process globals.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  chain,
  computedImports,
  exists,
  graph,
  importsOf,
  publicEntries,
  REPO,
  sourceFiles,
  staticGraph,
  stripComments,
  type Edge,
} from "./graph.ts";

const PUBLIC_ENTRIES = publicEntries();
const CORE_FILES = sourceFiles("src/core");
const CLI_FILES = sourceFiles("src/cli");

/**
 * Libraries that talk to a terminal: the CLI's own (citty, consola), Node's terminal modules, and
 * the usual prompt/colour/spinner packages, so adding one to core fails here before review.
 */
const TERMINAL = [
  "citty",
  "consola",
  "node:tty",
  "node:readline",
  "node:readline/promises",
  "@clack/prompts",
  "chalk",
  "kleur",
  "picocolors",
  "ora",
  "enquirer",
  "prompts",
  "ink",
];
/** Loaded with import() inside the one module that wraps each. */
const HEAVY = ["@modelcontextprotocol/sdk", "yaml", "smol-toml", "ofetch"];
/** Start-up hot paths: the executable entry, the CLI proper (loaded for every command) and the skills entry. */
const LEAN_ENTRIES = ["src/cli/main.ts", "src/cli/entry.ts", "src/core/skills/index.ts"];

/**
 * CLI imports of core modules that are not public entries, as they stand: each `cli file -> core
 * file`. The list may only shrink. An import that goes away must leave the list too (the test
 * below fails on a stale line), so the list never hides a new one.
 */
const CLI_CORE_ALLOWED: readonly string[] = [];

const show = (file: string, e: Edge) => `${file} -> ${e.to} (${e.kind})`;

/** The imports of `files` that break the boundary, as `file -> target (kind)`. */
function coreOffences(files: readonly string[]): string[] {
  const out: string[] = [];
  for (const f of files) {
    for (const e of importsOf(f)) if (e.to.startsWith("src/cli/") || TERMINAL.includes(e.to)) out.push(show(f, e));
    // An import whose specifier is computed cannot be checked by any rule here.
    if (computedImports(f) > 0) out.push(`${f}: ${computedImports(f)} import() or require() of a computed specifier`);
  }
  return out;
}

/** CLI imports of core modules other than the public entries, as `cli file -> core file`. */
function cliCoreImports(files: readonly string[], entries: readonly string[]): string[] {
  const out = new Set<string>();
  for (const f of files)
    for (const e of importsOf(f))
      if (e.to.startsWith("src/core/") && !entries.includes(e.to)) out.add(`${f} -> ${e.to}`);
  return [...out].sort();
}

describe("the public entries", () => {
  test("come from package.json exports and exist", () => {
    expect(PUBLIC_ENTRIES.length).toBeGreaterThan(0);
    expect(PUBLIC_ENTRIES.filter((e) => !exists(e))).toEqual([]);
    expect(PUBLIC_ENTRIES.every((e) => e.startsWith("src/core/"))).toBe(true);
  });

  for (const entry of PUBLIC_ENTRIES)
    test(`${entry} reaches neither src/cli/ nor a terminal library, static or dynamic`, () => {
      const g = graph(entry, ["static", "dynamic", "type"]);
      const hits = [...g.files.keys()].filter((f) => f.startsWith("src/cli/")).map((f) => chain(g, f));
      for (const f of g.files.keys())
        for (const e of importsOf(f)) if (TERMINAL.includes(e.to)) hits.push(`${e.to} via ${chain(g, f)}`);
      expect(hits).toEqual([]);
    });
});

describe("core never imports the CLI or a terminal library", () => {
  test(`every one of the ${CORE_FILES.length} files under src/core, in every kind of import`, () => {
    expect(CORE_FILES.length).toBeGreaterThan(50);
    expect(coreOffences(CORE_FILES)).toEqual([]);
  });

  test("the rule sees static, dynamic and type-only imports and computed specifiers", () => {
    const dir = "tests/arch/fixtures";
    expect(coreOffences([`${dir}/offender.ts`])).toEqual([
      `${dir}/offender.ts -> node:tty (static)`,
      `${dir}/offender.ts -> src/cli/main.ts (dynamic)`,
      `${dir}/offender.ts -> consola (static)`,
      `${dir}/offender.ts -> src/cli/io.ts (type)`,
      `${dir}/offender.ts: 1 import() or require() of a computed specifier`,
    ]);
  });
});

describe("the CLI reaches core only through the public entries", () => {
  const actual = cliCoreImports(CLI_FILES, PUBLIC_ENTRIES);

  test("no CLI file imports a core module that is not a public entry (beyond the shrinking list)", () => {
    expect(actual.filter((i) => !CLI_CORE_ALLOWED.includes(i))).toEqual([]);
  });

  test("every line of the allow-list is still an import (remove the ones that went away)", () => {
    expect(CLI_CORE_ALLOWED.filter((i) => !actual.includes(i))).toEqual([]);
  });

  test("type-only and dynamic imports count", () => {
    const dir = "tests/arch/fixtures";
    expect(cliCoreImports([`${dir}/cli-user.ts`], PUBLIC_ENTRIES)).toEqual([
      `${dir}/cli-user.ts -> src/core/context.ts`,
      `${dir}/cli-user.ts -> src/core/errors.ts`,
    ]);
  });
});

describe("hot paths load heavy libraries lazily", () => {
  for (const entry of LEAN_ENTRIES) {
    test.skipIf(!exists(entry))(`${entry} never statically reaches ${HEAVY.join(", ")}`, () => {
      const g = staticGraph(entry);
      const hits = HEAVY.filter((p) => g.packages.has(p)).map((p) => `${p} via ${chain(g, g.packages.get(p)!)}`);
      expect(hits).toEqual([]);
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
      const hits = [
        ...LAZY.filter((f) => g.files.has(f)).map((f) => chain(g, f)),
        ...["@sinclair/typebox", ...HEAVY]
          .filter((p) => g.packages.has(p))
          .map((p) => `${p} via ${chain(g, g.packages.get(p)!)}`),
      ];
      expect(hits).toEqual([]);
    });
  }
});

const PROCESS_GLOBALS = /\bprocess\.env\b|\bprocess\.cwd\s*\(|\bhomedir\s*\(|\bBun\.env\b/;

test("only src/core/context.ts reads process.env, process.cwd() or os.homedir()", () => {
  const hits: string[] = [];
  for (const file of CORE_FILES) {
    if (file === "src/core/context.ts") continue;
    const lines = stripComments(readFileSync(join(REPO, file), "utf8")).split("\n");
    lines.forEach((line, i) => {
      if (PROCESS_GLOBALS.test(line)) hits.push(`${file}:${i + 1}: ${line.trim()}`);
    });
  }
  expect(hits).toEqual([]);
});
