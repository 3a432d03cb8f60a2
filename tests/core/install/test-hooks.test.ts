// The crash-test seams (test-hooks.ts) are inert unless a source run also says LEMON_TEST_HOOKS=1,
// and even then the pause marker is written only inside the temp dir: an environment a CI job or
// an MCP host passes through can neither wedge an install under the lock nor write a file.
import { describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { LemonContext } from "../../../src/core/context.ts";
import { createLemon } from "../../../src/core/index.ts";
import { failAt, pauseAt, testHooksOn } from "../../../src/core/test-hooks.ts";
import { sandbox } from "../../support/sandbox.ts";

const ctxWith = (env: Record<string, string>): LemonContext =>
  ({ env, cwd: "/", homeDir: "/", home: "/", agentDir: "/" }) as unknown as LemonContext;

test("without LEMON_TEST_HOOKS=1 an install ignores the pause and fail variables", async () => {
  await using box = await sandbox();
  const src = join(box.root, "src");
  await box.skill(src, "hello");
  const marker = join(box.home, "marker");
  const env = {
    ...box.env,
    LEMON_TEST_PAUSE_AT: "staged",
    LEMON_TEST_PAUSE_MARKER: marker,
    LEMON_TEST_FAIL_AT: "staged",
  };
  await using lemon = createLemon({ cwd: box.project, env, curator: false });
  const r = await lemon.skills.install(join(src, "hello"), { approve: true });
  expect(r.action).toBe("installed");
  expect(existsSync(marker)).toBe(false);
});

test("the hooks need the explicit switch; the marker must lie in the temp dir", async () => {
  expect(testHooksOn(ctxWith({ LEMON_TEST_HOOKS: "true" }))).toBe(false);
  expect(testHooksOn(ctxWith({ LEMON_TEST_HOOKS: "1" }))).toBe(true);
  expect(() => failAt(ctxWith({ LEMON_TEST_FAIL_AT: "x" }), "x")).not.toThrow();
  expect(() => failAt(ctxWith({ LEMON_TEST_HOOKS: "1", LEMON_TEST_FAIL_AT: "x" }), "x")).toThrow(
    "injected failure at x",
  );
  await using box = await sandbox();
  const outside = join(box.home, "marker");
  const ctx = ctxWith({
    LEMON_TEST_HOOKS: "1",
    LEMON_TEST_PAUSE_AT: "x",
    LEMON_TEST_PAUSE_MARKER: outside,
    TMPDIR: join(box.root, "tmp"),
  });
  await expect(pauseAt(ctx, "x")).rejects.toMatchObject({ code: "FORBIDDEN" });
  expect(existsSync(outside)).toBe(false);
  // Another step, or no marker: nothing happens.
  await pauseAt(ctx, "y");
  await pauseAt(ctxWith({ LEMON_TEST_HOOKS: "1", LEMON_TEST_PAUSE_AT: "x" }), "x");
});

describe("skill_manage pause seam", () => {
  test("is inert without LEMON_TEST_HOOKS=1, so an environment cannot wedge a write", async () => {
    const { pauseAt: managePause } = await import("../../../src/core/skills/tools/manage-fs.ts");
    const { createContext } = await import("../../../src/core/context.ts");
    const dir = mkdtempSync(join(tmpdir(), "lemon-hooks-"));
    const mark = join(dir, "mark");
    const ctx = createContext(
      { cwd: dir, env: { LEMON_TEST_PAUSE_AT: "staged", LEMON_TEST_PAUSE_FILE: mark } },
      "test",
    );
    await managePause(ctx, "staged");
    expect(existsSync(mark)).toBe(false);
  });
});
