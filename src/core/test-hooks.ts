/**
 * @module test-hooks
 * The seams the crash tests use to stop or fail a real process at a known step of an install,
 * update, remove or skill_manage write. A shipped product must not be steerable through its environment (a CI job, a
 * wrapper or an MCP host can set variables for lemon and would otherwise wedge every install
 * under the lock, or write a file anywhere): the hooks are live only in a source run (every
 * compiled release defines LEMON_TARGET) whose environment also says `LEMON_TEST_HOOKS=1`, and
 * the pause marker is only ever written inside the temp directory.
 */
import { join } from "node:path";
import type { LemonContext } from "./context.ts";
import { LemonError } from "./errors.ts";
import { writeFileAtomic } from "./fsx/atomic.ts";

declare const LEMON_TARGET: string | undefined;

const COMPILED = typeof LEMON_TARGET === "string";

/** True when this process honours the test hooks (never in a compiled release). */
export function testHooksOn(ctx: LemonContext): boolean {
  return !COMPILED && ctx.env.LEMON_TEST_HOOKS === "1";
}

/** The temp directory the pause markers must lie in. */
export const tempRoot = (ctx: LemonContext): string => {
  const t = ctx.env.TMPDIR ?? ctx.env.TEMP ?? ctx.env.TMP;
  return t !== undefined && t !== "" ? t : join("/", "tmp");
};

/**
 * With the hooks on, `LEMON_TEST_PAUSE_AT=<step>` and `LEMON_TEST_PAUSE_MARKER=<file in the temp
 * dir>`: writes the marker at that step and waits there forever, so a test can SIGKILL a real
 * process at a known point. A marker outside the temp dir is refused (FORBIDDEN).
 */
export async function pauseAt(ctx: LemonContext, step: string): Promise<void> {
  if (!testHooksOn(ctx) || ctx.env.LEMON_TEST_PAUSE_AT !== step) return;
  const marker = ctx.env.LEMON_TEST_PAUSE_MARKER;
  if (marker === undefined || marker === "") return;
  await writeFileAtomic(marker, step, { confineTo: tempRoot(ctx) });
  for (;;) await Bun.sleep(1000);
}

/** With the hooks on, `LEMON_TEST_FAIL_AT=<step>` fails the operation there (the restore path without a crash). */
export function failAt(ctx: LemonContext, step: string): void {
  if (testHooksOn(ctx) && ctx.env.LEMON_TEST_FAIL_AT === step)
    throw new LemonError("OPERATION_FAILED", `injected failure at ${step}`);
}
