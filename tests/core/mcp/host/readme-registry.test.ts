// The README's "Connecting MCP servers" TypeScript example runs as written, against the real
// server-everything configured in the user's own (trusted) file.
import { expect, test } from "bun:test";
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { sandbox } from "../../../support/sandbox.ts";

const REPO = resolve(import.meta.dir, "../../../..");
const README = readFileSync(join(REPO, "README.md"), "utf8");
const EVERYTHING = join(REPO, "node_modules/@modelcontextprotocol/server-everything/dist/index.js");

test("the ToolRegistry example of the README", async () => {
  const block = [...README.matchAll(/```ts\n([\s\S]*?)```/g)]
    .map((m) => m[1]!)
    .find((b) => b.includes("createToolRegistry"));
  expect(block).toBeDefined();
  await using box = await sandbox();
  await box.write(
    join(box.agentDir, "mcp.json"),
    JSON.stringify({
      servers: [{ name: "everything", command: process.execPath, args: [EVERYTHING, "stdio"], approval: "always" }],
    }),
  );
  const dir = join(box.root, "app");
  mkdirSync(join(dir, "node_modules"), { recursive: true });
  symlinkSync(REPO, join(dir, "node_modules", "lemon-skills"));
  writeFileSync(
    join(dir, "registry.ts"),
    `${block!.replace('"/path/to/project"', JSON.stringify(box.project))}
console.log(JSON.stringify({ result, shadowed, bash: tools[0]?.name, state: status.servers.everything?.state }));\n`,
  );
  const r = Bun.spawnSync([process.execPath, join(dir, "registry.ts")], { cwd: dir, env: box.env });
  const out = JSON.parse(r.stdout.toString());
  expect(out).toMatchObject({
    result: { isError: false, content: [{ type: "text", text: "Echo: hello" }] },
    shadowed: [],
    bash: "bash",
    state: "connected",
  });
}, 30_000);
