// `mcp test --list-tools` (cli.md §3.5): `tools` holds exactly the remote tools that
// `counts.tools` counts (as `status` counts them, mcp.md §13), and the published utilities of
// mcp.md §6.2 come apart as `utilities`, so a script comparing the two never sees 14 vs 18.
import { describe, expect, test } from "bun:test";
import { join, resolve } from "node:path";
import { sandbox } from "../support/sandbox.ts";

const EVERYTHING = resolve(import.meta.dir, "../../node_modules/@modelcontextprotocol/server-everything/dist/index.js");

describe("mcp test --list-tools", () => {
  test("lists the counted tools, and the utilities apart", async () => {
    await using box = await sandbox();
    await box.write(
      join(box.agentDir, "mcp.json"),
      JSON.stringify({ servers: [{ name: "everything", command: process.execPath, args: [EVERYTHING, "stdio"] }] }),
    );
    const r = await box.cli(["mcp", "test", "everything", "--global", "--list-tools", "--json"]);
    expect(r.code).toBe(0);
    const doc = r.json() as { counts: { tools: number }; tools: string[]; utilities: string[] };
    expect(doc.tools.length).toBe(doc.counts.tools);
    expect(doc.tools.some((n) => /^mcp_everything_echo_[0-9a-f]{16}$/.test(n))).toBe(true);
    expect(doc.tools.some((n) => n.includes("_resource_read_"))).toBe(false);
    expect(doc.utilities.map((n) => n.replace(/_[0-9a-f]{16}$/, ""))).toEqual([
      "mcp_everything_resources_list",
      "mcp_everything_resource_read",
      "mcp_everything_prompts_list",
      "mcp_everything_prompt_get",
    ]);
    // The published names are what `mcp tools` shows: the two lists together, nothing else.
    const published = await box.cli(["mcp", "tools", "everything", "--json"]);
    const names = (published.json() as { tools: { name: string }[] }).tools.map((t) => t.name);
    expect([...doc.tools, ...doc.utilities].sort()).toEqual(names.sort());

    const human = await box.cli(["mcp", "test", "everything", "--global", "--list-tools"]);
    const lines = human.stdout.split("\n");
    expect(lines.filter((l) => /^ {2}tool {2}/.test(l)).length).toBe(doc.counts.tools);
    expect(lines.filter((l) => /^ {2}utility {2}/.test(l)).length).toBe(4);
    expect(human.stdout).toContain(`  counts     tools ${doc.counts.tools}, resources 7, prompts 4\n`);
  }, 30_000);
});
