// No token, refresh token, client secret, code, verifier or error_description ever leaves
// A/secrets/mcp-oauth/ (mcp.md §11.5, §11.6): every failure case runs in one agent dir, then
// the captured log entries, error objects and every file outside the secrets dir are searched
// for each secret the fixture AS issued or saw.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { LemonError } from "../../../../src/core/errors.ts";
import { type OAuthFixture, startOAuthFixture } from "../../../support/oauth-as.ts";
import { authed, CC, call, env, session } from "./helpers.ts";

let as: OAuthFixture;
beforeAll(async () => {
  as = await startOAuthFixture();
});
afterAll(() => as.stop());

function files(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...files(p));
    else out.push(p);
  }
  return out;
}

test("failure cases leak no secret into errors, logs or files outside secrets/", async () => {
  as.reset();
  const e = env();
  const errors: unknown[] = [];
  const attempt = async (fn: () => Promise<unknown>) => {
    try {
      await fn();
    } catch (err) {
      errors.push(err);
    }
  };
  const challenge = async () => (await fetch(as.mcpUrl, { method: "POST" })).headers.get("www-authenticate");
  const desc = (status: number, error: string) => () =>
    Response.json({ error, error_description: `leaked SECRETDESC for ${error}` }, { status });

  // Successful flows first, so real tokens exist to be leaked.
  await authed(session(e, as, CC), as);
  await session(e, as, null).login();
  as.opts.expiresIn = 30;
  await authed(session(e, as, CC), as);
  await session(e, as, CC).authorization();
  as.opts.expiresIn = 3600;
  // Token endpoint failures, for every grant.
  for (const [status, error] of [
    [400, "invalid_grant"],
    [401, "invalid_client"],
    [400, "invalid_request"],
    [500, "server_error"],
  ] as const) {
    as.opts.tokenHook = desc(status, error);
    const s = session(e, as, CC);
    await attempt(() => s.authorization());
    await attempt(async () => s.onUnauthorized(await challenge()));
    await attempt(() => session(e, as, null).login());
  }
  as.opts.tokenHook = () => Response.json({ access_token: "bad-SECRETACCESS", token_type: "mac" });
  await attempt(() => session(e, as, CC).login());
  as.opts.tokenHook = () => Bun.sleep(800).then(() => Response.json({}));
  await attempt(() => session(e, as, CC, { timeoutMs: 200 }).login());
  as.opts.tokenHook = null;
  // Callback failures.
  as.opts.badState = true;
  await attempt(() => session(e, as, null).login());
  as.opts.badState = false;
  as.opts.iss = "wrong";
  await attempt(() => session(e, as, null).login());
  as.opts.iss = "correct";
  // Issuer and resource mismatches, then a corrupt file.
  as.opts.claimedIssuer = "http://127.0.0.1:1";
  await attempt(() => session(e, as, null).login());
  as.opts.claimedIssuer = null;
  as.opts.prmResource = "http://127.0.0.1:1/mcp";
  await attempt(() => session(e, as, null).login());
  as.opts.prmResource = null;
  const dir = join(e.ctx.agentDir, "secrets", "mcp-oauth");
  for (const f of readdirSync(dir).filter((n) => n.endsWith(".json"))) writeFileSync(join(dir, f), "{broken");
  await attempt(async () => call(session(e, as, CC), as));
  await attempt(() => session(e, as, null).logout(true));

  expect(errors.length).toBeGreaterThan(10);
  for (const err of errors) expect(LemonError.is(err)).toBe(true);

  const secrets = new Set<string>(["cc-secret-VALUE", "SECRET"]);
  for (const r of as.seen) {
    const f = new URLSearchParams(r.body);
    for (const k of ["code", "code_verifier", "refresh_token", "client_secret"]) {
      const v = f.get(k);
      if (v) secrets.add(v);
    }
    const a = r.headers.authorization;
    if (a) secrets.add(a.split(" ")[1]!);
  }
  const said = [
    ...errors.map((x) => {
      const l = x as LemonError;
      return JSON.stringify({ m: l.message, h: l.hint, d: l.details, s: l.stack, c: String(l.cause ?? "") });
    }),
    ...e.logs.map((l) => JSON.stringify(l)),
  ].join("\n");
  const outside = files(e.root)
    .filter((p) => relative(dir, p).startsWith(".."))
    .map((p) => `${p}\n${readFileSync(p, "utf8")}`)
    .join("\n");
  expect(files(e.root).some((p) => p.startsWith(dir))).toBe(true);
  for (const secret of secrets) {
    expect(said.includes(secret) ? `${secret} in errors/logs` : "").toBe("");
    expect(outside.includes(secret) ? `${secret} in a file outside secrets/` : "").toBe("");
  }
});
