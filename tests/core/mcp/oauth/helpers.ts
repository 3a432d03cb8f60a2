// Shared setup of the OAuth engine tests: a temp agent dir, a context that records its log, and
// a session factory over the fixture AS.
import { mkdtempSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createContext, type LemonContext, type LogEntry } from "../../../../src/core/context.ts";
import { type OAuthHooks, OAuthSession, type OAuthTarget } from "../../../../src/core/mcp/oauth/session.ts";
import { parseOAuthSettings } from "../../../../src/core/mcp/oauth/settings.ts";
import type { OAuthFixture } from "../../../support/oauth-as.ts";

export interface Env {
  root: string;
  ctx: LemonContext;
  logs: LogEntry[];
  approvals: unknown[];
  opened: string[];
}

export function env(now?: () => Date): Env {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "lemon-oauth-")));
  const logs: LogEntry[] = [];
  const ctx = createContext({
    cwd: root,
    home: join(root, "home"),
    agentDir: join(root, "agent"),
    homeDir: root,
    env: {},
    log: (e) => logs.push(e),
    ...(now ? { now } : {}),
  });
  return { root, ctx, logs, approvals: [], opened: [] };
}

export function session(
  e: Env,
  as: OAuthFixture,
  oauth: Record<string, unknown> | null,
  hooks: Partial<OAuthHooks> = {},
  target: Partial<OAuthTarget> = {},
): OAuthSession {
  return new OAuthSession(
    e.ctx,
    {
      server: "demo",
      serverUrl: as.mcpUrl,
      settings: oauth === null ? null : parseOAuthSettings(oauth, { CC_SECRET: "cc-secret-VALUE" }),
      privileged: false,
      persist: true,
      tokenSecret: null,
      ...target,
    },
    {
      approve: async (r) => {
        e.approvals.push(r);
        return true;
      },
      openUrl: async (u) => {
        e.opened.push(u);
      },
      headless: true,
      interactive: true,
      timeoutMs: 3000,
      ...hooks,
    },
  );
}

/** What the MCP endpoint says to a request with this session's bearer (401/403 drive the session). */
export async function call(s: OAuthSession, as: OAuthFixture, method = "POST"): Promise<Response> {
  const bearer = await s.authorization();
  return fetch(as.mcpUrl, { method, headers: bearer ? { authorization: bearer } : {} });
}

/** One request through the 401 → onUnauthorized → retry dance, as auth-fetch does it. */
export async function authed(s: OAuthSession, as: OAuthFixture): Promise<Response> {
  let r = await call(s, as);
  if (r.status === 401) {
    await s.onUnauthorized(r.headers.get("www-authenticate"));
    r = await call(s, as);
  }
  return r;
}

export const CC = { client_id: "cc-client", client_secret: "${CC_SECRET}" };
