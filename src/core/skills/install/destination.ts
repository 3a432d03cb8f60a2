/**
 * @module skills/install/destination
 * Where an install lands (install.md §4.8): the lemon root of the scope, or with `--agent` the
 * root another tool reads, exactly as discovery resolves it (skills.md §2.1, `labelRoot`). In the
 * project scope every root must resolve inside the real path of `C`, so a committed symlink
 * (`.claude -> ~/.ssh`) can never redirect a write.
 */
import { lstat, readdir } from "node:fs/promises";
import type { LemonContext } from "../../context.ts";
import { conflict, invalidParams, LemonError } from "../../errors.ts";
import { confinedTarget, resolveWriteTarget } from "../../fsx/atomic.ts";
import type { Scope } from "../../paths.ts";
import type { LockRecord } from "../lockfile.ts";
import { GLOBAL_ROOTS, labelRoot } from "../roots.ts";

/** `--agent` labels (install.md §4.8); the lock records the one used. */
export const AGENT_LABELS = ["lemon", "agents", "claude", "codex", "omp"] as const;
export type AgentLabel = (typeof AGENT_LABELS)[number];

/** install.md §4.8 key rule. */
export const INSTALL_KEY = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** INVALID_PARAMS unless `agent` is one of {@link AGENT_LABELS}. */
export function parseAgent(agent: unknown): AgentLabel {
  if (typeof agent === "string" && (AGENT_LABELS as readonly string[]).includes(agent)) return agent as AgentLabel;
  throw invalidParams(`agent must be one of ${AGENT_LABELS.join(", ")}`);
}

/**
 * The directory the skill's directory goes into: the root discovery reads for the label in this
 * context ({@link labelRoot}), so an install is always listed. A label with no root there is
 * UNAVAILABLE: switched off by its override (null or ""), or, with LEMON_HOME / LEMON_AGENT_DIR
 * set, another tool's home root that this lemon does not read until its override names it.
 */
export function destinationRoot(ctx: LemonContext, scope: Scope, agent: AgentLabel): string {
  const r = labelRoot(ctx, scope, agent);
  if (r.path !== null) return r.path;
  const g = GLOBAL_ROOTS.find((x) => x.label === agent)!;
  if (r.none === "switched_off")
    throw new LemonError("UNAVAILABLE", `--agent ${agent} is not available: its skill root is switched off`, {
      hint: `${g.env} (or the skillRoots.${agent} option) is set to the empty string`,
    });
  throw new LemonError(
    "UNAVAILABLE",
    `--agent ${agent} is not available: lemon is isolated (LEMON_HOME or LEMON_AGENT_DIR) and does not read ~/${g.rel}`,
    { hint: `set ${g.env}=~/${g.rel} (or the skillRoots.${agent} option) to read and install there` },
  );
}

/** The root a record's skill lives in: its `agent` root of the scope (install.md §4.8), lemon's without one. */
export function recordedRoot(ctx: LemonContext, scope: Scope, rec: LockRecord | null): string {
  return destinationRoot(ctx, scope, rec?.agent ?? "lemon");
}

/**
 * FORBIDDEN `refusing to write through symlink: <dir>` when a project root (or any component on
 * the way to it) resolves outside the real path of `C`; global roots are the user's own choice.
 * CONFLICT when a project root is really a global root (cwd = home): skills.md §2.1 makes it that
 * global root only, so the project scope never claims (installs, records, removes) a directory
 * the global scope owns.
 */
export async function assertWritableRoot(ctx: LemonContext, scope: Scope, root: string): Promise<void> {
  if (scope !== "project") return;
  const real = await confinedTarget(root, ctx.cwd);
  for (const agent of AGENT_LABELS) {
    let global: string;
    try {
      global = await resolveWriteTarget(destinationRoot(ctx, "global", agent));
    } catch {
      continue;
    }
    if (global === real)
      throw conflict(
        `refusing --local: ${root} is the global ${agent} skill root (the project is the home directory)`,
        {
          hint: "install, update or remove it without --local",
        },
      );
  }
}

/** True when something (a directory, a file, even a dangling link) occupies `path`. */
export async function occupied(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return false;
    throw err;
  }
}

/** The names in `dir`, or none when it cannot be read (missing, not a directory): recovery's sweep. */
export async function namesIn(dir: string): Promise<string[]> {
  try {
    return await readdir(dir);
  } catch {
    return [];
  }
}
