import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, rmSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { writeFileAtomic } from "../../../src/core/fsx/atomic.ts";
import { cleanupHeldSync, holdPath, installSignalCleanup, type SignalTarget } from "../../../src/core/fsx/cleanup.ts";
import { sandbox } from "../../support/sandbox.ts";

const SRC = resolve(import.meta.dir, "../../../src/core/fsx");

/** A child that takes a lock and holds a temp file, says "ready", then waits to be killed. */
const HOLDER = `
import { installSignalCleanup, holdPath } from ${JSON.stringify(`${SRC}/cleanup.ts`)};
import { acquireLock } from ${JSON.stringify(`${SRC}/lock.ts`)};
import { rmSync, writeFileSync } from "node:fs";
installSignalCleanup(process, (code) => process.exit(code));
const [file, temp] = process.argv.slice(2);
await acquireLock(file, { command: "holder" });
writeFileSync(temp, "partial");
holdPath(temp, () => rmSync(temp));
process.stdout.write("ready\\n");
setInterval(() => {}, 1000);
`;

/** The same holder, with the cleanup installed the way the CLI does it: by taking the process io. */
const CLI_HOLDER = HOLDER.replace(
  "installSignalCleanup(process, (code) => process.exit(code));",
  `(await import(${JSON.stringify(resolve(SRC, "../../cli/io.ts"))})).processIo();`,
);

async function readyLine(stream: ReadableStream<Uint8Array>): Promise<string> {
  const reader = stream.getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) break;
    text += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  return text.trim();
}

describe("signals release held locks and temp files (skills.md §1.3 rule 2)", () => {
  for (const [signal, code] of [
    ["SIGTERM", 143],
    ["SIGINT", 130],
    ["SIGHUP", 129],
  ] as const) {
    test(`a child killed with ${signal} removes its lock and temp file and exits ${code}`, async () => {
      await using box = await sandbox();
      const script = await box.write("holder.ts", HOLDER);
      const file = join(box.root, "state", "skills.json");
      const temp = join(box.root, "state", ".skills.json.tmp-held");
      const child = Bun.spawn([process.execPath, script, file, temp], {
        stdout: "pipe",
        stderr: "inherit",
        cwd: box.root,
      });
      expect(await readyLine(child.stdout)).toBe("ready");
      expect(existsSync(`${file}.lock/owner.json`)).toBe(true);
      expect(existsSync(temp)).toBe(true);
      child.kill(signal);
      expect(await child.exited).toBe(code);
      expect(existsSync(`${file}.lock`)).toBe(false);
      expect(existsSync(temp)).toBe(false);
    }, 15000);
  }
});

test("the CLI's process io installs the cleanup: SIGTERM releases a held lock, exit 143", async () => {
  await using box = await sandbox();
  expect(CLI_HOLDER).toContain("processIo()");
  const script = await box.write("cli-holder.ts", CLI_HOLDER);
  const file = join(box.root, "skills.json");
  const temp = join(box.root, ".skills.json.tmp-held");
  const child = Bun.spawn([process.execPath, script, file, temp], { stdout: "pipe", stderr: "inherit", cwd: box.root });
  expect(await readyLine(child.stdout)).toBe("ready");
  child.kill("SIGTERM");
  expect(await child.exited).toBe(143);
  expect(existsSync(`${file}.lock`)).toBe(false);
  expect(existsSync(temp)).toBe(false);
}, 15000);

describe("cleanup registry", () => {
  test("handlers are attached only while something is held", async () => {
    await using box = await sandbox();
    const attached = new Map<string, () => void>();
    const proc: SignalTarget = {
      on: (s, l) => attached.set(s, l),
      off: (s) => attached.delete(s),
    };
    const exits: number[] = [];
    const uninstall = installSignalCleanup(proc, (c) => exits.push(c));
    try {
      expect(attached.size).toBe(0);
      const held = await box.write("held.tmp", "x");
      holdPath(held, () => rmSync(held));
      expect([...attached.keys()].sort()).toEqual(["SIGHUP", "SIGINT", "SIGTERM"]);
      attached.get("SIGINT")?.();
      expect(exits).toEqual([130]);
      expect(existsSync(held)).toBe(false);
      expect(attached.size).toBe(0);
    } finally {
      uninstall();
      cleanupHeldSync();
    }
  });

  test("an atomic write leaves nothing held", async () => {
    await using box = await sandbox();
    const attached = new Map<string, () => void>();
    const proc: SignalTarget = { on: (s, l) => attached.set(s, l), off: (s) => attached.delete(s) };
    const uninstall = installSignalCleanup(proc, () => {});
    try {
      await writeFileAtomic(join(box.root, "a.json"), "{}", { confineTo: null });
      expect(attached.size).toBe(0);
    } finally {
      uninstall();
    }
  });
});

describe("temp files of dead writers", () => {
  test("a write removes .<base>.tmp-<pid>-* of a pid not running, keeps a live pid's and other files'", async () => {
    await using box = await sandbox();
    const dir = join(box.root, "d");
    const dead = join(dir, `.mcp.json.tmp-${2 ** 22 + 777}-abcdef`);
    const live = join(dir, `.mcp.json.tmp-${process.ppid}-abcdef`);
    const other = join(dir, `.skills.json.tmp-${2 ** 22 + 777}-abcdef`);
    await box.write(dead, "x");
    await writeFile(live, "x");
    await writeFile(other, "x");
    await writeFileAtomic(join(dir, "mcp.json"), "{}", { confineTo: null });
    const kept = [`.mcp.json.tmp-${process.ppid}-abcdef`, `.skills.json.tmp-${2 ** 22 + 777}-abcdef`, "mcp.json"];
    expect(readdirSync(dir).sort()).toEqual(kept.sort());
  });
});
