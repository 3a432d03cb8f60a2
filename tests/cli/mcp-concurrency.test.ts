import { expect, test } from "bun:test";
import { readFile, readdir } from "node:fs/promises";
import { join } from "node:path";
import { sandbox } from "../support/sandbox.ts";

const REPO = join(import.meta.dir, "..", "..");
const BUN = join(REPO, "node_modules", ".bin", "bun");
const MAIN = join(REPO, "src", "cli", "main.ts");

test("20 concurrent `lemon mcp add` processes on one file: all entries present, file valid", async () => {
  await using box = await sandbox();
  const env = { ...box.env, LEMON_MCP_EXTERNAL_DISCOVERY: "0" } as Record<string, string>;
  const procs = Array.from({ length: 20 }, (_, i) =>
    Bun.spawn(
      [BUN, MAIN, "mcp", "add", `srv-${i}`, "--stdio", "node", "--env", `K=${i}`, "--json", "--", `server-${i}.js`],
      {
        cwd: box.project,
        env,
        stdout: "pipe",
        stderr: "pipe",
      },
    ),
  );
  const results = await Promise.all(
    procs.map(async (p) => ({
      code: await p.exited,
      out: await new Response(p.stdout).text(),
      err: await new Response(p.stderr).text(),
    })),
  );
  for (const r of results) expect({ code: r.code, err: r.err }).toEqual({ code: 0, err: "" });
  const file = join(box.project, ".lemon", "mcp.json");
  const doc = JSON.parse(await readFile(file, "utf8")) as { servers: { name: string; args: string[] }[] };
  expect(doc.servers.map((s) => s.name).sort()).toEqual(Array.from({ length: 20 }, (_, i) => `srv-${i}`).sort());
  for (const s of doc.servers) expect(s.args).toEqual([`${s.name.replace("srv-", "server-")}.js`]);
  // No lock directory or temp file left behind.
  expect((await readdir(join(box.project, ".lemon"))).sort()).toEqual(["mcp.json"]);
}, 60000);
