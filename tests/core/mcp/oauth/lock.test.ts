// The refresh lock (mcp.md §11.6): 10 real bun processes call authorization() at once on an
// expiring token; the AS sees exactly one refresh grant (the rotated refresh token is spent
// once) and every process ends with the same new access token.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { canonicalServerUrl } from "../../../../src/core/mcp/oauth/discovery.ts";
import { tokenId } from "../../../../src/core/mcp/oauth/store.ts";
import { type OAuthFixture, startOAuthFixture } from "../../../support/oauth-as.ts";
import { authed, CC, env, session } from "./helpers.ts";

let as: OAuthFixture;
beforeAll(async () => {
  as = await startOAuthFixture();
});
afterAll(() => as.stop());

test("10 processes refreshing at once spend the refresh token once", async () => {
  as.reset();
  const e = env();
  // Obtained with a long lifetime, then stored as expiring: the children must refresh.
  await authed(session(e, as, CC), as);
  const file = join(
    e.ctx.agentDir,
    "secrets",
    "mcp-oauth",
    `${tokenId(canonicalServerUrl(as.mcpUrl), "cc-client", null)}.json`,
  );
  const rec = JSON.parse(readFileSync(file, "utf8"));
  rec.expires_at = "2000-01-01T00:00:00Z";
  await Bun.write(file, JSON.stringify(rec));
  as.opts.tokenDelayMs = 150;
  const before = as.grants("refresh_token").length;
  const child = join(import.meta.dir, "refresh-child.ts");
  const procs = Array.from({ length: 10 }, () =>
    Bun.spawn([process.execPath, child, e.ctx.agentDir, as.mcpUrl], { stdout: "pipe", stderr: "pipe" }),
  );
  const outs = await Promise.all(
    procs.map(async (p) => {
      const [out, err] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text()]);
      await p.exited;
      return { out: out.trim(), err, code: p.exitCode };
    }),
  );
  for (const o of outs) expect(`${o.code} ${o.err}`).toBe("0 ");
  expect(as.grants("refresh_token").length - before).toBe(1);
  const fresh = JSON.parse(readFileSync(file, "utf8"));
  expect(fresh.access_token).not.toBe(rec.access_token);
  expect(new Set(outs.map((o) => o.out))).toEqual(new Set([`Bearer ${fresh.access_token}`]));
}, 60_000);
