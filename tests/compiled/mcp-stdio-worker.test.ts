// The stdio MCP worker inside the compiled binary (mcp.md §5.1, DESIGN.md §5): `lemon mcp call`
// spawns server-everything through the embedded worker, so an echoed answer proves the worker
// entry was bundled, started and framed the server's output. The server runs on the binary
// itself (BUN_BE_BUN=1 makes it the bun CLI): inside the binary process.execPath is lemon.
import { beforeAll, describe, expect, test } from "bun:test";
import { join, resolve } from "node:path";
import { hostTarget } from "../../scripts/targets.ts";
import { sandbox } from "../support/sandbox.ts";
import { compiledBinary } from "./binary.ts";

const host = hostTarget();
const EVERYTHING = resolve(import.meta.dir, "../../node_modules/@modelcontextprotocol/server-everything/dist/index.js");
let binary = "";

beforeAll(async () => {
  binary = await compiledBinary();
}, 240_000);

describe(`mcp stdio worker in the compiled binary (${host.name})`, () => {
  test("mcp call reaches server-everything through the worker; test reports the handshake", async () => {
    await using box = await sandbox();
    const servers = [
      { name: "everything", command: binary, args: [EVERYTHING, "stdio"], env: { BUN_BE_BUN: "1" }, approval: "never" },
    ];
    await box.write(join(box.agentDir, "mcp.json"), JSON.stringify({ servers }));
    const run = (argv: string[]) =>
      Bun.spawnSync([binary, ...argv], {
        cwd: box.project,
        env: box.env,
        stdin: "ignore",
        stdout: "pipe",
        stderr: "pipe",
      });

    const call = run(["mcp", "call", "everything", "echo", '{"message":"from the binary"}']);
    expect(call.stderr.toString()).toBe("");
    expect(call.exitCode).toBe(0);
    expect(call.stdout.toString()).toBe("Echo: from the binary\n");

    const t = run(["mcp", "test", "everything", "--global", "--json"]);
    expect(t.exitCode).toBe(0);
    expect(JSON.parse(t.stdout.toString())).toMatchObject({
      ok: true,
      server_info: { name: "mcp-servers/everything", version: "2.0.0" },
    });
  }, 60_000);
});
