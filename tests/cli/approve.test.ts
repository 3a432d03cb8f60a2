// CLI approvals (cli.md §1.3) decided by the io alone: memoryIo's `answers` make a pretend
// terminal, and without them an in-process run is refused at once, whatever runs the tests
// (a terminal included), so no test can hang waiting for a prompt.
import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { cliApprover } from "../../src/cli/approve.ts";
import { memoryIo } from "../../src/cli/io.ts";
import type { ApprovalRequest } from "../../src/core/index.ts";
import { sandbox } from "../support/sandbox.ts";

const request: ApprovalRequest = {
  kind: "skill_uninstall",
  key: "hello",
  scope: "global",
  trustLevel: "trusted",
  source: "/src/hello",
  destination: "/skills/hello",
};

const decide = async (approver: ReturnType<typeof cliApprover>) =>
  typeof approver.approve === "function" ? approver.approve(request) : approver.approve;

describe("memoryIo", () => {
  test("without answers it is not interactive: the approver refuses without reading a line", async () => {
    const m = memoryIo();
    expect(m.io.interactive).toBe(false);
    let read = 0;
    const io = {
      ...m.io,
      readLine: async () => {
        read++;
        return "y";
      },
    };
    const approver = cliApprover(io, { approve: false });
    await expect(decide(approver)).rejects.toMatchObject({ code: "FORBIDDEN" });
    expect(read).toBe(0);
    expect(m.stderr()).toBe("");
  });

  test("answers make a pretend terminal: one answer per prompt, null once they run out", async () => {
    const m = memoryIo({ answers: ["y", "no"] });
    expect(m.io.interactive).toBe(true);
    const approver = cliApprover(m.io, { approve: false });
    expect(await decide(approver)).toBe(true);
    expect(approver.declined()).toBe(false);
    expect(await decide(approver)).toBe(false);
    expect(approver.declined()).toBe(true);
    // Out of answers: end of input, which is a No, never a wait.
    expect(await decide(approver)).toBe(false);
    expect(m.stderr()).toBe(`${"Remove skill 'hello' from /skills/hello? [y/N] ".repeat(3)}`);
  });

  test("--approve never asks", async () => {
    const m = memoryIo({ answers: [] });
    expect(await decide(cliApprover(m.io, { approve: true }))).toBe(true);
    expect(m.stderr()).toBe("");
  });
});

describe("the sandbox CLI", () => {
  test("answers reach the prompt of a real command; none refuses it", async () => {
    await using box = await sandbox();
    await box.skill(join(box.root, "src"), "hello");
    const src = join(box.root, "src", "hello");
    const refused = await box.cli(["skill", "install", src]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("approval required");
    const declined = await box.cli(["skill", "install", src], { answers: ["n"] });
    expect(declined.code).toBe(1);
    expect(declined.stderr).toEndWith("? [y/N] Aborted.\n");
    const dest = join(box.agentDir, "skill", "hello");
    expect(existsSync(dest)).toBe(false);
    const ok = await box.cli(["skill", "install", src], { answers: ["y"] });
    expect(ok.code).toBe(0);
    expect(ok.stderr).toStartWith("Install skill 'hello' (trusted, global) from ");
    expect(existsSync(dest)).toBe(true);
    const removed = await box.cli(["skill", "remove", "hello"], { answers: ["yes"] });
    expect(removed.code).toBe(0);
    expect(removed.stderr).toBe(`Remove skill 'hello' from ${dest}? [y/N] `);
    expect(existsSync(dest)).toBe(false);
  });
});
