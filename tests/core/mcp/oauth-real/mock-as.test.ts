// OAuth through the module (cli.md §7, mcp.md §11) against oauth2-mock-server (a real OIDC
// authorization server: OIDC discovery only, no DCR) behind a lemon-owned resource server that
// verifies the mock's JWTs: client credentials with client_secret_basic and client_secret_post,
// PKCE with a pre-registered public client through createLemon({approve, openUrl}), the
// `mcp.oauth_url` event without openUrl, refresh of a token close to expiry, needs_auth without an
// approver, and status without a token. Tokens never appear in results, status, events or logs.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createLemon, type Lemon, type LemonOptions } from "../../../../src/core/index.ts";
import {
  type MockAs,
  type ResourceServer,
  startMockAs,
  startResourceServer,
  startSseResourceServer,
} from "../../../support/oauth-peers.ts";
import { type Sandbox, sandbox } from "../../../support/sandbox.ts";

let as: MockAs;
let rs: ResourceServer;
beforeAll(async () => {
  as = await startMockAs();
  rs = startResourceServer(as, { scopes: ["mcp"] });
});
afterAll(async () => {
  rs?.stop();
  await as?.stop();
});

/** What an embedder's browser would do: follow the authorize redirects to lemon's loopback listener. */
const browse = async (url: string) => {
  await (await fetch(url)).text();
};

const logs: string[] = [];
function lemonFor(box: Sandbox, extra: Partial<LemonOptions> = {}): Lemon {
  return createLemon({
    cwd: box.project,
    env: box.env,
    curator: false,
    log: (e) => logs.push(JSON.stringify(e)),
    ...extra,
  });
}

async function entry(box: Sandbox, oauth: Record<string, unknown>) {
  await box.write(
    join(box.agentDir, "mcp.json"),
    JSON.stringify({ servers: [{ name: "rs", type: "http", url: rs.url, oauth }] }),
  );
}

const secretsOf = (box: Sandbox): string[] => {
  const dir = join(box.agentDir, "secrets", "mcp-oauth");
  return readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .flatMap((f) => {
      const doc = JSON.parse(readFileSync(join(dir, f), "utf8")) as Record<string, unknown>;
      return [doc.access_token, doc.refresh_token].filter((v): v is string => typeof v === "string");
    });
};

async function echo(lemon: Lemon): Promise<string> {
  const tools = await lemon.mcp.getTools();
  const tool = tools.find((t) => t.name.startsWith("mcp_rs_echo_"));
  if (tool === undefined) return "no tool";
  const r = await lemon.mcp.callTool(tool.name, { text: "hi" });
  return r.content.map((c) => (c.type === "text" ? c.text : "")).join("");
}

describe("OAuth against oauth2-mock-server", () => {
  for (const method of ["client_secret_basic", "client_secret_post"] as const)
    test(`client credentials with ${method}`, async () => {
      await using box = await sandbox();
      await entry(box, { client_id: "svc", client_secret: "${SVC_SECRET}", token_auth_method: method });
      box.env.SVC_SECRET = "svc-secret-value";
      const from = as.tokenRequests.length;
      const lemon = lemonFor(box);
      try {
        expect(await echo(lemon)).toBe("echo: hi");
        const reqs = as.tokenRequests.slice(from);
        expect(reqs.length).toBe(1);
        expect(reqs[0]).toMatchObject({
          grant_type: "client_credentials",
          basic: method === "client_secret_basic",
          post_secret: method === "client_secret_post",
          resource: rs.url,
        });
        const status = await lemon.mcp.status();
        const auth = status.servers.rs?.auth;
        expect(auth?.type).toBe("oauth");
        expect(auth?.state).toBe("valid");
        const text = JSON.stringify(status) + logs.join("\n");
        for (const tok of [...secretsOf(box), "svc-secret-value"]) expect(text).not.toContain(tok);
      } finally {
        await lemon.close();
      }
    }, 30_000);

  test("client credentials: a token the server stops accepting is re-acquired once on a later 401", async () => {
    await using box = await sandbox();
    await entry(box, { client_id: "svc", client_secret: "svc-secret" });
    const lemon = lemonFor(box);
    try {
      expect(await echo(lemon)).toBe("echo: hi");
      const from = as.tokenRequests.length;
      await Bun.sleep(1100); // the mock's JWTs are deterministic per second: the next one differs
      rs.revoke();
      expect(await echo(lemon)).toBe("echo: hi");
      expect(as.tokenRequests.slice(from).map((r) => r.grant_type)).toEqual(["client_credentials"]);
    } finally {
      await lemon.close();
    }
  }, 30_000);

  test("PKCE with a pre-registered client: approve + openUrl, then refresh near expiry", async () => {
    await using box = await sandbox();
    await entry(box, { client_id: "lemon-public", flow: "pkce", scopes: ["mcp"] });
    const asked: unknown[] = [];
    const opened: string[] = [];
    const events: string[] = [];
    const from = as.tokenRequests.length;
    as.expiresIn = 30; // within the 60 s refresh margin: the next use refreshes
    try {
      const lemon = lemonFor(box, {
        approve: async (r) => {
          asked.push(r);
          return true;
        },
        openUrl: async (url) => {
          opened.push(url);
          await browse(url);
        },
      });
      lemon.events.on("mcp.oauth_url", (e) => events.push(e.url));
      try {
        expect(await echo(lemon)).toBe("echo: hi");
      } finally {
        await lemon.close();
      }
      expect(asked).toEqual([
        { kind: "mcp_oauth", server: "rs", authorizationServer: as.issuer, scopes: ["mcp"], redirect: "loopback" },
      ]);
      expect(opened.length).toBe(1);
      expect(events).toEqual([]);
      const url = new URL(opened[0] ?? "");
      expect(url.searchParams.get("code_challenge_method")).toBe("S256");
      expect(url.searchParams.get("resource")).toBe(rs.url);
      expect(url.searchParams.get("client_id")).toBe("lemon-public");

      // A second instance (no approver) resumes the stored token and refreshes it: no new flow.
      await Bun.sleep(1100); // the mock's JWTs are deterministic per second
      const again = lemonFor(box);
      try {
        expect(await echo(again)).toBe("echo: hi");
      } finally {
        await again.close();
      }
      const grants = as.tokenRequests.slice(from).map((r) => r.grant_type);
      expect(grants[0]).toBe("authorization_code");
      expect(grants).toContain("refresh_token");
      expect(grants.filter((g) => g === "authorization_code").length).toBe(1);
    } finally {
      as.expiresIn = 3600;
    }
    for (const tok of [...secretsOf(box), ...as.refreshTokens.slice(-2)]) expect(logs.join("\n")).not.toContain(tok);
  }, 30_000);

  test("PKCE: a stored, unexpired token the server refuses (401) is refreshed, no new flow (issue #14 P-A)", async () => {
    await using box = await sandbox();
    await entry(box, { client_id: "lemon-public", flow: "pkce", scopes: ["mcp"] });
    const first = lemonFor(box, { approve: async () => true, openUrl: browse });
    try {
      expect(await echo(first)).toBe("echo: hi");
    } finally {
      await first.close();
    }
    await Bun.sleep(1100); // the mock's JWTs are deterministic per second: the refreshed one differs
    rs.revoke();
    const from = as.tokenRequests.length;
    // No approver: only the refresh grant can renew it.
    const again = lemonFor(box);
    try {
      expect(await echo(again)).toBe("echo: hi");
      expect((await again.mcp.status()).servers.rs?.auth?.state).toBe("valid");
    } finally {
      await again.close();
    }
    expect(as.tokenRequests.slice(from).map((r) => r.grant_type)).toEqual(["refresh_token"]);
  }, 30_000);

  test("legacy SSE: client credentials on the event stream and the message posts", async () => {
    await using box = await sandbox();
    const sse = await startSseResourceServer(as);
    try {
      await box.write(
        join(box.agentDir, "mcp.json"),
        JSON.stringify({
          servers: [{ name: "rs", type: "sse", url: sse.url, oauth: { client_id: "svc", client_secret: "s" } }],
        }),
      );
      const lemon = lemonFor(box);
      try {
        expect(await echo(lemon)).toBe("echo: hi");
        expect(sse.refused).toBe(1);
        expect(sse.accepted.length).toBeGreaterThan(1);
      } finally {
        await lemon.close();
      }
    } finally {
      sse.stop();
    }
  }, 30_000);

  test("without openUrl the approved URL is the mcp.oauth_url event", async () => {
    await using box = await sandbox();
    await entry(box, { client_id: "lemon-public", flow: "pkce" });
    const seen: { server: string; url: string }[] = [];
    const lemon = lemonFor(box, { approve: async () => true });
    lemon.events.on("mcp.oauth_url", (e) => {
      seen.push({ server: e.server, url: e.url });
      void browse(e.url);
    });
    try {
      expect(await echo(lemon)).toBe("echo: hi");
      expect(seen.length).toBe(1);
      expect(seen[0]?.server).toBe("rs");
      expect(seen[0]?.url.startsWith(`${as.issuer}/authorize?`)).toBe(true);
    } finally {
      await lemon.close();
    }
  }, 30_000);

  test("without an approver a PKCE server is needs_auth; nothing is opened or emitted", async () => {
    await using box = await sandbox();
    await entry(box, { client_id: "lemon-public", flow: "pkce" });
    const seen: string[] = [];
    const lemon = lemonFor(box);
    lemon.events.on("mcp.oauth_url", (e) => seen.push(e.url));
    try {
      expect((await lemon.mcp.getTools()).filter((t) => t.name.startsWith("mcp_rs_"))).toEqual([]);
      const s = (await lemon.mcp.status()).servers.rs;
      expect(s?.state).toBe("needs_auth");
      expect(s?.last_error).toBe("authorization required");
      expect(s?.auth).toEqual({ type: "oauth", state: "needs_auth", expires_at: null });
      expect(seen).toEqual([]);
    } finally {
      await lemon.close();
    }
  }, 30_000);
});
