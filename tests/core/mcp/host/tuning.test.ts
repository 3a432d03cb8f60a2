// `[mcp] cache_ttl_ms`, `refresh_interval_ms` and `max_result_chars` (mcp.md §6.3, §6.4) reach
// the host: read from A/config.toml, module options over the file, bad values reported and
// ignored. One real stdio server (the lively fixture), which logs each request it gets.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { createLemon } from "../../../../src/core/index.ts";
import { pickMcpConfig } from "../../../../src/core/mcp/app-config.ts";
import type { Diagnostic } from "../../../../src/core/diagnostics.ts";
import { mcpClient } from "../../../../src/core/mcp/index.ts";
import { unknownConfigKeys } from "../../../../src/core/schema/config-toml.ts";
import { sandbox, type Sandbox } from "../../../support/sandbox.ts";
import { until } from "./fake.ts";

const LIVELY = resolve(import.meta.dir, "../../../fixtures/mcp-servers/lively.ts");

let box: Sandbox;
let log: string;
const listings = () =>
  readFileSync(log, "utf8")
    .split("\n")
    .filter((l) => l === "tools/list").length;

beforeAll(async () => {
  box = await sandbox();
  log = join(box.root, "lively.log");
  await box.write(log, "");
  await box.write(
    join(box.agentDir, "mcp.json"),
    JSON.stringify({
      servers: [{ name: "lively", command: process.execPath, args: [LIVELY], env: { LIVELY_LOG: log } }],
    }),
  );
  await box.write(
    join(box.agentDir, "config.toml"),
    "[mcp]\ncache_ttl_ms = 0\nrefresh_interval_ms = 25\nmax_result_chars = 4\n",
  );
});

afterAll(async () => {
  await box[Symbol.asyncDispose]();
});

describe("[mcp] host numbers", () => {
  test("the keys are in the config.toml schema and checked for type and range", () => {
    expect(unknownConfigKeys({ mcp: { cache_ttl_ms: 1, refresh_interval_ms: 1, max_result_chars: 1 } })).toEqual([]);
    const diags: Diagnostic[] = [];
    expect(
      pickMcpConfig({ cache_ttl_ms: 0, refresh_interval_ms: 60_000, max_result_chars: 50 }, "config.toml", diags),
    ).toEqual({ cache_ttl_ms: 0, refresh_interval_ms: 60_000, max_result_chars: 50 });
    expect(diags).toEqual([]);
    expect(pickMcpConfig({ cache_ttl_ms: -1, refresh_interval_ms: 1.5, max_result_chars: 0 }, "f", diags)).toEqual({});
    expect(diags.map((d) => d.message)).toEqual([
      "mcp.cache_ttl_ms must be an integer >= 0",
      "mcp.refresh_interval_ms must be an integer >= 0",
      "mcp.max_result_chars must be an integer >= 1",
    ]);
  });

  test("from config.toml: results cut at max_result_chars, stale inventories refreshed on the interval", async () => {
    const client = await mcpClient({ cwd: box.project, env: box.env });
    try {
      expect((await client.status()).cache_ttl_ms).toBe(0);
      const ping = (await client.getTools()).find((t) => t.name.startsWith("mcp_lively_ping_"))!;
      expect(await client.callTool(ping.name, {})).toMatchObject({
        content: [
          { type: "text", text: "ping" },
          { type: "text", text: "[truncated: showing 4 of 7 characters]" },
        ],
      });
      // No further getTools: only the host's timer lists again.
      const seen = listings();
      await until(() => listings() >= seen + 2, 10_000);
    } finally {
      await client.close();
    }
  }, 30_000);

  test("module options win over the file; the CLI's 0 turns the periodic refresh off", async () => {
    const lemon = createLemon({
      cwd: box.project,
      env: box.env,
      curator: false,
      config: { mcp: { cache_ttl_ms: 123_456, max_result_chars: 100 } },
    });
    try {
      expect((await lemon.mcp.status()).cache_ttl_ms).toBe(123_456);
      const ping = (await lemon.mcp.getTools()).find((t) => t.name.startsWith("mcp_lively_ping_"))!;
      expect(await lemon.mcp.callTool(ping.name, {})).toMatchObject({ content: [{ type: "text", text: "ping ok" }] });
    } finally {
      await lemon.close();
    }
    const cli = await mcpClient({ cwd: box.project, env: box.env, refreshIntervalMs: 0 });
    try {
      await cli.getTools();
      const seen = listings();
      // A refresh every 25 ms would have listed several times by now.
      await new Promise((r) => setTimeout(r, 200));
      expect(listings()).toBe(seen);
    } finally {
      await cli.close();
    }
  }, 30_000);
});
