// URL safety of OAuth flows (mcp.md §11.3): IP literals in every form a resolver accepts, the
// https rule with its loopback exception, internal ranges refused unless the server is internal
// or allow_private_network is set, host names judged by what they resolve to.
import { describe, expect, test } from "bun:test";
import {
  checkOAuthUrl,
  classifyLiteral,
  parseIPv4,
  parseIPv6,
  type Resolver,
  urlPolicy,
} from "../../../../src/core/mcp/oauth/url-safety.ts";

const dns: Record<string, string[]> = {
  "mcp.example.com": ["93.184.216.34"],
  "auth.example.com": ["93.184.216.35"],
  "intranet.example.com": ["10.1.2.3"],
  "mixed.example.com": ["93.184.216.36", "fd00::1"],
  "rebind.example.com": ["::ffff:127.0.0.1"],
};
const resolve: Resolver = async (h) => {
  const a = dns[h];
  if (!a) throw new Error("ENOTFOUND");
  return a;
};

describe("IP parser", () => {
  test("inet_aton forms", () => {
    expect(parseIPv4("127.0.0.1")).toEqual([127, 0, 0, 1]);
    expect(parseIPv4("2130706433")).toEqual([127, 0, 0, 1]);
    expect(parseIPv4("0x7f.1")).toEqual([127, 0, 0, 1]);
    expect(parseIPv4("0177.0.0.01")).toEqual([127, 0, 0, 1]);
    expect(parseIPv4("10.0x10203")).toEqual([10, 1, 2, 3]);
    expect(parseIPv4("192.168.1")).toEqual([192, 168, 0, 1]);
    expect(parseIPv4("256.0.0.1")).toBeNull();
    expect(parseIPv4("08.0.0.1")).toBeNull();
    expect(parseIPv4("example.com")).toBeNull();
  });
  test("IPv6 forms", () => {
    expect(parseIPv6("::1")).toEqual([0, 0, 0, 0, 0, 0, 0, 1]);
    expect(parseIPv6("[::ffff:10.0.0.1]")).toEqual([0, 0, 0, 0, 0, 0xffff, 0x0a00, 1]);
    expect(parseIPv6("fe80::1%eth0")).toEqual([0xfe80, 0, 0, 0, 0, 0, 0, 1]);
    expect(parseIPv6("1:2:3:4:5:6:7:8:9")).toBeNull();
    expect(parseIPv6("1::2::3")).toBeNull();
  });
  test("classes", () => {
    const cases: Record<string, string> = {
      "127.0.0.1": "loopback",
      "0x7f000001": "loopback",
      "10.0.0.1": "private",
      "172.16.0.1": "private",
      "172.32.0.1": "public",
      "192.168.0.1": "private",
      "169.254.169.254": "link-local",
      "0.0.0.0": "unspecified",
      "::": "unspecified",
      "::1": "loopback",
      "::ffff:7f00:1": "loopback",
      "::ffff:169.254.169.254": "link-local",
      "fe80::1": "link-local",
      "fc00::1": "ula",
      "fd12:3456::1": "ula",
      "2606:4700::1111": "public",
      "8.8.8.8": "public",
      "1.2.3.999": "invalid",
      "example.com": "null",
      // Issue #14 F9: special-purpose ranges that are no public address.
      "198.18.0.1": "private",
      "198.19.255.255": "private",
      "198.20.0.1": "public",
      "192.0.0.8": "private",
      "192.0.1.1": "public",
      "240.0.0.1": "private",
      "255.255.255.255": "private",
      "64:ff9b:1::a9fe:a9fe": "private",
      "64:ff9b:1:ffff::1": "private",
      "64:ff9b::a9fe:a9fe": "link-local",
      "64:ff9b::808:808": "public",
      "2001::1": "private",
      "2001:0:4136:e378:8000:63bf:3fff:fdd2": "private",
      "2001:db8::1": "public",
      "2002:a9fe:a9fe::1": "link-local",
      "2002:0808:0808::1": "public",
    };
    for (const [h, c] of Object.entries(cases)) expect(`${h} ${String(classifyLiteral(h))}`).toBe(`${h} ${c}`);
  });
});

describe("checkOAuthUrl", () => {
  test("public server: https public hosts only", async () => {
    const p = await urlPolicy(new URL("https://mcp.example.com/mcp"), false, resolve);
    expect((await checkOAuthUrl("https://auth.example.com/token", p)).host).toBe("auth.example.com");
    const refusedWith = async (u: string) => (await checkOAuthUrl(u, p).catch((e: Error) => e)) as Error;
    expect((await refusedWith("http://auth.example.com/token")).message).toBe("oauth URL refused: not https");
    for (const u of [
      "https://10.0.0.1/",
      "https://0x7f.1/",
      "https://2130706433/",
      "https://[::ffff:127.0.0.1]/",
      "https://[fe80::1]/",
      "https://169.254.169.254/latest/meta-data",
      "https://localhost/",
      "https://intranet.example.com/",
      "https://mixed.example.com/",
      "https://rebind.example.com/",
      "https://0.0.0.0/",
    ])
      expect(`${u} ${(await refusedWith(u)).message}`).toBe(`${u} oauth URL refused: private address`);
    expect((await refusedWith("https://u:p@auth.example.com/")).message).toBe("oauth URL refused: credentials in URL");
    expect((await refusedWith("ftp://auth.example.com/")).message).toBe("oauth URL refused: not https");
    expect((await refusedWith("not a url")).message).toBe("oauth URL refused: invalid URL");
  });
  test("allow_private_network admits internal https hosts, never plain http", async () => {
    const p = await urlPolicy(new URL("https://mcp.example.com/mcp"), true, resolve);
    expect((await checkOAuthUrl("https://10.0.0.1/", p)).hostname).toBe("10.0.0.1");
    expect(((await checkOAuthUrl("http://10.0.0.1/", p).catch((e: Error) => e)) as Error).message).toBe(
      "oauth URL refused: not https",
    );
  });
  test("loopback server: loopback http allowed, other http not", async () => {
    const p = await urlPolicy(new URL("http://127.0.0.1:3000/mcp"), false, resolve);
    expect((await checkOAuthUrl("http://localhost:3001/token", p)).port).toBe("3001");
    expect((await checkOAuthUrl("https://10.0.0.1/", p)).hostname).toBe("10.0.0.1");
    expect(((await checkOAuthUrl("http://auth.example.com/", p).catch((e: Error) => e)) as Error).message).toBe(
      "oauth URL refused: not https",
    );
  });
  test("private server: private https allowed, loopback http not", async () => {
    const p = await urlPolicy(new URL("https://10.0.0.5/mcp"), false, resolve);
    expect((await checkOAuthUrl("https://10.0.0.6/", p)).hostname).toBe("10.0.0.6");
    expect(((await checkOAuthUrl("http://127.0.0.1/", p).catch((e: Error) => e)) as Error).message).toBe(
      "oauth URL refused: not https",
    );
  });
});
