// Which servers a one-shot MCP command starts (cli.md §3.6b, §3.7): `call NAME` and `tools NAME`
// run that server only, while `tools` without NAME and `status` connect every enabled, trusted
// one. `tools NAME` says why a server has no tools (unknown, untrusted) instead of an empty list.
import { describe, expect, test } from "bun:test";
import { existsSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { sandbox, type Sandbox } from "../support/sandbox.ts";

const LIVELY = resolve(import.meta.dir, "../fixtures/mcp-servers/lively.ts");

/** A global server `good` (answers `ping`) and a global `other` that only leaves a marker when run. */
async function twoServers(box: Sandbox): Promise<string> {
  const marker = join(box.root, "other-ran");
  await box.write(
    join(box.agentDir, "mcp.json"),
    JSON.stringify({
      servers: [
        { name: "good", command: process.execPath, args: [LIVELY], approval: "never" },
        {
          name: "other",
          command: process.execPath,
          args: ["-e", `require("node:fs").writeFileSync(${JSON.stringify(marker)}, "x")`],
          approval: "never",
        },
      ],
    }),
  );
  return marker;
}

describe("one server per named command", () => {
  test("call NAME and tools NAME start only NAME; tools and status start all", async () => {
    await using box = await sandbox();
    const marker = await twoServers(box);

    const call = await box.cli(["mcp", "call", "good", "ping"]);
    expect([call.code, call.stdout]).toEqual([0, "ping ok\n"]);
    expect(existsSync(marker)).toBe(false);

    const one = await box.cli(["mcp", "tools", "good", "--json"]);
    expect(one.code).toBe(0);
    const tools = (one.json() as { tools: { label: string; server: string }[] }).tools;
    expect(tools.map((t) => [t.label, t.server])).toEqual([
      ["MCP ping", "good"],
      ["MCP grow", "good"],
    ]);
    expect(existsSync(marker)).toBe(false);

    const all = await box.cli(["mcp", "tools", "--json"]);
    expect(all.code).toBe(0);
    expect(existsSync(marker)).toBe(true);
    rmSync(marker);

    const st = await box.cli(["mcp", "status", "--json"]);
    expect(st.code).toBe(0);
    expect(existsSync(marker)).toBe(true);
  }, 30_000);

  test("tools NAME: an unknown name is NOT_FOUND, an untrusted one is refused with the trust hint", async () => {
    await using box = await sandbox();
    const marker = await twoServers(box);
    const nf = await box.cli(["mcp", "tools", "nosuch"]);
    expect(nf).toMatchObject({ code: 1, stdout: "", stderr: "error [NOT_FOUND]: MCP server 'nosuch' not found\n" });
    const nfJson = await box.cli(["mcp", "tools", "nosuch", "--json"]);
    expect(nfJson.code).toBe(1);
    expect(nfJson.json()).toEqual({
      ok: false,
      error: { code: "NOT_FOUND", message: "MCP server 'nosuch' not found" },
    });

    const evil = join(box.root, "evil-ran");
    await box.write(
      join(box.project, ".mcp.json"),
      JSON.stringify({ mcpServers: { evil: { command: "touch", args: [evil] } } }),
    );
    const untrusted = await box.cli(["mcp", "tools", "evil"]);
    expect(untrusted.code).toBe(1);
    expect(untrusted.stdout).toBe("");
    expect(untrusted.stderr).toBe(
      "error [FORBIDDEN]: project MCP server 'evil' is not trusted; review it with 'lemon mcp list --all' and run 'lemon mcp trust evil'\n",
    );
    expect(existsSync(evil)).toBe(false);
    expect(existsSync(marker)).toBe(false);
    // Without NAME the untrusted server is skipped, as before.
    expect((await box.cli(["mcp", "tools", "--json"])).code).toBe(0);
    expect(existsSync(evil)).toBe(false);
  }, 30_000);
});

describe("unnamed entries", () => {
  test("mcp test takes the display name that mcp list and mcp trust show (slug#n)", async () => {
    await using box = await sandbox();
    await box.write(
      join(box.agentDir, "mcp.json"),
      JSON.stringify({ servers: [{ command: process.execPath, args: [LIVELY], approval: "never" }] }),
    );
    // §7.1: an unnamed stdio entry is shown as the slug of its command's basename, numbered.
    const display = `${(process.execPath.split("/").pop() ?? "").replace(/\.exe$/, "")}#1`;
    const r = await box.cli(["mcp", "test", display, "--global", "--json"]);
    expect(r.stderr).toBe("");
    expect([r.code, (JSON.parse(r.stdout) as { ok: boolean }).ok]).toEqual([0, true]);
  });
});
