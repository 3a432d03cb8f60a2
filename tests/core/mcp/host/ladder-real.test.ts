// The reconnect ladder, the breaker and call timeouts against real misbehaving stdio servers
// (tests/fixtures/mcp-servers/misbehave.ts) through the real worker transport. Delays are
// injected (1 ms steps) so nothing waits 7.5 s.
import { describe, expect, test } from "bun:test";
import { join, resolve } from "node:path";
import { createContext } from "../../../../src/core/context.ts";
import { createMcpClient } from "../../../../src/core/mcp/client/api.ts";
import { sandbox } from "../../../support/sandbox.ts";
import { until } from "./fake.ts";

const MISBEHAVE = resolve(import.meta.dir, "../../../fixtures/mcp-servers/misbehave.ts");
const srv = (name: string, mode: string[], extra: Record<string, unknown> = {}) => ({
  name,
  command: process.execPath,
  args: [MISBEHAVE, ...mode],
  ...extra,
});

describe("real crashing servers", () => {
  test("crash after each call: reconnects and re-lists, then the breaker; crash on start is an error", async () => {
    await using box = await sandbox();
    await box.write(
      join(box.agentDir, "mcp.json"),
      JSON.stringify({
        servers: [
          srv("flaky", ["crash-after", "1"]),
          srv("dead", ["crash-on-start"]),
          srv("calm", ["crash-after", "100"]),
        ],
      }),
    );
    const states: string[] = [];
    const client = createMcpClient({
      ctx: createContext({ cwd: box.project, env: box.env }),
      config: {},
      trusted: async () => true,
      delays: [1, 1, 1, 1],
      events: { serverState: (e) => states.push(`${e.server}:${e.state}`) },
    });
    try {
      const tools = await client.getTools();
      const ping = tools.find((t) => t.name.startsWith("mcp_flaky_ping_"))!;
      expect(ping).toBeDefined();
      let st = await client.status();
      expect(st.servers.dead).toMatchObject({ state: "error", connected: false });
      expect(st.servers.dead!.last_error).toMatch(/^(connection closed|initialize failed|connection failed)$/);

      // crash-after 1 answers one call and exits on the next: that call fails (never replayed),
      // the ladder brings the server back; the sixth crash within 30 s trips the breaker for this
      // server only.
      const flaky = () => states.filter((x) => x.startsWith("flaky:")).at(-1);
      for (let i = 0; i < 6 && flaky() !== "flaky:unavailable"; i++) {
        await until(() => flaky() === "flaky:connected" || flaky() === "flaky:unavailable", 15_000);
        if (flaky() === "flaky:unavailable") break;
        expect(await client.callTool(ping.name, {})).toMatchObject({ content: [{ type: "text", text: "pong 1" }] });
        const err = await client.callTool(ping.name, {}).catch((e: unknown) => e);
        expect(err).toMatchObject({ code: "OPERATION_FAILED", message: "MCP server disconnected during the call" });
        await until(() => flaky() !== "flaky:connected", 15_000);
      }
      await until(() => flaky() === "flaky:unavailable", 15_000);
      st = await client.status();
      expect(st.servers.flaky).toMatchObject({
        state: "unavailable",
        last_error: "server unavailable: too many crashes",
      });
      expect(st.servers.calm!.state).toBe("connected");
      await expect(client.callTool(ping.name, {})).rejects.toMatchObject({ code: "UNAVAILABLE" });
    } finally {
      await client.close();
    }
  }, 60_000);
});
