// The module path against the SDK's OAuth demo (PRM, DCR, PKCE): createLemon({approve, openUrl})
// getTools on a server whose entry has no `oauth` at all (its 401 names resource metadata), a
// tool call with the token, status `valid`; the events and logs carry no token.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createLemon } from "../../../../src/core/index.ts";
import { type SdkDemo, startSdkDemo } from "../../../support/oauth-peers.ts";
import { sandbox } from "../../../support/sandbox.ts";

let demo: SdkDemo;
beforeAll(async () => {
  demo = await startSdkDemo();
});
afterAll(async () => {
  await demo?.stop();
});

describe("module OAuth against the SDK demo", () => {
  test("getTools runs discovery, DCR and PKCE after approve; openUrl gets the URL", async () => {
    await using box = await sandbox();
    await box.write(
      join(box.agentDir, "mcp.json"),
      JSON.stringify({ servers: [{ name: "demo", type: "http", url: demo.mcpUrl }] }),
    );
    const seen: string[] = [];
    const approvals: string[] = [];
    const lemon = createLemon({
      cwd: box.project,
      env: box.env,
      curator: false,
      log: (e) => seen.push(JSON.stringify(e)),
      approve: async (r) => {
        approvals.push(r.kind);
        return r.kind === "mcp_oauth";
      },
      openUrl: async (url) => {
        await (await fetch(url)).text();
      },
    });
    for (const type of ["mcp.server_state", "mcp.tool_call", "mcp.oauth_url", "diagnostic"] as const)
      lemon.events.on(type, (e) => seen.push(JSON.stringify(e)));
    try {
      const tools = await lemon.mcp.getTools();
      const greet = tools.find((t) => t.name.startsWith("mcp_demo_greet_"));
      expect(greet).toBeDefined();
      expect(approvals).toEqual(["mcp_oauth"]);
      const r = await lemon.mcp.callTool(greet?.name ?? "", { name: "lemon" });
      expect(r.isError).toBe(false);
      const status = await lemon.mcp.status();
      expect(status.servers.demo?.auth.type).toBe("oauth");
      expect(status.servers.demo?.auth.state).toBe("valid");
      expect(status.servers.demo?.state).toBe("connected");
      seen.push(JSON.stringify(status), JSON.stringify(r));
    } finally {
      await lemon.close();
    }
    const dir = join(box.agentDir, "secrets", "mcp-oauth");
    const tokens = readdirSync(dir)
      .filter((f) => f.endsWith(".json"))
      .map((f) => (JSON.parse(readFileSync(join(dir, f), "utf8")) as { access_token: string }).access_token);
    expect(tokens.length).toBe(1);
    for (const t of tokens) expect(seen.join("\n")).not.toContain(t);
  }, 30_000);
});
