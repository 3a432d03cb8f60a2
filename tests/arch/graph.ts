// The static import graph of lemon's own modules, as Bun's transpiler sees it: edges are the
// imports that load eagerly (`import-statement`, `require-call`); `dynamic-import` edges are the
// lazy ones and are not followed. Type-only imports are already dropped by the transpiler.
import { existsSync, readFileSync } from "node:fs";
import { dirname, extname, join, relative } from "node:path";

export const REPO = join(import.meta.dir, "..", "..");

const SCANNED = new Set([".ts", ".tsx", ".js", ".mjs", ".cjs"]);
const transpiler = new Bun.Transpiler({ loader: "ts" });

export interface Graph {
  /** Repository-relative paths of the lemon modules reached, with the module that first imported each. */
  files: Map<string, string | null>;
  /** npm packages reached, with the lemon module that imports each first. */
  packages: Map<string, string>;
}

/** `@scope/name/sub/path` -> `@scope/name`, `name/sub` -> `name`. */
export function packageName(spec: string): string {
  const parts = spec.split("/");
  return spec.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]!;
}

const isBuiltin = (spec: string) => spec.startsWith("node:") || spec.startsWith("bun:") || spec === "bun";
const isRelative = (spec: string) => spec.startsWith("./") || spec.startsWith("../") || spec.startsWith("/");

/**
 * Walks from `entry` (repository-relative). Packages are leaves: the graph stops at the package
 * boundary, which is enough because none of lemon's runtime dependencies imports another one.
 */
export function staticGraph(entry: string): Graph {
  const files = new Map<string, string | null>([[entry, null]]);
  const packages = new Map<string, string>();
  const queue = [entry];
  while (queue.length > 0) {
    const file = queue.shift()!;
    if (!SCANNED.has(extname(file))) continue; // *.md, *.json: data, no imports
    const abs = join(REPO, file);
    // A `#!` line is legal only atop an executable entry and the scanner rejects it.
    const source = readFileSync(abs, "utf8").replace(/^#!.*/, "");
    for (const imp of transpiler.scanImports(source)) {
      if (imp.kind !== "import-statement" && imp.kind !== "require-call") continue;
      if (isBuiltin(imp.path)) continue;
      // `*.macro.ts` runs at bundle time (imported `with { type: "macro" }`); only its output ships.
      if (imp.path.endsWith(".macro.ts")) continue;
      if (!isRelative(imp.path)) {
        const name = packageName(imp.path);
        if (!packages.has(name)) packages.set(name, file);
        continue;
      }
      const target = relative(REPO, Bun.resolveSync(imp.path, dirname(abs))).split("\\").join("/");
      if (files.has(target)) continue;
      files.set(target, file);
      queue.push(target);
    }
  }
  return { files, packages };
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

export const exists = (rel: string) => existsSync(join(REPO, rel));
