/**
 * @module mcp/oauth/url-safety
 * Which URLs an OAuth flow may reach (mcp.md §11.3). Metadata documents are untrusted: they name
 * the endpoints lemon then sends secrets to, so every URL (each redirect hop too) must be https,
 * and one that lands on an internal address is refused unless the MCP server itself lives in
 * such a range. IP literals go through a parser of every form a resolver accepts (inet_aton's
 * decimal/octal/hex parts, IPv6 with embedded IPv4), so `http://0x7f.1/` is loopback, not a name.
 */
import { LemonError } from "../../errors.ts";

export type AddressClass = "public" | "loopback" | "private" | "link-local" | "ula" | "unspecified";

/** inet_aton: 1–4 parts, each decimal, octal (leading 0) or hex (0x); the last fills the rest. Null: not IPv4. */
export function parseIPv4(host: string): number[] | null {
  const text = host.endsWith(".") ? host.slice(0, -1) : host;
  const parts = text.split(".");
  if (parts.length === 0 || parts.length > 4) return null;
  const values: number[] = [];
  for (const p of parts) {
    let v: number;
    if (/^0x[0-9a-f]*$/i.test(p)) v = p.length === 2 ? 0 : Number.parseInt(p.slice(2), 16);
    else if (/^0[0-7]*$/.test(p)) v = Number.parseInt(p, 8);
    else if (/^[1-9][0-9]*$/.test(p)) v = Number(p);
    else return null;
    if (!Number.isSafeInteger(v)) return null;
    values.push(v);
  }
  const last = values.pop()!;
  if (values.some((v) => v > 255) || last >= 256 ** (4 - values.length)) return null;
  const out = [...values];
  for (let i = 3 - values.length; i >= 0; i--) out.push(Math.floor(last / 256 ** i) % 256);
  return out;
}

/** Looks numeric enough that a resolver would try it as IPv4 (so a failed parse must not fall back to DNS). */
function looksNumeric(host: string): boolean {
  const last = (host.endsWith(".") ? host.slice(0, -1) : host).split(".").pop() ?? "";
  return /^(0x[0-9a-f]*|[0-9]+)$/i.test(last);
}

/** Eight 16-bit groups, `::` and a dotted IPv4 tail accepted, a zone id dropped. Null: not IPv6. */
export function parseIPv6(input: string): number[] | null {
  let s = input.startsWith("[") && input.endsWith("]") ? input.slice(1, -1) : input;
  const zone = s.indexOf("%");
  if (zone >= 0) s = s.slice(0, zone);
  if (!s.includes(":")) return null;
  const halves = s.split("::");
  if (halves.length > 2) return null;
  const groups = (part: string): number[] | null => {
    if (part === "") return [];
    const out: number[] = [];
    const items = part.split(":");
    for (let i = 0; i < items.length; i++) {
      const it = items[i]!;
      if (i === items.length - 1 && it.includes(".")) {
        const v4 = /^\d{1,3}(\.\d{1,3}){3}$/.test(it) ? it.split(".").map(Number) : null;
        if (v4 === null || v4.some((b) => b > 255)) return null;
        out.push(v4[0]! * 256 + v4[1]!, v4[2]! * 256 + v4[3]!);
      } else if (/^[0-9a-f]{1,4}$/i.test(it)) out.push(Number.parseInt(it, 16));
      else return null;
    }
    return out;
  };
  const head = groups(halves[0]!);
  const tail = halves.length === 2 ? groups(halves[1]!) : [];
  if (head === null || tail === null) return null;
  if (halves.length === 1) return head.length === 8 ? head : null;
  const fill = 8 - head.length - tail.length;
  if (fill < 1) return null;
  return [...head, ...new Array<number>(fill).fill(0), ...tail];
}

export function classifyIPv4(b: number[]): AddressClass {
  const [a = 0, c = 0] = b;
  if (a === 0) return "unspecified";
  if (a === 127) return "loopback";
  if (a === 10 || (a === 172 && c >= 16 && c <= 31) || (a === 192 && c === 168)) return "private";
  // Carrier-grade NAT: cloud providers put metadata services there, so it is no public address.
  if (a === 100 && c >= 64 && c <= 127) return "private";
  if (a === 169 && c === 254) return "link-local";
  // Benchmarking (198.18/15) and IETF protocol assignments (192.0.0/24) are no public hosts either.
  if ((a === 198 && (c === 18 || c === 19)) || (a === 192 && c === 0 && b[2] === 0)) return "private";
  // Multicast, reserved 240/4 and the broadcast address.
  if (a >= 224) return "private";
  return "public";
}

export function classifyIPv6(g: number[]): AddressClass {
  const v4 = (hi: number, lo: number) => [hi >> 8, hi & 255, lo >> 8, lo & 255];
  const zeros = (n: number) => g.slice(0, n).every((x) => x === 0);
  if (zeros(8)) return "unspecified";
  if (zeros(7) && g[7] === 1) return "loopback";
  // IPv4-mapped, IPv4-compatible and NAT64 addresses reach the embedded IPv4 address.
  if (zeros(5) && g[5] === 0xffff) return classifyIPv4(v4(g[6]!, g[7]!));
  if (zeros(6)) return classifyIPv4(v4(g[6]!, g[7]!));
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) return classifyIPv4(v4(g[6]!, g[7]!));
  // The local-use NAT64 prefix (RFC 8215) may embed the IPv4 address at any of several offsets.
  if (g[0] === 0x64 && g[1] === 0xff9b && g[2] === 1) return "private";
  // Teredo tunnels to an obfuscated client address; nothing a metadata URL needs.
  if (g[0] === 0x2001 && g[1] === 0) return "private";
  if (g[0] === 0x2002) return classifyIPv4(v4(g[1]!, g[2]!));
  const first = g[0]!;
  if ((first & 0xffc0) === 0xfe80) return "link-local";
  if ((first & 0xfe00) === 0xfc00) return "ula";
  if ((first & 0xffc0) === 0xfec0) return "private";
  if ((first & 0xff00) === 0xff00) return "private";
  return "public";
}

/** The class of an IP literal host, "invalid" for a numeric host no parser accepts, null for a name. */
export function classifyLiteral(host: string): AddressClass | "invalid" | null {
  const h = host.toLowerCase();
  const v6 = h.includes(":") ? parseIPv6(h) : null;
  if (h.includes(":")) return v6 === null ? "invalid" : classifyIPv6(v6);
  const v4 = parseIPv4(h);
  if (v4 !== null) return classifyIPv4(v4);
  return looksNumeric(h) ? "invalid" : null;
}

/**
 * Resolves a host name to its addresses; injectable so tests need no DNS. Known gap (issue #14
 * F9): fetch resolves the name again, so a rebinding DNS server can answer differently there.
 * Connecting to the checked IP with a Host header would break TLS name checks, and Bun's fetch
 * offers no hook to pin the address, so §11.3's "SHOULD be the one connected to" is not met yet.
 */
export type Resolver = (host: string) => Promise<string[]>;

export const systemResolver: Resolver = async (host) => {
  const dns = await import("node:dns/promises");
  const found = await dns.lookup(host, { all: true, verbatim: true });
  return found.map((a) => a.address);
};

/** The class of a host: literal, `localhost`, else the worst class of what it resolves to. */
export async function classifyHost(host: string, resolve: Resolver): Promise<AddressClass | "invalid"> {
  const h = (host.startsWith("[") ? host.slice(1, -1) : host).toLowerCase();
  const lit = classifyLiteral(h);
  if (lit !== null) return lit;
  const name = h.endsWith(".") ? h.slice(0, -1) : h;
  if (name === "localhost" || name.endsWith(".localhost")) return "loopback";
  let addrs: string[];
  try {
    addrs = await resolve(name);
  } catch {
    // Unresolvable: the request that follows fails on its own; nothing internal can be reached.
    return "public";
  }
  let worst: AddressClass = "public";
  for (const a of addrs) {
    const c = classifyLiteral(a);
    if (c === "invalid") return "invalid";
    if (c !== null && c !== "public") worst = c;
  }
  return worst;
}

/** What a flow may reach, fixed once per server (mcp.md §11.3). */
export interface UrlPolicy {
  serverClass: AddressClass | "invalid";
  /** `allow_private_network` from a privileged source. */
  allowPrivate: boolean;
  resolve: Resolver;
}

export async function urlPolicy(serverUrl: URL, allowPrivate: boolean, resolve: Resolver): Promise<UrlPolicy> {
  return { serverClass: await classifyHost(serverUrl.hostname, resolve), allowPrivate, resolve };
}

export const refused = (why: string) => new LemonError("UNAUTHORIZED", `oauth URL refused: ${why}`);

/** The URL when the policy allows it; else UNAUTHORIZED `oauth URL refused: <why>`. */
export async function checkOAuthUrl(raw: string | URL, policy: UrlPolicy): Promise<URL> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw refused("invalid URL");
  }
  if (url.username !== "" || url.password !== "") throw refused("credentials in URL");
  if (url.protocol !== "https:" && url.protocol !== "http:") throw refused("not https");
  const cls = await classifyHost(url.hostname, policy.resolve);
  if (cls === "invalid") throw refused("invalid URL");
  const internalServer = policy.serverClass !== "public";
  if (url.protocol === "http:" && !(cls === "loopback" && policy.serverClass === "loopback"))
    throw refused("not https");
  if (cls !== "public" && !internalServer && !policy.allowPrivate) throw refused("private address");
  return url;
}
