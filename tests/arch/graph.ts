// lemon's own import graph, read two ways:
// - what Bun loads: the transpiler's imports (type-only ones already dropped), `static` for
//   `import`/`export … from`/`require()`, which load eagerly, and `dynamic` for `import()`, which
//   loads when it runs. The hot-path rules follow static edges only.
// - what a module names: those plus the type-only imports (`import type`, `export type … from`,
//   `import("…")` in a type), for the boundary rules: a module that names another depends on it,
//   whether or not the bytes load.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { isBuiltin } from "node:module";
import { dirname, extname, join, relative } from "node:path";

export const REPO = join(import.meta.dir, "..", "..");

const SCANNED = new Set([".ts", ".tsx", ".js", ".mjs", ".cjs"]);
const transpiler = new Bun.Transpiler({ loader: "ts" });

export type EdgeKind = "static" | "dynamic" | "type";

export interface Edge {
  /** Repository-relative path of a lemon module, or an npm package name (`@scope/name`). */
  to: string;
  kind: EdgeKind;
  package: boolean;
}

export interface Graph {
  /** Repository-relative paths of the lemon modules reached, with the module that first imported each. */
  files: Map<string, string | null>;
  /** npm packages and `node:` built-ins reached, with the lemon module that imports each first. */
  packages: Map<string, string>;
}

/** `@scope/name/sub/path` -> `@scope/name`, `name/sub` -> `name`; built-ins keep `node:`. */
export function packageName(spec: string): string {
  if (spec.startsWith("node:")) return spec;
  if (isBuiltin(spec)) return `node:${spec}`;
  const parts = spec.split("/");
  return spec.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]!;
}

const isRelative = (spec: string) => spec.startsWith("./") || spec.startsWith("../") || spec.startsWith("/");
const isRuntime = (spec: string) => spec.startsWith("bun:") || spec === "bun";

/** Comments may name modules (to explain why one is not imported); code may not. */
export function stripComments(src: string): string {
  return src.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'`\\])\/\/.*$/gm, "$1");
}

/** Every module specifier a source names after `from`, in `import(…)` or `require(…)`. */
const NAMED = /\bfrom\s*["']([^"']+)["']|\b(?:import|require)\s*\(\s*["']([^"']+)["']\s*\)/g;
/** `import(` / `require(` with anything but a plain string: a module no rule can check. */
const COMPUTED = /\b(?:import|require)\s*\(\s*(?!["']|\))/g;

const cache = new Map<string, { edges: Edge[]; computed: number }>();

function read(file: string): { edges: Edge[]; computed: number } {
  const hit = cache.get(file);
  if (hit) return hit;
  const abs = join(REPO, file);
  // A `#!` line is legal only atop an executable entry and the scanner rejects it.
  const source = readFileSync(abs, "utf8").replace(/^#!.*/, "");
  const edges: Edge[] = [];
  const seen = new Set<string>();
  const add = (spec: string, kind: EdgeKind) => {
    if (isRuntime(spec)) return;
    // `*.macro.ts` runs at bundle time (imported `with { type: "macro" }`); only its output ships.
    if (spec.endsWith(".macro.ts")) return;
    const pkg = !isRelative(spec);
    const to = pkg
      ? packageName(spec)
      : relative(REPO, Bun.resolveSync(spec, dirname(abs)))
          .split("\\")
          .join("/");
    if (seen.has(`${kind}\0${to}`)) return;
    seen.add(`${kind}\0${to}`);
    edges.push({ to, kind, package: pkg });
  };
  const loaded = new Set<string>();
  for (const imp of transpiler.scanImports(source)) {
    if (imp.kind === "import-statement" || imp.kind === "require-call") add(imp.path, "static");
    else if (imp.kind === "dynamic-import") add(imp.path, "dynamic");
    else continue;
    loaded.add(imp.path);
  }
  const code = stripComments(source);
  for (const m of code.matchAll(NAMED)) {
    const spec = m[1] ?? m[2]!;
    if (!loaded.has(spec)) add(spec, "type");
  }
  const out = { edges, computed: [...code.matchAll(COMPUTED)].length };
  cache.set(file, out);
  return out;
}

/** The direct imports of one lemon module (repository-relative path). */
export function importsOf(file: string): Edge[] {
  return SCANNED.has(extname(file)) ? read(file).edges : [];
}

/** How many `import(…)`/`require(…)` calls of a module take a computed specifier. */
export function computedImports(file: string): number {
  return SCANNED.has(extname(file)) ? read(file).computed : 0;
}

/**
 * Walks from `entry` (repository-relative) along the edges of the given kinds. Packages are
 * leaves: the graph stops at the package boundary, which is enough because none of lemon's
 * runtime dependencies imports another one.
 */
export function graph(entry: string, kinds: readonly EdgeKind[]): Graph {
  const files = new Map<string, string | null>([[entry, null]]);
  const packages = new Map<string, string>();
  const queue = [entry];
  while (queue.length > 0) {
    const file = queue.shift()!;
    for (const e of importsOf(file)) {
      if (!kinds.includes(e.kind)) continue;
      if (e.package) {
        if (!packages.has(e.to)) packages.set(e.to, file);
      } else if (!files.has(e.to)) {
        files.set(e.to, file);
        queue.push(e.to);
      }
    }
  }
  for (const p of [...packages.keys()]) if (p.startsWith("node:")) packages.delete(p);
  return { files, packages };
}

/** What loads eagerly with `entry`: static edges only. */
export function staticGraph(entry: string): Graph {
  return graph(entry, ["static"]);
}

/** `a -> b -> c`: how `entry` reaches `file`, for failure messages. */
export function chain(g: Graph, file: string): string {
  const path: string[] = [file];
  let cur = g.files.get(file) ?? null;
  while (cur !== null) {
    path.unshift(cur);
    cur = g.files.get(cur) ?? null;
  }
  return path.join(" -> ");
}

/** Repository-relative paths of the source files under `dir`, sorted. */
export function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const d of readdirSync(join(REPO, dir), { withFileTypes: true })) {
    const rel = `${dir}/${d.name}`;
    if (d.isDirectory()) out.push(...sourceFiles(rel));
    else if (SCANNED.has(extname(d.name)) && !d.name.endsWith(".d.ts")) out.push(rel);
  }
  return out.sort();
}

/** The package's public entries: every target of package.json `exports`. */
export function publicEntries(): string[] {
  const pkg: unknown = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8"));
  const out: string[] = [];
  const walk = (v: unknown) => {
    if (typeof v === "string") out.push(v.replace(/^\.\//, ""));
    else if (typeof v === "object" && v !== null) for (const x of Object.values(v)) walk(x);
  };
  walk(typeof pkg === "object" && pkg !== null && "exports" in pkg ? pkg.exports : null);
  return [...new Set(out)].sort();
}

export const exists = (rel: string) => existsSync(join(REPO, rel));
