// Shared by the skill_manage tests: an instance over a sandbox and a byte-exact picture of a tree,
// so "the skill is left as it was" is one equality.
import { lstatSync, readdirSync, readFileSync, readlinkSync } from "node:fs";
import { join } from "node:path";
import { createLemon, type Lemon, type LemonOptions } from "../../../src/core/index.ts";
import type { Sandbox } from "../../support/sandbox.ts";

export const BODY = "# Steps\n\nRun the tests before committing.\n";

/** A valid SKILL.md for `name`. */
export function skillText(name: string, description = `Use this when working on ${name}.`, body = BODY): string {
  return `---\nname: ${name}\ndescription: ${description}\n---\n${body}`;
}

export function lemonFor(box: Sandbox, opts: LemonOptions = {}): Lemon {
  return createLemon({ cwd: box.project, env: box.env, ...opts });
}

export const projectRoot = (box: Sandbox) => join(box.project, ".lemon", "skill");
export const globalRoot = (box: Sandbox) => join(box.agentDir, "skill");

/** Every entry under `dir` (relative path → file text, `->target` for links, `/` for dirs); null when absent. */
export function tree(dir: string): Record<string, string> | null {
  try {
    lstatSync(dir);
  } catch {
    return null;
  }
  const out: Record<string, string> = {};
  const walk = (d: string, rel: string) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      const r = rel === "" ? name : `${rel}/${name}`;
      const st = lstatSync(p);
      if (st.isSymbolicLink()) out[r] = `->${readlinkSync(p)}`;
      else if (st.isDirectory()) {
        out[r] = "/";
        walk(p, r);
      } else out[r] = readFileSync(p, "utf8");
    }
  };
  walk(dir, "");
  return out;
}

/** The text of a result's first block. */
export const textOf = (r: { content: { type: string; text?: string }[] }) => r.content[0]?.text ?? "";
