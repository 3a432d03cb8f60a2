/**
 * @module mcp/oauth/www-authenticate
 * RFC 9110 §11.6.1 challenges: `scheme [token68 | param=value, …]`, several per header, values
 * tokens or quoted strings. Only the Bearer challenge's `resource_metadata`, `scope` and `error`
 * matter to lemon (RFC 6750, RFC 9728 §5.1); everything else is parsed and ignored.
 */

export interface Challenge {
  scheme: string;
  params: Record<string, string>;
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+/;

/** All challenges of a header; malformed tails are dropped, never thrown. */
export function parseChallenges(header: string): Challenge[] {
  const out: Challenge[] = [];
  let s = header;
  let current: Challenge | null = null;
  const skip = () => {
    s = s.replace(/^[\s,]+/, "");
  };
  for (skip(); s !== ""; skip()) {
    const name = TOKEN.exec(s)?.[0];
    if (name === undefined) break;
    const after = s.slice(name.length);
    const eq = /^\s*=\s*/.exec(after);
    // `name=` followed by `=`/end is a token68 (base64 padding), not a parameter.
    if (eq && current !== null && !/^\s*=\s*(=|,|$)/.test(after)) {
      let rest = after.slice(eq[0].length);
      let value: string;
      if (rest.startsWith('"')) {
        let i = 1;
        value = "";
        for (; i < rest.length && rest[i] !== '"'; i++) {
          if (rest[i] === "\\" && i + 1 < rest.length) i++;
          value += rest[i];
        }
        rest = rest.slice(i + 1);
      } else {
        value = TOKEN.exec(rest)?.[0] ?? "";
        rest = rest.slice(value.length);
      }
      const key = name.toLowerCase();
      if (!(key in current.params)) current.params[key] = value;
      s = rest;
      continue;
    }
    if (eq && current !== null) {
      // token68 of the current challenge: consumed and ignored.
      s = after.replace(/^[\s=]+/, "");
      continue;
    }
    current = { scheme: name.toLowerCase(), params: {} };
    out.push(current);
    s = after;
    const t68 = /^\s+([A-Za-z0-9\-._~+/]+=*)\s*(,|$)/.exec(s);
    if (t68 && !/^\s+[!#$%&'*+\-.^_`|~0-9A-Za-z]+\s*=[^=]/.test(s)) s = s.slice(t68[0].length);
  }
  return out;
}

/** The first Bearer challenge of a header, or null. */
export function bearerChallenge(header: string | null): Challenge | null {
  if (header === null) return null;
  return parseChallenges(header).find((c) => c.scheme === "bearer") ?? null;
}

/** The scopes a challenge names (space-separated), or null when it names none. */
export function challengeScopes(c: Challenge | null): string[] | null {
  const s = c?.params.scope;
  if (s === undefined) return null;
  const list = s.split(/\s+/).filter((x) => x !== "");
  return list.length > 0 ? list : null;
}

/**
 * True when an HTTP server's answer is an OAuth challenge (issue 14 item 4): a 401 whose Bearer
 * challenge points at protected-resource metadata. A bare `Bearer` 401 is a static-token server.
 */
export function isOAuthChallenge(status: number, wwwAuthenticate: string | null): boolean {
  if (status !== 401) return false;
  const c = bearerChallenge(wwwAuthenticate);
  return c !== null && typeof c.params.resource_metadata === "string" && c.params.resource_metadata !== "";
}
