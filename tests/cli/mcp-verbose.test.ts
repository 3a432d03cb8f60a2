// `lemon mcp test NAME --verbose` (cli.md §3.5): the last 4 KiB of the server's stderr in human
// output only; never in --json, never without --verbose. The fixture writes 8 KiB of filler and
// then a marker line to stderr before it answers initialize.
import { describe, expect, test } from "bun:test";
import { join, resolve } from "node:path";
import { sandbox } from "../support/sandbox.ts";

const LIVELY = resolve(import.meta.dir, "../fixtures/mcp-servers/lively.ts");

describe("mcp test --verbose", () => {
  test("server stderr: its last 4 KiB in human output, nothing of it in JSON", async () => {
    await using box = await sandbox();
    await box.write(
      join(box.agentDir, "mcp.json"),
      JSON.stringify({ servers: [{ name: "lively", command: process.execPath, args: [LIVELY] }] }),
    );
    const verbose = await box.cli(["mcp", "test", "lively", "--global", "--verbose"]);
    expect(verbose.code).toBe(0);
    expect(verbose.stdout).toStartWith("lively: ok\n");
    const at = verbose.stdout.indexOf("  server stderr:\n");
    expect(at).toBeGreaterThan(0);
    const shown = verbose.stdout.slice(at + "  server stderr:\n".length);
    expect(shown).toContain("    LIVELY-STDERR-TAIL\n");
    // 4 KiB of the 8 KiB, each line indented by four spaces.
    const text = shown
      .split("\n")
      .map((l) => l.replace(/^ {4}/, ""))
      .join("\n");
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(4096 + 2);
    expect(Buffer.byteLength(text)).toBeGreaterThan(4000);

    const plain = await box.cli(["mcp", "test", "lively", "--global"]);
    expect(plain.code).toBe(0);
    expect(plain.stdout + plain.stderr).not.toContain("LIVELY");
    expect(plain.stdout).not.toContain("server stderr");

    const json = await box.cli(["mcp", "test", "lively", "--global", "--verbose", "--json"]);
    expect(json.code).toBe(0);
    expect(json.json()).toMatchObject({ ok: true, name: "lively", counts: { tools: 2 } });
    expect(json.stdout + json.stderr).not.toContain("LIVELY");
    expect(json.stdout + json.stderr).not.toContain("filler");
  }, 30_000);
});
