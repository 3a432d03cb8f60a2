// Copies tests/fixtures/mcp/{project,home} into a sandbox and builds a context over it.
import { readdir, readFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { createContext, type LemonContext } from "../../../src/core/context.ts";
import type { Sandbox } from "../../support/sandbox.ts";

const FIXTURES = join(import.meta.dir, "..", "..", "fixtures", "mcp");

async function walk(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...(await walk(p)));
    else out.push(p);
  }
  return out;
}

export async function installFixtures(
  box: Sandbox,
  parts: ("project" | "home")[] = ["project", "home"],
): Promise<void> {
  for (const part of parts) {
    const src = join(FIXTURES, part);
    const dest = part === "project" ? box.project : box.home;
    for (const f of await walk(src)) {
      const text = (await readFile(f, "utf8")).replaceAll("__PROJECT__", box.project);
      await box.write(join(dest, relative(src, f)), text);
    }
  }
}

export function ctxFor(box: Sandbox, env: Record<string, string | undefined> = {}, cwd?: string): LemonContext {
  return createContext({ cwd: cwd ?? box.project, env: { ...box.env, ...env } });
}
