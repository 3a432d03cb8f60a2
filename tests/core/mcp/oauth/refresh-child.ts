// A child process of lock.test.ts: one session, one authorization() on the shared agent dir.
import { createContext } from "../../../../src/core/context.ts";
import { OAuthSession } from "../../../../src/core/mcp/oauth/session.ts";
import { parseOAuthSettings } from "../../../../src/core/mcp/oauth/settings.ts";

const [agentDir, mcpUrl] = process.argv.slice(2) as [string, string];
const ctx = createContext({ cwd: agentDir, agentDir, home: agentDir, homeDir: agentDir, env: {} });
const s = new OAuthSession(
  ctx,
  {
    server: "demo",
    serverUrl: mcpUrl,
    settings: parseOAuthSettings({ client_id: "cc-client", client_secret: "cc-secret-VALUE" }, {}),
    privileged: false,
    persist: true,
    tokenSecret: null,
  },
  { approve: async () => false, openUrl: async () => {}, headless: false, interactive: false },
);
process.stdout.write(`${(await s.authorization()) ?? "null"}\n`);
