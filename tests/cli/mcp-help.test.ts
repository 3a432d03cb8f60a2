// Help text matches what is built (cli.md §1.2, §6): the top-level page lists every built
// top-level command with its group's own one-line summary, and `mcp test --help` offers the
// OAuth options (cli.md §3.5).
import { describe, expect, test } from "bun:test";
import { root } from "../../src/cli/commands/index.ts";
import { TOP_USAGE } from "../../src/cli/top-usage.ts";
import { sandbox } from "../support/sandbox.ts";

describe("top-level help", () => {
  test("names every built command with its group's summary, and no unbuilt one", async () => {
    const lines = TOP_USAGE.split("\n");
    for (const [name, row] of Object.entries(root.commands)) {
      const line = lines.find((l) => l.startsWith(`  ${name} `));
      if ("unavailable" in row) {
        expect(line).toBeUndefined();
        continue;
      }
      const node = await row.load();
      expect(line?.replace(/^ {2}\S+\s+/, "")).toBe(node.description);
    }
    const summary = (name: string) => lines.find((l) => l.startsWith(`  ${name} `)) ?? "";
    for (const word of ["install", "update", "remove"]) expect(summary("skill")).toContain(word);
    for (const word of ["test", "call", "trust"]) expect(summary("mcp")).toContain(word);
    expect(summary("tool")).toContain("read_skill");
  });

  test("lemon --help and lemon help print the same page", async () => {
    await using box = await sandbox();
    for (const argv of [["--help"], ["help"]]) {
      const r = await box.cli(argv);
      expect([r.code, r.stdout]).toEqual([0, TOP_USAGE]);
    }
  });
});

describe("mcp test --help", () => {
  test("offers the OAuth options --no-browser and --headless-auth", async () => {
    await using box = await sandbox();
    const help = await box.cli(["mcp", "test", "--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("--list-tools");
    expect(help.stdout).toContain("--no-browser");
    expect(help.stdout).toContain("--headless-auth");
  });
});
