// `lemon mcp call NAME TOOL` connects to that one server (cli.md §3.6b), never to the others of
// the project: a second configured server that would log its start must never run.
import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { sandbox } from "../support/sandbox.ts";

const LIVELY = resolve(import.meta.dir, "../fixtures/mcp-servers/lively.ts");

describe("mcp call", () => {
  test("starts only the named server", async () => {
    await using box = await sandbox();
    const log = (n: string) => join(box.root, `${n}.log`);
    const srv = (name: string) => ({
      name,
      command: process.execPath,
      args: [LIVELY],
      approval: "never",
      env: { LIVELY_LOG: log(name) },
    });
    await box.write(join(box.agentDir, "mcp.json"), JSON.stringify({ servers: [srv("one"), srv("other")] }));
    const r = await box.cli(["mcp", "call", "one", "ping", "--json"]);
    expect(r.code).toBe(0);
    expect(r.json()).toMatchObject({
      ok: true,
      name: "one",
      tool: "ping",
      content: [{ type: "text", text: "ping ok" }],
    });
    expect(existsSync(log("one"))).toBe(true);
    expect(existsSync(log("other"))).toBe(false);
    // The other server is still there for a call of its own.
    expect((await box.cli(["mcp", "call", "other", "ping"])).stdout).toBe("ping ok\n");
    expect(existsSync(log("other"))).toBe(true);
  }, 30_000);
});
