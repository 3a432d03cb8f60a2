// fsx/regular-file.ts: the one bounded, FIFO-safe reader of files lemon did not write (issue 9
// §2.3), and the readers built on it never block on a FIFO planted by a cloned repository.
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readRegularFile } from "../../../src/core/fsx/regular-file.ts";
import { readCappedSync } from "../../../src/core/mcp/read.ts";
import { sandbox } from "../../support/sandbox.ts";

const fifo = (path: string) => expect(Bun.spawnSync(["mkfifo", path]).exitCode).toBe(0);

describe("readRegularFile", () => {
  test("reads a regular file within the bound, refuses a larger one, tells missing from unreadable", async () => {
    await using box = await sandbox();
    const file = join(box.root, "f.txt");
    writeFileSync(file, "hello");
    const ok = readRegularFile(file, 5);
    expect(ok.ok && new TextDecoder().decode(ok.bytes)).toBe("hello");
    expect(readRegularFile(file, 4)).toEqual({ ok: false, problem: "too_large", errno: null });
    expect(readRegularFile(join(box.root, "none"), 10)).toEqual({ ok: false, problem: "missing", errno: "ENOENT" });
    expect(readRegularFile(join(file, "below"), 10)).toEqual({ ok: false, problem: "missing", errno: "ENOTDIR" });
    mkdirSync(join(box.root, "d"));
    expect(readRegularFile(join(box.root, "d"), 10)).toEqual({ ok: false, problem: "not_regular", errno: null });
    const empty = join(box.root, "empty");
    writeFileSync(empty, "");
    const e = readRegularFile(empty, 10);
    expect(e.ok && e.bytes.length).toBe(0);
  });

  test("a FIFO is refused at once, never opened for a blocking read", async () => {
    if (process.platform === "win32") return;
    await using box = await sandbox();
    const path = join(box.root, "pipe");
    fifo(path);
    expect(readRegularFile(path, 10)).toEqual({ ok: false, problem: "not_regular", errno: null });
  });

  test("a FIFO as lemon's mcp.json is 'not a regular file' at once instead of hanging every mcp list", async () => {
    if (process.platform === "win32") return;
    await using box = await sandbox();
    mkdirSync(join(box.project, ".lemon"));
    const path = join(box.project, ".lemon", "mcp.json");
    fifo(path);
    // Skipped with a diagnostic naming the file since the MCP reader's FIFO fix (mcp.md §4.3), not absent.
    expect(readCappedSync(path)).toEqual({ kind: "error", reason: "not a regular file" });
    const r = await box.cli(["mcp", "list", "--json"]);
    expect(r.code).toBe(0);
    expect(r.json().servers).toEqual([]);
  });
});
