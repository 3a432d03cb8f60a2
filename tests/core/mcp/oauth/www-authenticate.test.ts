// WWW-Authenticate parsing (RFC 9110 §11.6.1) and the OAuth-challenge test of issue 14 item 4.
import { describe, expect, test } from "bun:test";
import {
  bearerChallenge,
  challengeScopes,
  isOAuthChallenge,
  parseChallenges,
} from "../../../../src/core/mcp/oauth/www-authenticate.ts";

describe("WWW-Authenticate", () => {
  test("several challenges, quoted values with escapes and commas, token68", () => {
    const h = `Basic abc==, Bearer realm="a, \\"b\\"", scope="x y", error=insufficient_scope, resource_metadata="https://h/.well-known/oauth-protected-resource/mcp"`;
    const cs = parseChallenges(h);
    expect(cs.map((c) => c.scheme)).toEqual(["basic", "bearer"]);
    const b = bearerChallenge(h)!;
    expect(b.params.realm).toBe('a, "b"');
    expect(b.params.error).toBe("insufficient_scope");
    expect(challengeScopes(b)).toEqual(["x", "y"]);
    expect(b.params.resource_metadata).toBe("https://h/.well-known/oauth-protected-resource/mcp");
  });
  test("bare and malformed headers", () => {
    expect(parseChallenges("Bearer")).toEqual([{ scheme: "bearer", params: {} }]);
    expect(bearerChallenge(null)).toBeNull();
    expect(bearerChallenge('Bearer scope="unterminated')?.params.scope).toBe("unterminated");
    expect(parseChallenges("")).toEqual([]);
    expect(challengeScopes(bearerChallenge('Bearer scope=""'))).toBeNull();
  });
  test("isOAuthChallenge: 401 + resource_metadata only", () => {
    expect(isOAuthChallenge(401, 'Bearer resource_metadata="https://h/x"')).toBe(true);
    expect(isOAuthChallenge(401, "Bearer")).toBe(false);
    expect(isOAuthChallenge(401, null)).toBe(false);
    expect(isOAuthChallenge(403, 'Bearer resource_metadata="https://h/x"')).toBe(false);
    expect(isOAuthChallenge(401, 'Basic realm="x"')).toBe(false);
  });
});
