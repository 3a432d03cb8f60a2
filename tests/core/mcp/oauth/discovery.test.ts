// Discovery (mcp.md §11.3) against the fixture AS: PRM from the challenge, path-aware, root;
// AS metadata RFC 8414 and both OIDC fallbacks, issuer paths; resource and issuer mismatches;
// the 2025-03-26 origin fallback; no configured headers ever reach a metadata endpoint.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { canonicalServerUrl, discover, metadataUrls } from "../../../../src/core/mcp/oauth/discovery.ts";
import type { OAuthNet } from "../../../../src/core/mcp/oauth/net.ts";
import { OAuthSession } from "../../../../src/core/mcp/oauth/session.ts";
import { parseOAuthSettings } from "../../../../src/core/mcp/oauth/settings.ts";
import { urlPolicy } from "../../../../src/core/mcp/oauth/url-safety.ts";
import { bearerChallenge } from "../../../../src/core/mcp/oauth/www-authenticate.ts";
import { type OAuthFixture, startOAuthFixture } from "../../../support/oauth-as.ts";
import { env } from "./helpers.ts";

let as: OAuthFixture;
beforeAll(async () => {
  as = await startOAuthFixture();
});
afterAll(() => as.stop());
beforeEach(() => as.reset());

async function net(): Promise<OAuthNet> {
  return {
    policy: await urlPolicy(new URL(as.mcpUrl), false, async () => []),
    fetch,
    timeoutMs: 5000,
  };
}
async function challenge() {
  const r = await fetch(as.mcpUrl, { method: "POST" });
  return bearerChallenge(r.headers.get("www-authenticate"));
}
const paths = () => as.seen.map((r) => r.path).filter((p) => p.startsWith("/.well-known"));

describe("canonical server URL", () => {
  test("lowercase, no fragment, no trailing slash except the root", () => {
    expect(canonicalServerUrl("HTTPS://Example.COM:443/MCP/#frag")).toBe("https://example.com/MCP");
    expect(canonicalServerUrl("https://example.com")).toBe("https://example.com/");
    expect(canonicalServerUrl("http://u:p@127.0.0.1:8080/mcp?x=1")).toBe("http://127.0.0.1:8080/mcp?x=1");
  });
  test("metadata URLs per issuer shape", () => {
    expect(metadataUrls("https://a.example/")).toEqual([
      "https://a.example/.well-known/oauth-authorization-server",
      "https://a.example/.well-known/openid-configuration",
    ]);
    expect(metadataUrls("https://a.example/t1/")).toEqual([
      "https://a.example/.well-known/oauth-authorization-server/t1",
      "https://a.example/.well-known/openid-configuration/t1",
      "https://a.example/t1/.well-known/openid-configuration",
    ]);
  });
});

describe("discover", () => {
  test("challenge resource_metadata, RFC 8414", async () => {
    const d = await discover(await net(), as.mcpUrl, await challenge());
    expect(d.issuer).toBe(as.issuer);
    expect(d.as.token_endpoint).toBe(`${as.issuer}/token`);
    expect(d.scopesSupported).toEqual(["mcp:tools"]);
    expect(d.legacy).toBe(false);
    expect(paths()).toEqual(["/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-authorization-server"]);
  });
  test("no challenge metadata: path-aware then root", async () => {
    as.opts.prm = "root";
    as.opts.challengeMetadata = false;
    const d = await discover(await net(), as.mcpUrl, await challenge());
    expect(d.issuer).toBe(as.issuer);
    expect(paths()).toEqual([
      "/.well-known/oauth-protected-resource/mcp",
      "/.well-known/oauth-protected-resource",
      "/.well-known/oauth-authorization-server",
    ]);
  });
  for (const at of ["oidc", "oidc-suffix"] as const) {
    test(`issuer with a path, metadata at ${at}`, async () => {
      as.opts.issuerPath = "/tenant1";
      as.opts.metadataAt = at;
      const d = await discover(await net(), as.mcpUrl, await challenge());
      expect(d.issuer).toBe(`${as.origin}/tenant1`);
      expect(d.as.authorization_endpoint).toBe(`${as.origin}/tenant1/authorize`);
    });
  }
  test("OIDC without path (oauth2-mock-server's shape)", async () => {
    as.opts.metadataAt = "oidc";
    expect((await discover(await net(), as.mcpUrl, null)).as.token_endpoint).toBe(`${as.issuer}/token`);
  });
  test("issuer trailing slash normalised once", async () => {
    as.opts.prmIssuer = `${as.origin}/`;
    expect((await discover(await net(), as.mcpUrl, await challenge())).issuer).toBe(`${as.origin}/`);
  });
  test("resource mismatch: another origin or another path", async () => {
    for (const r of ["http://127.0.0.2:1/mcp", `${as.origin}/other`]) {
      as.opts.prmResource = r;
      const err = (await discover(await net(), as.mcpUrl, await challenge()).catch((e) => e)) as Error;
      expect(err.message).toBe("protected resource metadata resource mismatch");
    }
    as.opts.prmResource = `${as.origin}/`;
    expect((await discover(await net(), as.mcpUrl, await challenge())).issuer).toBe(as.issuer);
  });
  test("issuer mismatch", async () => {
    as.opts.claimedIssuer = "http://127.0.0.1:1";
    const err = (await discover(await net(), as.mcpUrl, await challenge()).catch((e) => e)) as Error;
    expect(err.message).toBe("authorization server metadata issuer mismatch");
  });
  test("PRM names an AS without metadata", async () => {
    as.opts.metadataAt = "none";
    const err = (await discover(await net(), as.mcpUrl, await challenge()).catch((e) => e)) as Error;
    expect(err.message).toBe("authorization server metadata not found");
  });
  test("2025-03-26 server: no PRM, origin is the issuer, default endpoints without metadata", async () => {
    as.opts.prm = "none";
    as.opts.challengeMetadata = false;
    let d = await discover(await net(), as.mcpUrl, await challenge());
    expect(d.legacy).toBe(true);
    expect(d.issuer).toBe(as.origin);
    expect(d.as.token_endpoint).toBe(`${as.issuer}/token`);
    as.opts.metadataAt = "none";
    d = await discover(await net(), as.mcpUrl, null);
    expect(d.as.authorization_endpoint).toBe(`${as.origin}/authorize`);
  });
  test("metadata pointing at a private address from a public server is refused", async () => {
    const n: OAuthNet = {
      policy: await urlPolicy(new URL("https://mcp.example.com/mcp"), false, async () => ["93.184.216.34"]),
      fetch,
      timeoutMs: 5000,
    };
    const c = bearerChallenge('Bearer resource_metadata="https://10.0.0.1/.well-known/oauth-protected-resource"');
    const err = (await discover(n, "https://mcp.example.com/mcp", c).catch((e) => e)) as Error;
    expect(err.message).toBe("oauth URL refused: private address");
  });
  test("redirect hops are re-checked and bounded", async () => {
    const hop = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: (r) => {
        const n = Number(new URL(r.url).searchParams.get("n") ?? "0");
        const to = n >= 10 ? "https://10.0.0.1/x" : `/hop?n=${n + 1}`;
        return new Response(null, { status: 302, headers: { location: to } });
      },
    });
    try {
      const c = bearerChallenge(`Bearer resource_metadata="http://127.0.0.1:${hop.port}/hop?n=0"`);
      let err = (await discover(await net(), as.mcpUrl, c).catch((e) => e)) as Error;
      expect(err.message).toBe("oauth URL refused: too many redirects");
      const c2 = bearerChallenge(`Bearer resource_metadata="http://127.0.0.1:${hop.port}/hop?n=10"`);
      const pub: OAuthNet = { ...(await net()), policy: { ...(await net()).policy, serverClass: "public" } };
      err = (await discover(pub, as.mcpUrl, c2).catch((e) => e)) as Error;
      expect(err.message).toBe("oauth URL refused: not https");
    } finally {
      hop.stop(true);
    }
  });
  test("metadata requests carry no Authorization or configured headers", async () => {
    await discover(await net(), as.mcpUrl, await challenge());
    for (const r of as.seen.filter((x) => x.path.startsWith("/.well-known"))) {
      expect(r.headers.authorization).toBeUndefined();
      expect(Object.keys(r.headers).filter((h) => h.startsWith("x-"))).toEqual([]);
    }
  });
  test("a timeout is a fixed message", async () => {
    const slow = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => Bun.sleep(2000).then(() => new Response()) });
    try {
      const c = bearerChallenge(`Bearer resource_metadata="http://127.0.0.1:${slow.port}/prm"`);
      const err = (await discover({ ...(await net()), timeoutMs: 100 }, as.mcpUrl, c).catch((e) => e)) as Error;
      expect(err.message).toBe("protected resource metadata timed out");
    } finally {
      slow.stop(true);
    }
  });
});

describe("allow_private_network", () => {
  // A public server (IP literal: no DNS) whose challenge points at a private address.
  const header = 'Bearer resource_metadata="https://10.0.0.1/prm"';
  const run = async (privileged: boolean) => {
    const asked: string[] = [];
    const stub = (async (u: string | URL | Request) => {
      asked.push(String(u));
      return new Response("", { status: 404 });
    }) as typeof fetch;
    const s = new OAuthSession(
      env().ctx,
      {
        server: "pub",
        serverUrl: "https://93.184.216.34/mcp",
        settings: parseOAuthSettings({ allow_private_network: true }, {}),
        privileged,
        persist: false,
        tokenSecret: null,
      },
      { approve: async () => false, openUrl: async () => {}, headless: false, interactive: false, fetch: stub },
    );
    const err = (await s.onUnauthorized(header).catch((x) => x)) as Error;
    return { message: err.message, asked };
  };
  test("ignored from a project source", async () => {
    expect(await run(false)).toEqual({ message: "oauth URL refused: private address", asked: [] });
  });
  test("honoured from lemon's own config", async () => {
    const r = await run(true);
    expect(r.asked[0]).toBe("https://10.0.0.1/prm");
    expect(r.message).toBe("authorization required");
  });
});
